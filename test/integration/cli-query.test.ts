import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { endlessSqliteQuery, fileHash, repoRoot, sqliteFromDqaDump } from '../support/fixtures';
import { useSuiteTempDir, useTempDirs } from '../support/temp';
import { runDwb } from '../support/cli';

const tempDir = useTempDirs();
const suiteDir = useSuiteTempDir();
const cli = (...args: string[]) => runDwb(args, { timeoutMs: 30_000 });


let locating = '';
beforeAll(() => {
  locating = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
});

describe('dwb query on a SQLite file made from a DQA dump', () => {
  it('prints an aligned table and exits 0', async () => {
    const result = await cli('query', '--connection', `sqlite:${locating}`, "SELECT country_name, development FROM country WHERE country_name IN ('SWE', 'DAN') ORDER BY 1");
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').slice(0, 4)).toEqual(['country_name  development', '------------  -----------', 'DAN                   118', 'SWE               107.373']);
  });

  it('prints JSON lines with --json', async () => {
    const result = await cli('query', '--json', '--connection', `sqlite:${locating}`, 'SELECT trade_node, local_value FROM trade_node ORDER BY local_value DESC LIMIT 2');
    expect(result.code).toBe(0);
    const rows = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows).toHaveLength(2);
    expect(Object.keys(rows[0] ?? {})).toEqual(['trade_node', 'local_value']);
    expect(Number(rows[0]?.['local_value'])).toBeGreaterThanOrEqual(Number(rows[1]?.['local_value']));
  });

  it('reports truncation at the row cap on stderr', async () => {
    const result = await cli('query', '--max-rows', '5', '--connection', `sqlite:${locating}`, 'SELECT * FROM flow');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(7);
    expect(result.stderr).toContain('truncated at 5');
  });

  const refused: [string, string][] = [
    ['INSERT', "INSERT INTO country VALUES ('XXX', 'baltic_sea', 1)"],
    ['UPDATE', 'UPDATE trade_node SET local_value = 0'],
    ['DELETE', 'DELETE FROM flow'],
    ['DROP', 'DROP TABLE node_country'],
    ['CREATE', 'CREATE TABLE t (a)'],
    ['ATTACH', "ATTACH DATABASE '/tmp/dwb-attached.sqlite' AS other"],
    ['PRAGMA write', 'PRAGMA user_version = 3'],
    ['PRAGMA writable_schema', 'PRAGMA writable_schema = ON'],
    ['multi-statement', 'SELECT 1; DELETE FROM flow'],
    ['comment trick', "/* read */ UPDATE country SET development = 0 -- just reading"],
  ];
  it.each(refused)('refuses %s with one clear line and a non-zero exit, file unchanged', async (_label, statement) => {
    const path = join(tempDir(), 'target.sqlite');
    copyFileSync(locating, path);
    const before = fileHash(path);
    const result = await cli('query', '--connection', `sqlite:${path}`, statement);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^dwb query: read-only: Refused/);
    expect(fileHash(path)).toBe(before);
  });

  it('fails clearly on a bad path, a bad URI, a syntax error and a timeout', async () => {
    const missing = await cli('query', '--connection', 'sqlite:/no/such/file.sqlite', 'SELECT 1');
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toMatch(/^dwb query: not-found: Cannot open SQLite database \/no\/such\/file.sqlite/);

    const badUri = await cli('query', '--connection', 'oracle://x', 'SELECT 1');
    expect(badUri.code).not.toBe(0);
    expect(badUri.stderr.trim()).toMatch(/^dwb query: invalid-uri: Unsupported connection scheme "oracle:" \(supported: sqlite:PATH, duckdb:PATH, .*\)$/);

    const syntax = await cli('query', '--connection', `sqlite:${locating}`, 'SELEKT 1');
    expect(syntax.code).toBe(1);
    expect(syntax.stderr.trim()).toBe('dwb query: syntax: SQLite: near "SELEKT": syntax error');

    const timeout = await cli('query', '--timeout-ms', '300', '--connection', `sqlite:${locating}`, endlessSqliteQuery);
    expect(timeout.code).toBe(1);
    expect(timeout.stderr.trim()).toBe('dwb query: timeout: Query timed out after 0.3 s');
  });

  it('explains usage mistakes', async () => {
    const noQuery = await cli('query', '--connection', `sqlite:${locating}`);
    expect(noQuery.code).toBe(2);
    expect(noQuery.stderr).toContain('give exactly one query');
    const badFlag = await cli('query', '--rows', '3', '--connection', `sqlite:${locating}`, 'SELECT 1');
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain("Unknown option '--rows'");
    // Issue 17: a row cap above the documented 1,000,000 was accepted.
    const overCap = await cli('query', '--max-rows', '1000001', '--connection', `sqlite:${locating}`, 'SELECT 1');
    expect(overCap.code).toBe(2);
    expect(overCap.stderr.trim()).toBe('dwb query: invalid-request: --max-rows is at most 1,000,000, got 1000001');
    const atCap = await cli('query', '--max-rows', '1000000', '--connection', `sqlite:${locating}`, 'SELECT 1 AS one');
    expect(atCap.code).toBe(0);
    const overTimeout = await cli('query', '--timeout-ms', String(24 * 3600_000 + 1), '--connection', `sqlite:${locating}`, 'SELECT 1');
    expect(overTimeout.code).toBe(2);
    expect(overTimeout.stderr).toContain('--timeout-ms is at most 86,400,000');
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });
});

