/**
 * Streaming cost of `dwb query`: `npm run bench:query-stream`. Builds a SQLite file of 10^6 rows
 * (id, text, real) with the sqlite3 CLI, then for 10^4, 10^5 and 10^6 rows runs the built CLI
 * (`bin/dwb.js query --format csv`, after `npx electron-vite build`) and `sqlite3 -csv` on the
 * same query, output into a pipe that is read and dropped. Prints time to first row, total time,
 * rows per second and the peak resident memory of the process tree (dwb and its SQLite worker,
 * sampled from /proc every 10 ms). The goal is constant memory whatever the row count. Prints
 * figures; asserts nothing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const repoRoot = join(__dirname, '..');
const sizes = [10_000, 100_000, 1_000_000];

interface Figures {
  firstRowMs: number;
  totalMs: number;
  rows: number;
  peakRssMb: number;
}

/** Resident memory of a process and all its descendants, in kB (0 once gone). */
function treeRssKb(pid: number): number {
  let total = 0;
  try {
    total += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const child of children === '' ? [] : children.split(/\s+/)) total += treeRssKb(Number(child));
    }
  } catch {
    // the process ended between two reads
  }
  return total;
}

function measure(command: string, args: string[]): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let firstRowMs = -1;
    let lines = 0;
    let peakKb = 0;
    const sampler = setInterval(() => (peakKb = Math.max(peakKb, treeRssKb(child.pid ?? 0))), 10);
    child.stdout.on('data', (chunk: Buffer) => {
      if (firstRowMs < 0) firstRowMs = performance.now() - started;
      for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) lines += 1;
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      clearInterval(sampler);
      if (code !== 0) return reject(new Error(`${command} exited ${code}: ${stderr}`));
      resolve({ firstRowMs, totalMs: performance.now() - started, rows: lines - 1, peakRssMb: peakKb / 1024 });
    });
  });
}

function line(label: string, figures: Figures): string {
  const rate = Math.round(figures.rows / (figures.totalMs / 1000)).toLocaleString('en-US');
  return `${label.padEnd(8)} ${figures.rows.toLocaleString('en-US').padStart(10)} rows  first row ${figures.firstRowMs.toFixed(0).padStart(5)} ms  total ${figures.totalMs.toFixed(0).padStart(6)} ms  ${rate.padStart(10)} rows/s  peak RSS ${figures.peakRssMb.toFixed(1).padStart(6)} MB`;
}

async function main(): Promise<void> {
  const cli = join(repoRoot, 'bin', 'dwb.js');
  if (!existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) throw new Error('build first: npx electron-vite build');
  const dir = mkdtempSync(join(tmpdir(), 'dwb-bench-stream-'));
  try {
    const database = join(dir, 'rows.sqlite');
    execFileSync('sqlite3', [
      database,
      `CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, value REAL);
       WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${Math.max(...sizes)})
       INSERT INTO t SELECT i, 'name-' || i, i * 0.5 FROM c;`,
    ]);
    for (const size of sizes) {
      const query = `SELECT * FROM t LIMIT ${size}`;
      console.log(line('dwb', await measure(process.execPath, [cli, 'query', '--format', 'csv', '--max-rows', String(size), '--connection', `sqlite:${database}`, query])));
      console.log(line('sqlite3', await measure('sqlite3', ['-csv', '-header', database, query])));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
