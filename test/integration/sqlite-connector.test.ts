import { copyFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../src-main/contract/errors';
import type { Connector } from '../../src-main/connectors/connector';
import { openSqliteConnector } from '../../src-main/connectors/sqlite/sqlite-connector';
import { openConnector } from '../../src-main/connectors/open-connector';
import { endlessSqliteQuery, fileHash, tinySqlite } from '../support/fixtures';
import { useTempDirs } from '../support/temp';

const tempDir = useTempDirs();
const open: Connector[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connector) => connector.close()));
});

function connect(path: string): Connector {
  const connector = openSqliteConnector({ path });
  open.push(connector);
  return connector;
}

const limits = { maxRows: 100, timeoutMs: 10_000 };

async function failure(promise: Promise<unknown>): Promise<WorkbenchError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WorkbenchError);
  return error as WorkbenchError;
}

describe('SQLite connector', () => {
  it('reads rows with declared column types, named parameters and exact values', async () => {
    const connector = connect(tinySqlite(tempDir()));
    const result = await connector.query('SELECT id, revenue, note FROM store WHERE region_id = :region ORDER BY id', {
      ...limits,
      params: { region: 2 },
    });
    expect(result.columns).toEqual([
      { name: 'id', type: 'INTEGER' },
      { name: 'revenue', type: 'REAL' },
      { name: 'note', type: 'TEXT' },
    ]);
    expect(result.rows).toEqual([
      [3, 7.25, 'c'],
      [4, 1000, 'd'],
    ]);
    expect(result.truncated).toBe(false);
  });

  it('keeps integers beyond 2^53 exact as strings', async () => {
    const connector = connect(tinySqlite(tempDir()));
    const result = await connector.query('SELECT 9007199254740993 AS big, 42 AS small', limits);
    expect(result.rows).toEqual([['9007199254740993', 42]]);
  });

  it('gives infinities by name and blobs as their bytes in hex, a blob past 64 KB by its size', async () => {
    const connector = connect(tinySqlite(tempDir()));
    const result = await connector.query("SELECT 1e300 * 1e10 AS up, -1e300 * 1e10 AS down, X'00ff10' AS bytes, zeroblob(0) AS none, zeroblob(70000) AS big", limits);
    expect(result.rows).toEqual([['Infinity', '-Infinity', '0x00ff10', '0x', '(binary, 70,000 bytes: more than 64 KB is not shown; select length() or substr() of it)']]);
    // What the notebook receives goes through JSON: nothing turns into null on the way.
    expect(JSON.parse(JSON.stringify(result.rows))).toEqual(result.rows);
  });

  it('stops at the row cap and says the result was truncated', async () => {
    const connector = connect(tinySqlite(tempDir()));
    const result = await connector.query('SELECT id FROM store ORDER BY id', { ...limits, maxRows: 3 });
    expect(result.rows).toEqual([[1], [2], [3]]);
    expect(result.rowCount).toBe(3);
    expect(result.truncated).toBe(true);
    const exact = await connector.query('SELECT id FROM store', { ...limits, maxRows: 4 });
    expect(exact.truncated).toBe(false);
  });

  it('describes tables and views with columns, keys, references and row counts', async () => {
    const schema = await connect(tinySqlite(tempDir())).schema();
    expect(schema.kind).toBe('relational');
    if (schema.kind !== 'relational') return;
    expect(schema.tables.map((table) => [table.name, table.kind, table.rowCount])).toEqual([
      ['region', 'table', 2],
      ['revenue_by_region', 'view', 2],
      ['store', 'table', 4],
    ]);
    const store = schema.tables.find((table) => table.name === 'store');
    expect(store?.columns.find((column) => column.name === 'id')).toMatchObject({ primaryKey: 1, type: 'INTEGER' });
    expect(store?.columns.find((column) => column.name === 'region_id')).toMatchObject({ references: 'region.id', primaryKey: 0 });
  });

  it('reports syntax errors with SQLite’s own message', async () => {
    const error = await failure(connect(tinySqlite(tempDir())).query('SELEC id FROM store', limits));
    expect(error.code).toBe('syntax');
    expect(error.message).toContain('near "SELEC"');
  });

  it('reports a missing table or column as an unknown object, not a syntax error, naming it', async () => {
    const error = await failure(connect(tinySqlite(tempDir())).query('SELECT * FROM nowhere', limits));
    expect(error.code).toBe('unknown-object');
    expect(error.message).toContain('no such table: nowhere');
    const column = await failure(connect(tinySqlite(tempDir())).query('SELECT nope FROM store', limits));
    expect(column.code).toBe('unknown-object');
    expect(column.message).toContain('no such column: nope');
  });

  it('suggests the closest names of an unknown table or column, through openConnector', async () => {
    const connector = await openConnector({ engine: 'sqlite', path: tinySqlite(tempDir()) });
    try {
      const table = await failure(connector.query('SELECT * FROM stores', limits));
      expect(table.code).toBe('unknown-object');
      expect(table.message).toBe('SQLite: no such table: stores — did you mean "store"?');
      const column = await failure(connector.query('SELECT regoin_id FROM store', limits));
      expect(column.message).toBe('SQLite: no such column: regoin_id — did you mean "region_id"?');
      const far = await failure(connector.query('SELECT * FROM quarterly_forecasts', limits));
      expect(far.message).toBe('SQLite: no such table: quarterly_forecasts — no table named quarterly_forecasts in this database');
    } finally {
      await connector.close();
    }
  });

  it('fails clearly on a missing file and on a file that is not a database', async () => {
    const dir = tempDir();
    const missing = await failure(connect(join(dir, 'absent.sqlite')).query('SELECT 1', limits));
    expect(missing.code).toBe('not-found');
    expect(missing.message).toContain('absent.sqlite');
    const junk = join(dir, 'junk.sqlite');
    writeFileSync(junk, 'this is not a database, just text that is long enough to have a header'.repeat(20));
    const notDatabase = await failure(connect(junk).query('SELECT 1', limits));
    expect(notDatabase.code).toBe('invalid-request');
    expect(notDatabase.message).toBe(`${junk} is not a SQLite database file; it looks like a text file: a CSV file can be added as CSV`);
  });

  it('times out a runaway query and answers the next one on a fresh worker', async () => {
    const connector = connect(tinySqlite(tempDir()));
    const started = Date.now();
    const error = await failure(connector.query(endlessSqliteQuery, { ...limits, timeoutMs: 400 }));
    expect(error.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5000);
    const next = await connector.query('SELECT count(*) AS n FROM store', limits);
    expect(next.rows).toEqual([[4]]);
  });

  it('cancels a running query through its AbortSignal', async () => {
    const connector = connect(tinySqlite(tempDir()));
    await connector.query('SELECT 1', limits); // worker warm, so the abort lands mid-query
    const controller = new AbortController();
    const running = connector.query(endlessSqliteQuery, { ...limits, signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const error = await failure(running);
    expect(error.code).toBe('cancelled');
    expect((await connector.query('SELECT 2 AS two', limits)).rows).toEqual([[2]]);
  });

  it('runs queries one after another in order', async () => {
    const connector = connect(tinySqlite(tempDir()));
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => connector.query(`SELECT ${n} AS n`, limits)));
    expect(results.map((result) => result.rows[0]?.[0])).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('SQLite read-only enforcement', () => {
  const writes: [string, string][] = [
    ['INSERT', "INSERT INTO region VALUES (3, 'east')"],
    ['INSERT … RETURNING', "INSERT INTO region VALUES (3, 'east') RETURNING *"],
    ['UPDATE', 'UPDATE store SET revenue = 0'],
    ['DELETE', 'DELETE FROM store'],
    ['DROP TABLE', 'DROP TABLE store'],
    ['DROP VIEW', 'DROP VIEW revenue_by_region'],
    ['CREATE TABLE', 'CREATE TABLE x (a)'],
    ['CREATE TEMP TABLE', 'CREATE TEMP TABLE x (a)'],
    ['CREATE INDEX', 'CREATE INDEX i ON store(revenue)'],
    ['ALTER TABLE', 'ALTER TABLE store ADD COLUMN extra TEXT'],
    ['REPLACE', "REPLACE INTO region VALUES (1, 'renamed')"],
    ['ATTACH', "ATTACH DATABASE ':memory:' AS scratch"],
    ['DETACH', 'DETACH DATABASE main'],
    ['PRAGMA write', 'PRAGMA user_version = 7'],
    ['PRAGMA query_only off', 'PRAGMA query_only = OFF'],
    ['PRAGMA journal_mode', 'PRAGMA journal_mode = DELETE'],
    ['VACUUM', 'VACUUM'],
    ['VACUUM INTO', "VACUUM INTO '/tmp/dwb-should-not-exist.sqlite'"],
    ['REINDEX', 'REINDEX'],
    ['ANALYZE', 'ANALYZE'],
    ['BEGIN', 'BEGIN IMMEDIATE'],
    ['load_extension', "SELECT load_extension('/tmp/nothing')"],
    ['multi-statement', 'SELECT 1; DELETE FROM store'],
    ['multi-statement after comment', 'SELECT 1 /* ; */; DROP TABLE store'],
    ['comment-hidden write', '/* SELECT */ DELETE FROM store'],
    ['line-comment write', '-- SELECT\nDELETE FROM store'],
    ['CTE-wrapped write', 'WITH doomed AS (SELECT id FROM store) DELETE FROM store WHERE id IN (SELECT id FROM doomed)'],
  ];

  it.each(writes)('refuses %s and leaves the file byte-identical', async (_label, statement) => {
    const path = tinySqlite(tempDir());
    const before = fileHash(path);
    const connector = connect(path);
    const error = await failure(connector.query(statement, limits));
    expect(['read-only', 'query-failed']).toContain(error.code);
    expect(error.message.length).toBeGreaterThan(10);
    const count = await connector.query('SELECT (SELECT count(*) FROM store) + (SELECT count(*) FROM region) AS n', limits);
    expect(count.rows).toEqual([[6]]);
    await connector.close();
    expect(fileHash(path)).toBe(before);
  });

  it('leaves the file untouched after every refused write in a row on one connection', async () => {
    const dir = tempDir();
    const original = tinySqlite(dir);
    const path = join(dir, 'copy.sqlite');
    copyFileSync(original, path);
    const connector = connect(path);
    for (const [, statement] of writes) await connector.query(statement, limits).catch(() => undefined);
    await connector.close();
    expect(fileHash(path)).toBe(fileHash(original));
  });

  // Issue 17: SQLite carries out `PRAGMA locking_mode=EXCLUSIVE` while compiling it and calls
  // it a read-only statement that returns rows; the handle then kept its lock after the next
  // SELECT and no other program could write the file until the app stopped.
  it.each([
    ['PRAGMA locking_mode=EXCLUSIVE', 'read-only'],
    ['pragma main.locking_mode = exclusive', 'read-only'],
    ['/* read */ PRAGMA locking_mode=EXCLUSIVE', 'read-only'],
    // SQLite ends a -- comment at \n only: to it this whole text is a comment, an empty query.
    ['-- read\rPRAGMA locking_mode=EXCLUSIVE', 'syntax'],
    ['EXPLAIN PRAGMA locking_mode=EXCLUSIVE', 'read-only'],
    ['EXPLAIN QUERY PLAN PRAGMA locking_mode=EXCLUSIVE', 'read-only'],
    ['\u180EPRAGMA locking_mode=EXCLUSIVE', 'read-only'],
  ])('refuses %j (%s) and another process can still write the file after the next SELECT', async (statement, code) => {
    const path = tinySqlite(tempDir());
    const connector = connect(path);
    const error = await failure(connector.query(statement, limits));
    expect(error.code).toBe(code);
    expect((await connector.query('SELECT count(*) FROM store', limits)).rows).toEqual([[4]]);
    const writer = new Database(path, { timeout: 0 });
    try {
      writer.prepare("INSERT INTO region VALUES (3, 'east')").run();
      expect(writer.prepare('SELECT count(*) AS n FROM region').get()).toEqual({ n: 3 });
    } finally {
      writer.close();
    }
    expect((await connector.query('SELECT count(*) FROM region', limits)).rows).toEqual([[3]]);
  });

  it('says a query of only comments is empty, and a mark where the keyword belongs is a mistake, not a refused write', async () => {
    const connector = connect(tinySqlite(tempDir()));
    for (const [text, message] of [
      ['-- a comment\n/* and another */', 'The query is empty: it holds only comments'],
      ['(SELECT 1)', 'SQLite: a query starts with SELECT, WITH or VALUES, not "("'],
      [';', 'SQLite: a query starts with SELECT, WITH or VALUES, not ";"'],
    ] as const) {
      const error = await failure(connector.query(text, limits));
      expect([error.code, error.message]).toEqual(['syntax', message]);
    }
    // An invisible character before a keyword is still refused as a possible disguise.
    expect((await failure(connector.query('\u200BSELECT 1', limits))).code).toBe('read-only');
  });

  it('still reads pragma values through the table-valued pragma functions', async () => {
    const connector = connect(tinySqlite(tempDir()));
    const result = await connector.query("SELECT name FROM pragma_table_info('region') ORDER BY cid", limits);
    expect(result.rows).toEqual([['id'], ['name']]);
    expect((await connector.query('EXPLAIN QUERY PLAN SELECT * FROM store', limits)).rowCount).toBeGreaterThan(0);
  });
});