// Issue 17: a `csv:` query killed mid-way left the copy of the data in the temp folder.
describe('dwb query on a csv: file, stopped mid-query', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('cancels on %s, exits non-zero and leaves no copy of the data behind', async (signal) => {
    const privateTmp = mkdtempSync(join(tmpdir(), 'dwb-cli-csv-'));
    const copies = (): string[] => readdirSync(privateTmp).filter((name) => name.startsWith('dwb-duckdb-'));
    const csv = join(tempDir(), 'values.csv');
    writeFileSync(csv, 'x\n1\n2\n3\n');
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'dwb.js'), 'query', '--connection', `csv:${csv}`, 'SELECT count(*) FROM range(100000000000) AS a, values'], {
      env: { ...process.env, TMPDIR: privateTmp },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while (copies().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(copies()).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the query is running
    child.kill(signal);
    const code = await exited;
    expect(code).not.toBe(0);
    // Under load the signal can land before DuckDB has started the statement; either way it is a cancel.
    expect(stderr.trim()).toMatch(/^dwb query: cancelled: DuckDB: query cancelled( before it started)?$/);
    expect(copies()).toEqual([]);
    rmSync(privateTmp, { recursive: true, force: true });
  }, 60_000);
});

describe('dwb query streams CSV, TSV and JSON lines', () => {
  const tricky = `SELECT 1 AS id, 'plain' AS text UNION ALL SELECT 2, 'a,b "quoted"' UNION ALL SELECT 3, 'two
lines' UNION ALL SELECT 4, NULL UNION ALL SELECT 5, 'tab	inside' ORDER BY 1`;

  it('--format csv quotes what needs quoting (RFC 4180), nulls are empty', async () => {
    const result = await cli('query', '--format', 'csv', '--connection', `sqlite:${locating}`, tricky);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('id,text\n1,plain\n2,"a,b ""quoted"""\n3,"two\nlines"\n4,\n5,tab\tinside\n');
    expect(result.stderr.trim()).toBe('(5 rows)');
  });

  it('--format tsv and --format jsonl (= --json)', async () => {
    const tsv = await cli('query', '--format', 'tsv', '--connection', `sqlite:${locating}`, 'SELECT 1 AS id, NULL AS empty, 2.5 AS x');
    expect(tsv.stdout).toBe('id\tempty\tx\n1\t\t2.5\n');
    const jsonl = await cli('query', '--format', 'jsonl', '--connection', `sqlite:${locating}`, tricky);
    const json = await cli('query', '--json', '--connection', `sqlite:${locating}`, tricky);
    expect(jsonl.stdout).toBe(json.stdout);
    expect(jsonl.stdout.trim().split('\n').map((line) => JSON.parse(line) as unknown)[3]).toEqual({ id: 4, text: null });
  });

  it('an empty result still gets its header line', async () => {
    const result = await cli('query', '--format', 'csv', '--connection', `sqlite:${locating}`, 'SELECT country_name, development FROM country WHERE 0');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('country_name,development\n');
    expect(result.stderr.trim()).toBe('(0 rows)');
  });

  it('keeps a line for every row, one of a single null cell included', async () => {
    // papaparse's joined text dropped a last line that was empty: two rows came out as one.
    for (const format of ['csv', 'tsv']) {
      const result = await cli('query', '--format', format, '--connection', `sqlite:${locating}`, 'SELECT NULL AS x UNION ALL SELECT NULL');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('x\n\n\n');
      expect(result.stderr.trim()).toBe('(2 rows)');
    }
  });

  it('streams a large result whole, in order, honouring the row cap', async () => {
    const query = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 250000) SELECT i, i * 2 AS twice FROM c';
    const all = await runDwb(['query', '--format', 'csv', '--max-rows', '1000000', '--connection', `sqlite:${locating}`, query], { timeoutMs: 60_000, maxBuffer: 64 * 1024 * 1024 });
    expect(all.code).toBe(0);
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(250_001);
    expect(lines[1]).toBe('1,2');
    expect(lines[250_000]).toBe('250000,500000');
    expect(lines.every((line, index) => index === 0 || line === `${index},${index * 2}`)).toBe(true);
    const capped = await runDwb(['query', '--format', 'tsv', '--max-rows', '4500', '--connection', `sqlite:${locating}`, query], { timeoutMs: 60_000 });
    expect(capped.stdout.trimEnd().split('\n')).toHaveLength(4501);
    expect(capped.stderr.trim()).toBe('(4500 rows, truncated at 4500)');
  });

  it('a reader that stops early (| head) ends the query quietly with exit 0', async () => {
    const query = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 900000) SELECT i FROM c';
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'dwb.js'), 'query', '--format', 'csv', '--max-rows', '1000000', '--connection', `sqlite:${locating}`, query], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const first = await new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    expect(first.startsWith('i\n1\n2\n')).toBe(true);
    child.stdout.destroy();
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  }, 60_000);

  it('refuses an unknown format and --json with another format', async () => {
    const unknown = await cli('query', '--format', 'xml', '--connection', `sqlite:${locating}`, 'SELECT 1');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe('dwb query: invalid-request: --format is one of csv, tsv, jsonl, table, got "xml"');
    const both = await cli('query', '--format', 'csv', '--json', '--connection', `sqlite:${locating}`, 'SELECT 1');
    expect(both.code).toBe(2);
    expect(both.stderr.trim()).toBe('dwb query: invalid-request: --json is --format jsonl; it cannot go with --format csv');
  });
});
