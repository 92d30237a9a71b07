/**
 * Writes a parsed graph dump into a new Kùzu database (an embedded graph engine), so the
 * simulators can read graph dumps through the Kùzu connector like any other graph database.
 *
 * The writing runs in a separate Node process: Kùzu 0.11's Node binding can crash the process
 * that closed a Database once the garbage collector finalises it (see connectors/ladybug), and the
 * connector opens the result read-only in its own worker anyway. The child is a few lines of
 * plain JavaScript given with `-e`, so it needs no bundled entry file: it loads `kuzu` from
 * the path this process resolves and runs the planned statements in order.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { GraphDump } from './cypher-dump';
import { ladybugImportStatements, planLadybugImport } from './ladybug-import-plan';

const IMPORT_TIMEOUT_MS = 120_000;
/** The dumps are small; LadybugDB's default buffer pool (80% of RAM) is far too much for a helper. */
const BUFFER_POOL_BYTES = 128 * 1024 * 1024;

const CHILD_SCRIPT = `
const [enginePath, databasePath, statementsPath, bufferPool] = process.argv.slice(1);
const lbug = require(enginePath);
const statements = JSON.parse(require('node:fs').readFileSync(statementsPath, 'utf8'));
(async () => {
  const database = new lbug.Database(databasePath, Number(bufferPool));
  const connection = new lbug.Connection(database);
  for (const statement of statements) {
    try { await connection.query(statement); }
    catch (error) { throw new Error(String(error && error.message ? error.message : error) + ' (in: ' + statement.slice(0, 120) + ')'); }
  }
  process.exit(0);
})().catch((error) => { process.stderr.write(String(error && error.message ? error.message : error) + '\\n'); process.exit(1); });
`;

function runChild(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    // ELECTRON_RUN_AS_NODE makes Electron's binary behave as plain Node when the app calls this.
    const child = spawn(process.execPath, ['-e', CHILD_SCRIPT, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), IMPORT_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`LadybugDB import failed (${signal ?? `exit code ${code}`}): ${stderr.trim() || 'no message'}`));
    });
  });
}

/** Creates the LadybugDB database at `path` (which must not exist) from `graph`; removes any partial result on failure. */
export async function writeLadybugDatabase(graph: GraphDump, path: string, source?: string): Promise<void> {
  const plan = planLadybugImport(graph, source);
  const staging = mkdtempSync(join(dirname(path), '.ladybug-staging-'));
  try {
    for (const { file } of plan.loads) writeFileSync(join(staging, file.name), file.content);
    const statementsPath = join(staging, 'statements.json');
    writeFileSync(statementsPath, JSON.stringify(ladybugImportStatements(plan, staging)));
    await runChild([require.resolve('@ladybugdb/core'), path, statementsPath, String(BUFFER_POOL_BYTES)]);
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    rmSync(`${path}.wal`, { force: true });
    throw error;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
