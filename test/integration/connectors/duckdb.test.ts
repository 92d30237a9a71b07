import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Connector } from '../../../src-main/connectors/connector';
import { openDuckdbConnector } from '../../../src-main/connectors/duckdb';
import { openConnector } from '../../../src-main/connectors/open-connector';
import { toWorkbenchError } from '../../../src-main/connectors/duckdb/errors';
import { openReadOnlyDatabase } from '../../../src-main/connectors/duckdb/open-database';
import { WorkbenchError } from '../../../src-main/contract/errors';
import { digestDirectory, runConnectorContract, type WriteAttempt } from './contract';
import { relationalFixtureSql, tradeNodes } from './fixture-data';

// The database lives alone in its directory so a digest of the directory catches any write.
const root = mkdtempSync(join(tmpdir(), 'dwb-contract-duckdb-'));
const databaseDir = join(root, 'database');
const databasePath = join(databaseDir, 'trades.duckdb');
const scratch = join(root, 'scratch');
const outFile = join(scratch, 'out.csv');
const exportDir = join(scratch, 'export');
const otherDatabase = join(scratch, 'other.duckdb');

const writeAttempts: WriteAttempt[] = [
  { name: 'INSERT', text: "INSERT INTO nodes VALUES (99, 'Evil', 'x')" },
  { name: 'UPDATE', text: "UPDATE nodes SET name = 'Evil'" },
  { name: 'DELETE', text: 'DELETE FROM trades' },
  { name: 'DROP TABLE', text: 'DROP TABLE trades' },
  { name: 'CREATE TABLE', text: 'CREATE TABLE evil (id INTEGER)' },
  { name: 'CREATE TEMP TABLE', text: 'CREATE TEMP TABLE evil AS SELECT 1' },
  { name: 'CREATE VIEW', text: 'CREATE VIEW evil AS SELECT 1' },
  { name: 'CREATE MACRO', text: 'CREATE MACRO evil(x) AS x + 1' },
  { name: 'ALTER TABLE', text: 'ALTER TABLE nodes ADD COLUMN evil INTEGER' },
  { name: 'TRUNCATE', text: 'TRUNCATE trades' },
  { name: 'MERGE INTO', text: "MERGE INTO nodes USING (SELECT 1 AS id) AS s ON nodes.id = s.id WHEN MATCHED THEN UPDATE SET name = 'Evil'", codes: ['read-only', 'syntax'] },
  { name: 'INSERT OR REPLACE', text: "INSERT OR REPLACE INTO nodes VALUES (1, 'Evil', 'x')" },
  { name: 'CREATE INDEX', text: 'CREATE INDEX evil_idx ON nodes (name)' },
  { name: 'COPY … TO a file', text: `COPY nodes TO '${outFile}'` },
  { name: 'COPY … TO the database file itself', text: `COPY (SELECT 42) TO '${databasePath}' (USE_TMP_FILE false)` },
  { name: 'COPY … TO the database WAL', text: `COPY (SELECT 42) TO '${databasePath}.wal' (USE_TMP_FILE false)` },
  { name: 'EXPLAIN ANALYZE COPY … TO the database file', text: `EXPLAIN ANALYZE COPY (SELECT 42) TO '${databasePath}' (USE_TMP_FILE false)` },
  // Issue 17 reproducers: a text-level reading of comments differed from DuckDB's (nested block
  // comments, a `--` comment ended by a carriage return) and let EXPLAIN ANALYZE COPY through.
  {
    name: 'EXPLAIN ANALYZE COPY hidden by a nested block comment and a dollar string',
    text: `/* /* */ EXPLAIN ANALYZE SELECT $$*/ EXPLAIN ANALYZE COPY (SELECT 42 AS x) TO '${databasePath}' (USE_TMP_FILE false) -- $$`,
  },
  {
    name: 'EXPLAIN ANALYZE COPY after a -- comment ended by a carriage return',
    text: `-- a\rEXPLAIN ANALYZE COPY (SELECT 42 AS x) TO '${databasePath}' (USE_TMP_FILE false) /* \nEXPLAIN ANALYZE SELECT 1 -- */`,
  },
  { name: 'EXPLAIN with a comment before ANALYZE COPY', text: `EXPLAIN /* x */ ANALYZE COPY (SELECT 42) TO '${databasePath}' (USE_TMP_FILE false)` },
  { name: 'COPY … FROM a file', text: "COPY nodes FROM '/etc/hostname'" },
  { name: 'EXPORT DATABASE', text: `EXPORT DATABASE '${exportDir}'` },
  { name: 'ATTACH', text: `ATTACH '${otherDatabase}' AS other` },
  { name: 'DETACH', text: 'DETACH trades' },
  { name: 'INSTALL extension', text: 'INSTALL httpfs' },
  { name: 'LOAD extension', text: 'LOAD httpfs' },
  { name: 'SET enable_external_access', text: 'SET enable_external_access = true' },
  { name: 'PRAGMA (profiling output to a file)', text: `PRAGMA profiling_output = '${outFile}'` },
  { name: 'read of a file outside the database', text: "SELECT * FROM read_csv('/etc/hostname')" },
  { name: 'SELECT nextval()', text: "SELECT nextval('trade_seq')" },
  { name: 'multi-statement', text: 'SELECT 1; DROP TABLE trades' },
  { name: 'block comment then DROP', text: '/* harmless */ DROP TABLE trades' },
  { name: 'line comment then DELETE', text: '-- just a comment\nDELETE FROM trades' },
  { name: 'CHECKPOINT', text: 'CHECKPOINT' },
  { name: 'CALL of a table function', text: 'CALL checkpoint()' },
  { name: 'VACUUM', text: 'VACUUM' },
  { name: 'query() of a DELETE', text: "SELECT * FROM query('DELETE FROM trades')", codes: ['read-only', 'syntax', 'query-failed'] },
];

