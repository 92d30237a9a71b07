/**
 * Streamed results (QueryOptions.onRows) through openConnector, the path the notebook and
 * `dwb query` take: rows arrive in ordered batches while the query reads, the result keeps only
 * a bounded preview and counts every row, the row cap still holds, a slow consumer holds the
 * reader back, and a cancel mid-stream stops it. On real SQLite, DuckDB and Kùzu files and real
 * PostgreSQL, MariaDB and Neo4j servers (Neo4j's result is read first, then handed over in batches).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Connector, RowBatch } from '../../../src-main/connectors/connector';
import { openConnector } from '../../../src-main/connectors/open-connector';
import { rowBatchSize } from '../../../src-main/connectors/shared/row-stream';
import type { ConnectionTarget } from '../../../src-main/contract/connections';
import { WorkbenchError } from '../../../src-main/contract/errors';
import { startMariadb, startNeo4j, startPostgres, whyMariadbUnavailable, whyNeo4jUnavailable, whyPostgresUnavailable, type TestServer } from '../../servers';
import { describeOrNotRun } from '../../servers/not-run';
import { useSuiteTempDir } from '../../support/temp';
import { DuckDBInstance } from '@duckdb/node-api';

const suiteDir = useSuiteTempDir();
const total = 25_000;

interface Engine {
  name: string;
  target: () => ConnectionTarget;
  /** `total` rows (n, label) ordered by n, 1…total. */
  rows: string;
  /** The largest batch the engine may hand over (bounded memory). */
  maxBatch: number;
  /** Rows 1…5 (n, label); the row count of the table as one value `c`; the single value 1. */
  firstFive: string;
  count: string;
  one: string;
}

const sql = { firstFive: 'SELECT n, label FROM t WHERE n <= 5 ORDER BY n', count: 'SELECT count(*) AS c FROM t', one: 'SELECT 1 AS one' };

let server: TestServer | null = null;
let sqlitePath = '';
let duckdbPath = '';
let kuzuPath = '';

