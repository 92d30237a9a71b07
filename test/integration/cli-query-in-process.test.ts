import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runQueryCommand } from '../../src-main/cli/query-command';
import { endlessSqliteQuery, repoRoot } from '../support/fixtures';
import { runDwb } from '../support/cli';
import { useSuiteTempDir } from '../support/temp';
import { until } from '../support/until';

/**
 * Issue 29: `dwb query --format csv|tsv|jsonl` on a SQLite file reads the rows in its own
 * process and writes each row's line straight to stdout. The same command given an output
 * without a descriptor (`io.write` only) still goes through the SQLite worker and the batch
 * writer, as before; both must print the same bytes.
 */
const suiteDir = useSuiteTempDir();
let path = '';

beforeAll(() => {
  path = join(suiteDir(), 'tricky.sqlite');
  const database = new Database(path);
  database.exec(`CREATE TABLE t(id INTEGER, label TEXT, amount REAL, data BLOB);
    INSERT INTO t VALUES
      (1, 'plain', 0.5, NULL),
      (2, 'quote " comma , tab \t', -0.0, x'00ff10'),
      (3, 'new
line and CR ' || char(13) || ' end', 1e308 * 10, x''),
      (9007199254740993, '€ é 😀 ' || char(8232) || char(65279), -1e308 * 10, NULL),
      (-9223372036854775808, '', 1e-300, NULL),
      (NULL, ' leading and trailing ', NULL, NULL),
      (NULL, NULL, NULL, NULL);`);
  database.close();
});

/** `dwb query` run in this process with an output that has no descriptor: the worker path. */
async function throughWorker(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (line: string) => (stdout += `${line}\n`),
    stderr: (line: string) => (stderr += `${line}\n`),
    write: async (text: string) => {
      stdout += text;
    },
  };
  const code = await runQueryCommand(args, io);
  return { code, stdout, stderr };
}

describe('dwb query reading SQLite in its own process', () => {
  const queries = [
    'SELECT * FROM t',
    // Repeated and integer-like names: a JSON line keeps a JavaScript object's key order and last value.
    'SELECT id AS "b", label AS "2", amount AS "b", data AS "__proto__" FROM t',
    'SELECT * FROM t WHERE 0',
    'SELECT NULL AS x UNION ALL SELECT NULL',
    // A cell larger than the output buffer (about 400 KB of UTF-8), between rows that fit.
    "SELECT 1 AS n, 'a' AS s UNION ALL SELECT 2, replace(hex(zeroblob(40000)), '0', 'é€') UNION ALL SELECT 3, 'b'",
  ];
  it.each(['csv', 'tsv', 'jsonl'])('prints the bytes the worker path prints (%s)', async (format) => {
    for (const query of queries) {
      const args = ['query', '--format', format, '--connection', `sqlite:${path}`, query];
      const direct = await runDwb(args);
      const worker = await throughWorker(args.slice(1));
      expect(direct.code, direct.stderr).toBe(0);
      expect(worker.code).toBe(0);
      expect(direct.stdout).toBe(worker.stdout);
      expect(direct.stderr).toBe(worker.stderr);
    }
  });

  it('spells out the tricky values', async () => {
    const jsonl = await runDwb(['query', '--format', 'jsonl', '--connection', `sqlite:${path}`, 'SELECT * FROM t']);
    const lines = jsonl.stdout.split('\n');
    expect(lines[1]).toBe('{"id":2,"label":"quote \\" comma , tab \\t","amount":0,"data":"0x00ff10"}');
    expect(lines[3]).toBe('{"id":"9007199254740993","label":"€ é 😀 \u2028\uFEFF","amount":"-Infinity","data":null}');
    expect(lines[6]).toBe('{"id":null,"label":null,"amount":null,"data":null}');
    const csv = await runDwb(['query', '--format', 'csv', '--connection', `sqlite:${path}`, 'SELECT * FROM t']);
    // The last row is all nulls: still its own line.
    expect(csv.stdout.endsWith('\n," leading and trailing ",,\n,,,\n')).toBe(true);
    expect(csv.stdout).toContain('\n3,"new\nline and CR \r end",Infinity,0x\n');
  });

  it('runs no worker process while rows stream, and a slow reader holds the query', async () => {
    const query = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 900000) SELECT i FROM c';
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'dwb.js'), 'query', '--format', 'csv', '--max-rows', '1000000', '--connection', `sqlite:${path}`, query], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise((resolve) => child.stdout.once('data', resolve));
    // Not read from here on: the pipe fills and the writer waits on it.
    child.stdout.pause();
    const pid = child.pid as number;
    const children = readdirChildren(pid);
    expect(children).toEqual([]);
    child.stdout.resume();
    child.stdout.on('data', () => undefined);
    expect(await exited).toBe(0);
  }, 60_000);

  it('ends at once on Ctrl-C, even inside a long SQLite step', async () => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'dwb.js'), 'query', '--format', 'csv', '--timeout-ms', '600000', '--connection', `sqlite:${path}`, endlessSqliteQuery], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    // Started once the process holds the database file open.
    await until(() => (openFiles(child.pid as number).includes(path) ? true : undefined));
    child.kill('SIGINT');
    expect(await exited).toBe('SIGINT');
  }, 60_000);

  it('stops a query at its time limit with the usual line: between batches with exit 1, inside one step by the watchdog', async () => {
    const streaming = await runDwb(['query', '--format', 'csv', '--timeout-ms', '100', '--max-rows', '1000000', '--connection', `sqlite:${path}`, 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(streaming.code).toBe(1);
    expect(streaming.stdout.startsWith('x\n1\n2\n')).toBe(true);
    expect(streaming.stderr.trim()).toBe('dwb query: timeout: Query timed out after 0.1 s');
    const stuck = await runDwb(['query', '--format', 'jsonl', '--timeout-ms', '300', '--connection', `sqlite:${path}`, endlessSqliteQuery]);
    expect(stuck.code).not.toBe(0);
    expect(stuck.stdout).toBe('');
    expect(stuck.stderr.trim()).toBe('dwb query: timeout: Query timed out after 0.3 s');
  }, 60_000);
});

/** The child processes of `pid`, started by any of its threads. */
function readdirChildren(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) => {
    const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    return children === '' ? [] : children.split(/\s+/);
  });
}

/** The files `pid` has open, by path. */
function openFiles(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '';
      }
    });
  } catch {
    return [];
  }
}