async function createFixtureDatabase(): Promise<void> {
  mkdirSync(databaseDir, { recursive: true });
  mkdirSync(scratch, { recursive: true });
  const writer = await DuckDBInstance.create(databasePath);
  const connection = await writer.connect();
  for (const sql of relationalFixtureSql({ decimal: 'DECIMAL(10,2)', date: 'DATE', text: 'VARCHAR' })) await connection.run(sql);
  await connection.run('CREATE SEQUENCE trade_seq');
  await connection.run(`COPY nodes TO '${join(root, 'nodes.csv')}' (HEADER)`);
  await connection.run(`COPY nodes TO '${join(root, 'nodes.parquet')}' (FORMAT parquet)`);
  await connection.run('CHECKPOINT');
  connection.closeSync();
  writer.closeSync();
}

runConnectorContract('DuckDB connector (database file)', {
  unavailable: null,
  writeAttempts,
  forbiddenPaths: [outFile, exportDir, otherDatabase],
  async setup() {
    await createFixtureDatabase();
    const connector = await openDuckdbConnector({ path: databasePath });
    return {
      connector,
      selectNodes: 'SELECT id, name, region FROM nodes ORDER BY id',
      nodesInRegion: 'SELECT name FROM nodes WHERE region = $region ORDER BY id',
      manyRows: 'SELECT * FROM range(100000)',
      slowQuery: 'SELECT count(*) FROM range(100000000000) AS a',
      syntaxError: { text: 'SELEC id FROM nodes', messageIncludes: 'syntax error at or near "SELEC"' },
      unknownNames: [
        { text: 'SELECT * FROM trade', messageIncludes: ['trade', 'did you mean "trades"?'] },
        { text: 'SELECT nme FROM nodes', messageIncludes: ['nme', 'did you mean "name"?'] },
      ],
      fingerprint: async () => digestDirectory(databaseDir),
      dispose: () => connector.close(),
    };
  },
});