beforeAll(async () => {
  sqlitePath = join(suiteDir(), 'rows.sqlite');
  execFileSync('sqlite3', [
    sqlitePath,
    `CREATE TABLE t(n INTEGER PRIMARY KEY, label TEXT);
     WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${total}) INSERT INTO t SELECT i, 'row ' || i FROM c;`,
  ]);
  duckdbPath = join(suiteDir(), 'rows.duckdb');
  const instance = await DuckDBInstance.create(duckdbPath);
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE t AS SELECT range + 1 AS n, 'row ' || (range + 1) AS label FROM range(${total})`);
  connection.closeSync();
  instance.closeSync();
  // Written by a separate process (see writeLadybugFixture for why).
  kuzuPath = join(suiteDir(), 'rows.kuzu');
  const script = `
    const lbug = require(${JSON.stringify(require.resolve('@ladybugdb/core'))});
    (async () => {
      const connection = new lbug.Connection(new lbug.Database(${JSON.stringify(kuzuPath)}, 64 * 1024 * 1024));
      await connection.query('CREATE NODE TABLE Row(n INT64 PRIMARY KEY, label STRING)');
      await connection.query("UNWIND range(1, ${total}) AS n CREATE (:Row {n: n, label: 'row ' + CAST(n AS STRING)})");
      process.exit(0);
    })().catch((error) => { console.error(error); process.exit(1); });`;
  execFileSync(process.execPath, ['-e', script], { stdio: 'inherit' });
}, 60_000);

const fileEngines: Engine[] = [
  { name: 'SQLite', target: () => ({ engine: 'sqlite', path: sqlitePath }), rows: 'SELECT n, label FROM t ORDER BY n', maxBatch: rowBatchSize, ...sql },
  { name: 'DuckDB', target: () => ({ engine: 'duckdb', format: 'duckdb', path: duckdbPath }), rows: 'SELECT n, label FROM t ORDER BY n', maxBatch: 2048, ...sql },
  {
    name: 'Kùzu',
    target: () => ({ engine: 'kuzu', path: kuzuPath }),
    rows: 'MATCH (r:Row) RETURN r.n AS n, r.label AS label ORDER BY r.n',
    maxBatch: rowBatchSize,
    firstFive: 'MATCH (r:Row) WHERE r.n <= 5 RETURN r.n AS n, r.label AS label ORDER BY r.n',
    count: 'MATCH (r:Row) RETURN count(r) AS c',
    one: 'RETURN 1 AS one',
  },
];

function streamingSuite(engine: Engine): void {
  let connector: Connector;
  beforeAll(async () => {
    connector = await openConnector(engine.target());
  }, 60_000);
  afterAll(async () => {
    await connector?.close();
  });

  it('hands every row over in ordered, bounded batches and keeps only the preview', async () => {
    const batches: RowBatch[] = [];
    const result = await connector.query(engine.rows, { maxRows: 100_000, timeoutMs: 30_000, keepRows: 100, onRows: (batch) => void batches.push(batch) });
    expect(batches.length).toBeGreaterThan(1);
    expect(Math.max(...batches.map((batch) => batch.rows.length))).toBeLessThanOrEqual(engine.maxBatch);
    const streamed = batches.flatMap((batch) => batch.rows.map((row) => Number(row[0])));
    expect(streamed).toHaveLength(total);
    expect(streamed.every((n, index) => n === index + 1)).toBe(true);
    expect(batches[0]?.columns.map((column) => column.name)).toEqual(['n', 'label']);
    expect(result.rowCount).toBe(total);
    expect(result.truncated).toBe(false);
    expect(result.rows).toHaveLength(100);
    expect(result.rows[99]).toEqual([100, 'row 100']);
    expect(result.preview).toEqual({ rows: 100, note: expect.stringContaining('First 100 of 25,000 rows kept') });
  });

  it('stops at the row cap and says the result was cut', async () => {
    let streamed = 0;
    const result = await connector.query(engine.rows, { maxRows: 3000, timeoutMs: 30_000, onRows: (batch) => void (streamed += batch.rows.length) });
    expect(streamed).toBe(3000);
    expect(result).toMatchObject({ rowCount: 3000, truncated: true, rows: [] });
  });

  it('keeps everything, and no preview note, when the result fits the preview', async () => {
    const result = await connector.query(engine.firstFive, { maxRows: 100, timeoutMs: 30_000, keepRows: 10, onRows: () => undefined });
    expect(result.rows).toEqual([[1, 'row 1'], [2, 'row 2'], [3, 'row 3'], [4, 'row 4'], [5, 'row 5']]);
    expect(result.preview).toBeUndefined();
  });

  it('reads no further while the consumer is busy (backpressure)', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const batchSizes: number[] = [];
    const running = connector.query(engine.rows, {
      maxRows: 100_000,
      timeoutMs: 30_000,
      onRows: async (batch) => {
        batchSizes.push(batch.rows.length);
        if (batchSizes.length === 1) await held;
      },
    });
    // The first batch may take a while on a loaded machine (a server's first reply); from then on
    // the consumer holds it, and nothing else may be handed over meanwhile.
    await vi.waitFor(() => expect(batchSizes.length).toBeGreaterThan(0), { timeout: 30_000, interval: 20 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(batchSizes).toHaveLength(1);
    release();
    const result = await running;
    expect(batchSizes.reduce((sum, size) => sum + size, 0)).toBe(total);
    expect(result.rowCount).toBe(total);
  });

  it('a cancel mid-stream stops the query with "cancelled", and the connection still answers', async () => {
    const stop = new AbortController();
    let batches = 0;
    const running = connector.query(engine.rows, {
      maxRows: 100_000,
      timeoutMs: 30_000,
      signal: stop.signal,
      onRows: async () => {
        batches += 1;
        if (batches === 2) stop.abort();
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
    });
    await expect(running).rejects.toMatchObject({ code: 'cancelled' });
    expect(batches).toBeLessThan(total / rowBatchSize);
    const after = await connector.query(engine.count, { maxRows: 10, timeoutMs: 30_000 });
    expect(Number(after.rows[0]?.[0])).toBe(total);
  });

  it('a consumer that fails ends the query with its error', async () => {
    const running = connector.query(engine.rows, {
      maxRows: 100_000,
      timeoutMs: 30_000,
      onRows: () => {
        throw new WorkbenchError('internal', 'the consumer went away');
      },
    });
    await expect(running).rejects.toMatchObject({ message: expect.stringContaining('the consumer went away') });
    const after = await connector.query(engine.one, { maxRows: 10, timeoutMs: 30_000 });
    expect(after.rows).toEqual([[1]]);
  });
}

for (const engine of fileEngines) describe(`streamed results on ${engine.name}`, () => streamingSuite(engine));

describeOrNotRun('streamed results on PostgreSQL', whyPostgresUnavailable(), () => {
  beforeAll(async () => {
    server = await startPostgres();
    if (server === null) throw new Error('PostgreSQL vanished between the check and the start');
    const admin = new (await import('pg')).default.Client({ connectionString: server.uri });
    await admin.connect();
    await admin.query(`CREATE TABLE t AS SELECT g AS n, 'row ' || g AS label FROM generate_series(1, ${total}) AS g`);
    await admin.end();
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });
  streamingSuite({ name: 'PostgreSQL', target: () => ({ engine: 'postgres', url: server?.uri ?? '' }), rows: 'SELECT n, label FROM t ORDER BY n', maxBatch: rowBatchSize, ...sql });
});

describeOrNotRun('streamed results on Neo4j', whyNeo4jUnavailable(), () => {
  let neo4jServer: TestServer | null = null;
  beforeAll(async () => {
    neo4jServer = await startNeo4j();
    if (neo4jServer === null) throw new Error('Neo4j vanished between the check and the start');
    await writeToNeo4j(neo4jServer, `UNWIND range(1, ${total}) AS n CREATE (:Row {n: n, label: 'row ' + toString(n)})`);
  }, 180_000);
  afterAll(async () => {
    await neo4jServer?.stop();
  });
  streamingSuite({
    name: 'Neo4j',
    target: () => ({ engine: 'neo4j', url: neo4jServer?.uri ?? '' }),
    rows: 'MATCH (r:Row) RETURN r.n AS n, r.label AS label ORDER BY r.n',
    maxBatch: rowBatchSize,
    firstFive: 'MATCH (r:Row) WHERE r.n <= 5 RETURN r.n AS n, r.label AS label ORDER BY r.n',
    count: 'MATCH (r:Row) RETURN count(r) AS c',
    one: 'RETURN 1 AS one',
  });
});

/** Writes through the driver itself (the connector refuses writes). */
async function writeToNeo4j(server: TestServer, cypher: string): Promise<void> {
  const neo4j = (await import('neo4j-driver')).default;
  const driver = neo4j.driver(server.uri, neo4j.auth.basic(server.username, server.password));
  const session = driver.session();
  try {
    await session.run(cypher);
  } finally {
    await session.close();
    await driver.close();
  }
}

describeOrNotRun('streamed results on MariaDB', whyMariadbUnavailable(), () => {
  let mariadb: TestServer | null = null;
  beforeAll(async () => {
    mariadb = await startMariadb();
    if (mariadb === null) throw new Error('MariaDB vanished between the check and the start');
    const mysql = await import('mysql2/promise');
    const admin = await mysql.createConnection(mariadb.adminUri ?? '');
    try {
      await admin.query('CREATE TABLE t (n INT PRIMARY KEY, label VARCHAR(40))');
      await admin.query(`SET SESSION max_recursive_iterations = ${total + 1}`);
      await admin.query(`INSERT INTO t (n, label) WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${total}) SELECT i, CONCAT('row ', i) FROM c`);
    } finally {
      await admin.end();
    }
  }, 180_000);
  afterAll(async () => {
    await mariadb?.stop();
  });
  streamingSuite({ name: 'MariaDB', target: () => ({ engine: 'mysql', url: mariadb?.uri ?? '' }), rows: 'SELECT n, label FROM t ORDER BY n', maxBatch: rowBatchSize, ...sql });
});