describe.each([
  { format: 'CSV', options: () => ({ csv: join(root, 'nodes.csv') }) },
  { format: 'Parquet', options: () => ({ parquet: join(root, 'nodes.parquet') }) },
])('DuckDB connector ($format file as a table)', ({ options }) => {
  let connector: Connector;
  let before: string;
  const source = (): string => Object.values(options())[0] ?? '';

  beforeAll(async () => {
    if (!existsSync(source())) await createFixtureDatabase();
    connector = await openDuckdbConnector(options());
    before = digestDirectory(root);
  }, 60_000);

  afterAll(async () => {
    await connector?.close();
  });

  it('exposes the file as a table named after it, with its row count', async () => {
    const schema = await connector.schema();
    expect(schema.kind === 'relational' ? schema.tables.map((table) => [table.name, table.rowCount]) : []).toEqual([['nodes', tradeNodes.length]]);
    const result = await connector.query('SELECT id, name, region FROM nodes ORDER BY id', { maxRows: 100, timeoutMs: 5000 });
    expect(result.rows).toEqual(tradeNodes.map((node) => [node.id, node.name, node.region]));
  });

  it.each([
    `COPY (SELECT 42 AS id) TO '${join(root, 'nodes.csv')}' (USE_TMP_FILE false)`,
    `COPY (SELECT 42 AS id) TO '${join(root, 'nodes.parquet')}' (FORMAT parquet, USE_TMP_FILE false)`,
    `EXPLAIN ANALYZE COPY (SELECT 42 AS id) TO '${join(root, 'nodes.csv')}' (USE_TMP_FILE false)`,
    "INSERT INTO nodes VALUES (99, 'Evil', 'x')",
    'DROP TABLE nodes',
    `ATTACH '${otherDatabase}'`,
    "SELECT * FROM read_csv('/etc/hostname')",
  ])('refuses %s and leaves the source file untouched', async (sql) => {
    const error = await connector.query(sql, { maxRows: 10, timeoutMs: 5000 }).then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkbenchError);
    expect((error as WorkbenchError).code).toBe('read-only');
    expect(digestDirectory(root)).toBe(before);
  });
});

describe('DuckDB engine layers on their own', () => {
  it.each([
    "INSERT INTO nodes VALUES (98, 'x', 'y')",
    'DROP TABLE trades',
    'CREATE TABLE evil (id INTEGER)',
    "SELECT nextval('trade_seq')",
    `COPY nodes TO '${outFile}'`,
    `ATTACH '${otherDatabase}'`,
    'INSTALL httpfs',
    'SET enable_external_access = true',
  ])('the read-only, locked-down instance refuses %s without the statement check', async (sql) => {
    if (!existsSync(databasePath)) await createFixtureDatabase();
    const database = await openReadOnlyDatabase(databasePath);
    const connection = await database.instance.connect();
    try {
      const error = await connection.run(sql).then(() => null, toWorkbenchError);
      expect(error?.code).toBe('read-only');
    } finally {
      connection.closeSync();
      database.instance.closeSync();
    }
  });

  it('returns JSON-safe cells for awkward types', async () => {
    writeFileSync(join(scratch, 'empty.csv'), 'x\n1\n');
    const connector = await openDuckdbConnector({ csv: join(scratch, 'empty.csv') });
    try {
      const result = await connector.query(
        "SELECT 9007199254740993::BIGINT AS big, 42::BIGINT AS small, 1.50::DECIMAL(10,2) AS price, TIMESTAMPTZ '2024-01-02 03:04:05+00' AS at, " +
          "DATE '2024-01-02' AS day, '\\x01'::BLOB AS bytes, [1, 2] AS list, {'k': 1} AS struct, NULL AS nothing",
        { maxRows: 10, timeoutMs: 5000 },
      );
      expect(result.rows[0]).toEqual(['9007199254740993', 42, 1.5, '2024-01-02T03:04:05+00:00', '2024-01-02', '0x01', '[1,2]', '{"k":1}', null]);
      // A backslash byte, printable bytes and blobs inside a list: every byte in hex, as the other engines give binary.
      const blobs = await connector.query("SELECT '\\x00\\xFFab\\x5C'::BLOB AS bytes, ['a'::BLOB, ''::BLOB] AS list", { maxRows: 10, timeoutMs: 5000 });
      expect(blobs.rows[0]).toEqual(['0x00ff61625c', '["0x61","0x"]']);
    } finally {
      await connector.close();
    }
  });

  it('reports a missing file as not-found', async () => {
    await expect(openDuckdbConnector({ path: join(scratch, 'missing.duckdb') })).rejects.toMatchObject({ code: 'not-found' });
  });
});

// Scratch files of this file's run; nothing in them is needed afterwards.
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Issue 17: a `csv:` query killed mid-way left the copy of the analyst's data in the temp folder.
describe('DuckDB copy of a CSV file', () => {
  it('does not outlive a process killed mid-query: the next open removes it', async () => {
    if (!existsSync(join(root, 'nodes.csv'))) await createFixtureDatabase();
    const privateTmp = mkdtempSync(join(tmpdir(), 'dwb-csv-kill-'));
    const copies = (): string[] => readdirSync(privateTmp).filter((name) => name.startsWith('dwb-duckdb-'));
    const script = join(privateTmp, 'slow-query.mts');
    writeFileSync(
      script,
      `import { openDuckdbConnector } from ${JSON.stringify(join(__dirname, '../../../src-main/connectors/duckdb/index.ts'))};
       const connector = await openDuckdbConnector({ csv: ${JSON.stringify(join(root, 'nodes.csv'))} });
       process.stdout.write('open\\n');
       await connector.query('SELECT count(*) FROM range(100000000000) AS a, nodes', { maxRows: 1, timeoutMs: 600_000 });`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, TMPDIR: privateTmp }, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('open') ? resolve() : undefined));
      child.once('exit', () => reject(new Error('the query process ended before opening the file')));
    });
    expect(copies()).toHaveLength(1);
    child.kill('SIGKILL');
    await exited;
    expect(copies()).toHaveLength(1); // nothing in a killed process can clean up

    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
    try {
      const connector = await openDuckdbConnector({ csv: join(root, 'nodes.csv') });
      expect(copies()).toHaveLength(1); // only this open's own copy
      await connector.close();
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    }
    expect(copies()).toEqual([]);
    rmSync(privateTmp, { recursive: true, force: true });
  }, 60_000);
});

describe('DuckDB unknown names on a CSV file', () => {
  it('offers the file’s own table, not DuckDB’s system tables, for a mistyped name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dwb-csv-names-'));
    try {
      writeFileSync(join(dir, 'plain.csv'), 'a,b\n1,2\n');
      writeFileSync(join(dir, 'файл 1.csv'), 'a,b\n1,2\n');
      const plain = await openConnector({ engine: 'duckdb', format: 'csv', path: join(dir, 'plain.csv') });
      const swapped = await plain.query('SELECT * FROM plian', { maxRows: 10, timeoutMs: 5000 }).catch((error: unknown) => error as WorkbenchError);
      await plain.close();
      expect((swapped as WorkbenchError).message).toMatch(/^DuckDB: Catalog Error: Table with name plian does not exist! — did you mean "plain"\?\n/);
      expect((swapped as WorkbenchError).message).not.toContain('Did you mean');
      const unicode = await openConnector({ engine: 'duckdb', format: 'csv', path: join(dir, 'файл 1.csv') });
      const missing = await unicode.query('SELECT * FROM plain', { maxRows: 10, timeoutMs: 5000 }).catch((error: unknown) => error as WorkbenchError);
      await unicode.close();
      expect((missing as WorkbenchError).code).toBe('unknown-object');
      expect((missing as WorkbenchError).message).not.toContain('pg_class');
      expect((missing as WorkbenchError).message).toMatch(/^DuckDB: Catalog Error: Table with name plain does not exist! — no table named plain in this database\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
