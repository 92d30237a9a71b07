import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, expect, it } from 'vitest';

import { runDqaImportCommand } from '../../../src-main/cli/dqa-import-command';
import { parseConnectionUri } from '../../../src-main/connectors/connection-uri';
import { loadBuildingFromConnector, loadLocatingFromConnector } from '../../../src-main/dqa/from-connector';
import { loadBuildingDump, loadLocatingDump } from '../../../src-main/dqa/load';
import { runDwb } from '../../support/cli';
import { repoRoot } from '../../support/fixtures';
import { runWhatIf, runWhatIfFor, runWhatIfOnConnection } from '../../../src-main/whatif';
import { defaultRunLimits, runDecision } from '../../../src-main/engine/decision-run';
import { automaticGate } from '../../../src-main/engine/review-gate';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import type { RunEvent } from '../../../src-main/contract/run';
import { messageText, startScriptedOpenAiServer } from '../../support/scripted-openai';
import { fileHash } from '../../support/fixtures';
import { useSuiteTempDir } from '../../support/temp';
import { writeSqliteFixture } from './fixture-loaders';

import { openTrinoConnector } from '../../../src-main/connectors/trino';
import { toWorkbenchError } from '../../../src-main/connectors/trino/errors';
import { runToEnd } from '../../../src-main/connectors/trino/trino-http';
import { parseTrinoUrl } from '../../../src-main/connectors/trino/trino-url';
import type { Connector } from '../../../src-main/connectors/connector';
import { startTrino, whyTrinoUnavailable, type TrinoTestServer } from '../../servers';
import { findFreeLoopbackPort } from '../../servers/free-port';
import { describeOrNotRun } from '../../servers/not-run';
import { runTrinoSql } from '../../servers/trino-admin';
import { runConnectorContract, type WriteAttempt } from './contract';
import { tradeNodes } from './fixture-data';
import { loadTrinoFixture, trinoFingerprint } from './trino-fixture';

const writeAttempts: WriteAttempt[] = [
  { name: 'INSERT', text: "INSERT INTO nodes VALUES (99, 'Evil', 'x')" },
  { name: 'UPDATE', text: "UPDATE nodes SET name = 'Evil'" },
  { name: 'DELETE', text: 'DELETE FROM trades' },
  { name: 'DROP TABLE', text: 'DROP TABLE trades' },
  { name: 'CREATE TABLE', text: 'CREATE TABLE evil (id integer)' },
  { name: 'CREATE TABLE AS SELECT', text: 'CREATE TABLE evil AS SELECT * FROM nodes' },
  { name: 'CREATE TABLE in another catalog', text: 'CREATE TABLE lake.sales.evil (id integer)' },
  { name: 'ALTER TABLE ADD COLUMN', text: 'ALTER TABLE nodes ADD COLUMN evil integer' },
  { name: 'ALTER TABLE RENAME', text: 'ALTER TABLE nodes RENAME TO evil' },
  { name: 'TRUNCATE', text: 'TRUNCATE TABLE trades' },
  { name: 'MERGE', text: "MERGE INTO nodes n USING (VALUES 1) s(id) ON n.id = s.id WHEN MATCHED THEN UPDATE SET name = 'Evil'" },
  { name: 'CREATE SCHEMA', text: 'CREATE SCHEMA memory.evil' },
  { name: 'DROP SCHEMA CASCADE', text: 'DROP SCHEMA memory.wb CASCADE' },
  { name: 'CREATE VIEW', text: 'CREATE VIEW evil AS SELECT 1 AS x' },
  { name: 'COMMENT ON TABLE', text: "COMMENT ON TABLE nodes IS 'evil'" },
  { name: 'GRANT', text: 'GRANT SELECT ON nodes TO USER evil' },
  { name: 'CALL a procedure', text: "CALL system.runtime.kill_query(query_id => 'x', message => 'evil')" },
  { name: 'multi-statement', text: 'SELECT 1; DROP TABLE trades' },
  { name: 'multi-statement after a string', text: "SELECT ';'; DELETE FROM trades" },
  { name: 'block comment then DROP', text: '/* harmless */ DROP TABLE trades' },
  { name: 'line comment then DELETE', text: '-- just a comment\nDELETE FROM trades' },
  // Trino ends a -- comment at a carriage return: a lexer reading on to the newline would see only the SELECT.
  { name: 'DELETE after a -- comment ended by a carriage return', text: '-- a\rDELETE FROM trades /* \nSELECT 1 -- */' },
  { name: 'EXPLAIN ANALYZE INSERT', text: "EXPLAIN ANALYZE INSERT INTO nodes VALUES (99, 'Evil', 'x')" },
  { name: 'EXPLAIN ANALYZE VERBOSE DELETE', text: 'EXPLAIN ANALYZE VERBOSE DELETE FROM trades' },
  { name: 'EXECUTE IMMEDIATE of a DELETE', text: "EXECUTE IMMEDIATE 'DELETE FROM trades'" },
  { name: 'PREPARE of a DELETE', text: 'PREPARE evil FROM DELETE FROM trades' },
  { name: 'SET SESSION, then INSERT', before: "SET SESSION query_max_run_time = '1h'", text: "INSERT INTO nodes VALUES (99, 'Evil', 'x')" },
  { name: 'START TRANSACTION READ WRITE, then INSERT', before: 'START TRANSACTION READ WRITE', text: "INSERT INTO nodes VALUES (99, 'Evil', 'x')" },
  { name: 'COMMIT', text: 'COMMIT' },
  { name: 'USE another schema', text: 'USE lake.sales' },
  { name: 'CTE then INSERT', text: "WITH x AS (SELECT 1) INSERT INTO nodes VALUES (99, 'Evil', 'x')", codes: ['read-only', 'syntax'] },
  { name: 'parenthesised query then DELETE', text: '(SELECT 1); DELETE FROM trades' },
];

const unavailable = whyTrinoUnavailable();
let server: TrinoTestServer | null = null;

const suiteDir = useSuiteTempDir();

function fingerprint(): Promise<string> {
  return trinoFingerprint(server?.adminUri ?? '');
}

// One server for the whole file: the contract suite and the engine-layer tests below share it.
beforeAll(async () => {
  if (unavailable !== null) return;
  server = await startTrino();
  if (server === null) throw new Error('Trino vanished between the check and the start');
  console.log(`[servers] Trino started in ${server.startupMs} ms`);
  await loadTrinoFixture(server.adminUri);
}, 240_000);

afterAll(async () => {
  await server?.stop();
}, 60_000);

/** The test server's URI for a login, in the fixture's schema. */
function uriFor(base: string | undefined): string {
  return `${base ?? ''}/wb`;
}

runConnectorContract('Trino connector (admin login: the read-only transaction must hold with every right)', {
  unavailable,
  writeAttempts,
  withoutKeyConstraints: true,
  async setup() {
    if (server === null) throw new Error('Trino server not started');
    const connector = await openTrinoConnector({ url: uriFor(server.adminUri) });
    return {
      connector,
      selectNodes: 'SELECT id, name, region FROM nodes ORDER BY id',
      nodesInRegion: 'SELECT name FROM nodes WHERE region = $region ORDER BY id',
      manyRows: 'SELECT x FROM UNNEST(sequence(1, 10000)) AS t(x)',
      // 10^12 rows to count: many minutes unless the query is killed.
      slowQuery: 'SELECT count(*) FROM UNNEST(sequence(1, 10000)) a(x) CROSS JOIN UNNEST(sequence(1, 10000)) b(y) CROSS JOIN UNNEST(sequence(1, 10000)) c(z)',
      syntaxError: { text: 'SELEC id FROM nodes', messageIncludes: "mismatched input 'SELEC'" },
      unknownNames: [
        { text: 'SELECT * FROM trade', messageIncludes: ['trade', 'did you mean "trades"?'] },
        { text: 'SELECT nme FROM nodes', messageIncludes: ['nme', 'did you mean "name"?'] },
      ],
      fingerprint,
      dispose: () => connector.close(),
    };
  },
});

describeOrNotRun('Trino engine layers on their own', unavailable, () => {
  let reader: Connector;

  beforeAll(async () => {
    reader = await openTrinoConnector({ url: uriFor(server?.uri) });
  }, 60_000);

  afterAll(async () => {
    await reader?.close();
  });

  // Writes the memory connector supports (it has no row DELETE or UPDATE, which it refuses itself).
  const writes = ["INSERT INTO memory.wb.nodes VALUES (98, 'x', 'y')", 'ALTER TABLE memory.wb.trades RENAME TO memory.wb.evil', 'DROP TABLE memory.wb.trades', 'CREATE TABLE memory.wb.evil (id integer)', 'CREATE SCHEMA memory.evil'];

  it.each(writes)('the read-only transaction refuses the admin %s without the statement check', async (sql) => {
    const before = await fingerprint();
    const endpoint = parseTrinoUrl(server?.adminUri ?? '');
    const begin = await runToEnd({ endpoint, password: null }, 'START TRANSACTION READ ONLY');
    const session = { endpoint, password: null, transactionId: begin.startedTransactionId ?? '' };
    const error = await runToEnd(session, sql).then(() => null, toWorkbenchError);
    await runToEnd(session, 'ROLLBACK');
    expect(error?.code).toBe('read-only');
    expect(error?.message).toContain('READ_ONLY_VIOLATION');
    expect(await fingerprint()).toBe(before);
  });

  it.each(writes)("Trino's access control refuses the reader %s in autocommit, without the connector", async (sql) => {
    const before = await fingerprint();
    const error = await runTrinoSql(server?.uri ?? '', [sql]).then(() => null, toWorkbenchError);
    expect(error?.code).toBe('read-only');
    expect(error?.message).toContain('PERMISSION_DENIED');
    expect(await fingerprint()).toBe(before);
  });

  it('browses every catalog and schema the user sees, views included, with counts in its own catalog', async () => {
    const schema = await reader.schema();
    if (schema.kind !== 'relational') throw new Error('expected a relational schema');
    const names = schema.tables.map((table) => table.name);
    expect(names).toEqual(expect.arrayContaining(['nodes', 'trades', 'north_nodes', 'lake.sales.orders']));
    expect(schema.tables.find((table) => table.name === 'north_nodes')?.kind).toBe('view');
    expect(schema.tables.find((table) => table.name === 'trades')?.columns.find((column) => column.name === 'price')?.type).toBe('decimal(10,2)');
    // Counted in the connection's catalog only: a count elsewhere may be a scan of a lake.
    expect(schema.tables.find((table) => table.name === 'lake.sales.orders')?.rowCount).toBeNull();
    // The other catalog's schema is said apart, for the browser to group by; the connection's own has none.
    expect(schema.tables.find((table) => table.name === 'lake.sales.orders')?.namespace).toBe('lake.sales');
    expect(schema.tables.filter((table) => ['nodes', 'trades', 'north_nodes'].includes(table.name)).map((table) => table.namespace)).toEqual([undefined, undefined, undefined]);
    const orders = await reader.query('SELECT region, amount FROM lake.sales.orders ORDER BY id', { maxRows: 10, timeoutMs: 20_000 });
    expect(orders.rows).toEqual([
      ['north', 12.5],
      ['south', 7.25],
    ]);
  });

  it('returns JSON-safe cells for awkward types', async () => {
    const result = await reader.query(
      `SELECT BIGINT '9223372036854775807' AS big, BIGINT '42' AS small, DECIMAL '12345678901234567890.12' AS exact, DECIMAL '1.50' AS short,
              nan() AS nan, infinity() AS inf, X'00ff' AS bytes, ARRAY[1, 2] AS list, MAP(ARRAY['a'], ARRAY[1]) AS map,
              DATE '2024-01-02' AS day, true AS flag, CAST(NULL AS varchar) AS nothing, '12345678901234567890' AS digits_text`,
      { maxRows: 1, timeoutMs: 20_000 },
    );
    expect(result.rows[0]).toEqual(['9223372036854775807', 42, '12345678901234567890.12', 1.5, 'NaN', 'Infinity', '0x00ff', '[1,2]', '{"a":1}', '2024-01-02', true, null, '12345678901234567890']);
    expect(result.columns.map((column) => column.type)).toContain('decimal(22, 2)');
  });

  it('streams rows in batches, waiting on the consumer, and stops at the cap', async () => {
    const batches: number[] = [];
    let consumerBusy = false;
    const result = await reader.query('SELECT x FROM UNNEST(sequence(1, 10000)) AS t(x) CROSS JOIN UNNEST(sequence(1, 10)) AS u(y)', {
      maxRows: 50_000,
      timeoutMs: 60_000,
      keepRows: 5,
      onRows: async (batch) => {
        expect(consumerBusy, 'a batch arrived while the consumer was still busy').toBe(false);
        consumerBusy = true;
        batches.push(batch.rows.length);
        await new Promise((resolve) => setImmediate(resolve));
        consumerBusy = false;
      },
    });
    expect(result.rowCount).toBe(50_000);
    expect(result.truncated).toBe(true);
    expect(result.rows).toHaveLength(5);
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.reduce((sum, size) => sum + size, 0)).toBe(50_000);
  }, 120_000);

  it('kills a cancelled query on the coordinator', async () => {
    const controller = new AbortController();
    const running = reader.query('SELECT count(*) FROM UNNEST(sequence(1, 10000)) a(x) CROSS JOIN UNNEST(sequence(1, 10000)) b(y) CROSS JOIN UNNEST(sequence(1, 10000)) c(z)', {
      maxRows: 1,
      timeoutMs: 120_000,
      signal: controller.signal,
    });
    // Wait for the state, not a duration: the query shows as RUNNING in system.runtime.queries.
    const runningQueries = (): Promise<unknown[][]> =>
      runTrinoSql(server?.adminUri ?? '', ["SELECT query_id, state FROM system.runtime.queries WHERE query LIKE '%CROSS JOIN UNNEST(sequence(1, 10000)) c(z)%' AND query NOT LIKE '%system.runtime.queries%' AND query NOT LIKE 'EXPLAIN%'"]);
    let seen: unknown[][] = [];
    while (!seen.some((row) => row[1] === 'RUNNING')) seen = await runningQueries();
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: 'cancelled' });
    const id = seen.find((row) => row[1] === 'RUNNING')?.[0];
    let state: unknown = 'RUNNING';
    while (state === 'RUNNING') state = (await runningQueries()).find((row) => row[0] === id)?.[1];
    expect(state).toBe('FAILED');
  }, 120_000);

  it('refuses a password over plain HTTP and names the fix', async () => {
    const error = await openTrinoConnector({ url: uriFor(server?.uri), password: 'secret' }).then(() => null, (caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'connection-failed' });
    expect(String((error as Error).message)).toBe('Trino accepts a password only over HTTPS: add ?ssl=true to the URL');
  });

  it('says plainly when no coordinator answers', async () => {
    const error = await openTrinoConnector({ url: 'trino://dwb_reader@127.0.0.1:1/memory' }).then(() => null, (caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'connection-failed' });
    expect(String((error as Error).message)).toContain('cannot reach the coordinator at http://127.0.0.1:1');
    // Port 1 is one fetch never connects to; the message says so rather than "fetch failed".
    expect(String((error as Error).message)).toContain("fetch refuses to connect to that port (one of the Fetch standard's blocked ports)");
    const port = await findFreeLoopbackPort();
    const refused = await openTrinoConnector({ url: `trino://dwb_reader@127.0.0.1:${port}/memory` }).then(() => null, (caught: unknown) => caught);
    expect(String((refused as Error).message)).toBe(`Trino: cannot reach the coordinator at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('says plainly when HTTPS meets a coordinator that speaks plain HTTP', async () => {
    const error = await openTrinoConnector({ url: `${uriFor(server?.uri)}?ssl=true` }).then(() => null, (caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'connection-failed' });
    expect(String((error as Error).message)).toContain('it does not answer in TLS there (ERR_SSL_WRONG_VERSION_NUMBER)');
  });

  it('a statement that is still running when the connector closes is killed', async () => {
    const connector = await openTrinoConnector({ url: uriFor(server?.uri) });
    const running = connector.query('SELECT count(*) FROM UNNEST(sequence(1, 10000)) a(x) CROSS JOIN UNNEST(sequence(1, 9999)) b(y) CROSS JOIN UNNEST(sequence(1, 10000)) c(z)', {
      maxRows: 1,
      timeoutMs: 120_000,
    });
    running.catch(() => undefined);
    const runningQueries = async (): Promise<unknown[][]> =>
      runTrinoSql(server?.adminUri ?? '', ["SELECT state FROM system.runtime.queries WHERE query LIKE '%sequence(1, 9999)%' AND query NOT LIKE '%system.runtime.queries%' AND query NOT LIKE 'EXPLAIN%' AND state = 'RUNNING'"]);
    while ((await runningQueries()).length === 0) {
      // waiting for the coordinator to report it running
    }
    await connector.close();
    await expect(running).rejects.toBeDefined();
    while ((await runningQueries()).length > 0) {
      // waiting for the coordinator to end it
    }
    expect(await runningQueries()).toEqual([]);
  }, 120_000);

  it('runs a what-if on a local DuckDB copy of the named tables, ranking as on a SQLite copy of the same data; Trino keeps its rows', async () => {
    const uri = uriFor(server?.uri);
    const before = await fingerprint();
    // Doubling one seller's quantities: whose doubling adds the most traded value?
    const spec = {
      change: 'UPDATE trades SET qty = qty * 2 WHERE seller_id = $candidate',
      objective: 'SELECT sum(qty * price) FROM trades',
      candidatesQuery: 'SELECT id FROM nodes ORDER BY id',
      direction: 'maximize' as const,
      tolerance: 1e-9,
      timeoutMs: 10_000,
    };
    const onTrino = await runWhatIfOnConnection(parseConnectionUri(uri), reader, spec);
    const sqlitePath = join(suiteDir(), 'trades.sqlite');
    writeSqliteFixture(sqlitePath);
    const sqliteHash = fileHash(sqlitePath);
    const onSqlite = await runWhatIf({
      source: sqlitePath,
      candidates: onTrino.rows.map((row) => row.candidate).sort((a, b) => Number(a) - Number(b)),
      change: 'UPDATE trades SET qty = qty * 2 WHERE seller_id = :candidate',
      objective: spec.objective,
    });
    expect(fileHash(sqlitePath)).toBe(sqliteHash);
    expect(onTrino.rows.length).toBe(5);
    expect(onTrino.best).toBe(onSqlite.best);
    expect(onTrino.rows.map((row) => [row.candidate, row.rank, row.changedRows])).toEqual(onSqlite.rows.map((row) => [row.candidate, row.rank, row.changedRows]));
    for (const [index, row] of onTrino.rows.entries()) expect(row.delta).toBeCloseTo(onSqlite.rows[index]?.delta ?? NaN, 9);
    expect(onTrino.copiedTables?.map((table) => table.name)).toEqual(['trades']);
    expect(await fingerprint()).toBe(before);
  }, 120_000);
});

describeOrNotRun('dwb query on Trino', unavailable, () => {
  it('streams rows as CSV and refuses a write with exit 1 and one line', async () => {
    const uri = uriFor(server?.uri);
    const read = await runDwb(['query', '--connection', uri, '--format', 'csv', 'SELECT id, name FROM nodes ORDER BY id']);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout.trim().split(/\r?\n/)).toEqual(['id,name', ...tradeNodes.map((node) => `${node.id},${node.name}`)]);
    const write = await runDwb(['query', '--connection', uri, 'DROP TABLE trades']);
    expect(write.code).toBe(1);
    expect(write.stderr.trim()).toMatch(/^dwb query: read-only: Trino: DROP statements are not allowed/);
    const typedPassword = await runDwb(['query', '--connection', uri.replace('dwb_reader@', 'dwb_reader:pw@'), 'SELECT 1']);
    // A request the CLI refuses before it connects (invalid-request) exits 2, as for every engine.
    expect(typedPassword.code).toBe(2);
    expect(typedPassword.stderr).toContain('--connection holds a password (user:password@host), which puts it on the command line');
  }, 120_000);
});

describeOrNotRun('a decision run on Trino', unavailable, () => {
  it('queries in Trino SQL, has its write refused by the connector, experiments on a local copy and answers', async () => {
    const connector = await openTrinoConnector({ url: uriFor(server?.uri) });
    const target = parseConnectionUri(uriFor(server?.uri));
    const before = await fingerprint();
    const model = await startScriptedOpenAiServer([
      {
        expectTools: ['query', 'whatif', 'answer'],
        expect: (request) => {
          const system = messageText(request.chat.messages[0] ?? { role: 'system', content: '' });
          if (!system.includes('Trino SQL')) return `system prompt lacks the Trino dialect: ${system}`;
          if (!system.includes('trades')) return 'system prompt lacks the schema';
          return undefined;
        },
        toolCalls: [{ name: 'query', arguments: { query: 'SELECT seller_id, sum(qty * price) AS value FROM trades GROUP BY seller_id ORDER BY value DESC, seller_id LIMIT 1' } }],
      },
      { expectToolResultContains: ['seller_id | value\n1 | 178'], toolCalls: [{ name: 'query', arguments: { query: 'DELETE FROM trades WHERE seller_id = 1' } }] },
      {
        expectToolResultContains: ['read-only'],
        toolCalls: [{ name: 'whatif', arguments: { change: 'UPDATE trades SET qty = qty * 2 WHERE seller_id = $candidate', objective: 'SELECT sum(qty * price) FROM trades', candidatesQuery: 'SELECT id FROM nodes ORDER BY id' } }],
      },
      { expectToolResultContains: ['what-if on a throwaway copy', 'best: 1'], toolCalls: [{ name: 'answer', arguments: { decision: '1', rationale: 'Seller 1 trades the most value.' } }] },
    ]);
    try {
      const events: RunEvent[] = [];
      const outcome = await runDecision({
        question: 'Which seller should double their quantities?',
        rules: 'More traded value is better.',
        technique: 'iterrag',
        connector,
        connectionDescription: 'trades (Trino)',
        provider: createOpenAiProvider({ baseUrl: model.baseUrl, model: 'scripted', requestTimeoutMs: 10_000, maxRetries: 0, toolMode: 'tools' }),
        toolMode: 'tools',
        limits: { ...defaultRunLimits, queryTimeoutMs: 20_000 },
        gate: automaticGate,
        emit: (event) => events.push(event),
        whatIf: runWhatIfFor(target, connector, true) ?? undefined,
      });
      expect(model.failures).toEqual([]);
      expect(outcome).toMatchObject({ status: 'answered', decision: '1' });
      expect(events.filter((event) => event.type === 'query-end').length).toBe(2);
      expect(await fingerprint()).toBe(before);
    } finally {
      await model.close();
      await connector.close();
    }
  }, 120_000);
});

describeOrNotRun('dwb dqa import --target trino://… (a writable catalog)', unavailable, () => {
  const demo = join(repoRoot, 'resources', 'demo');
  const importDemo = async (): Promise<{ code: number; stdout: string[] }> => {
    const stdout: string[] = [];
    // The demo's two dumps, referenced the way DQA questions files do (`rdb`).
    const questions = join(suiteDir(), 'questions.json');
    writeFileSync(questions, JSON.stringify([{ rdb: join(demo, 'locating-1445.sql') }, { rdb: join(demo, 'building-USA1836.sql') }]));
    const code = await runDqaImportCommand(['--questions', questions, '--target', server?.adminUri ?? ''], { stdout: (line) => stdout.push(line), stderr: () => undefined });
    return { code, stdout };
  };

  it('imports each relational dump into its own schema, read back through the read-only connector exactly as the dump parses; a re-import is unchanged', async () => {
    const first = await importDemo();
    expect(first.code).toBe(0);
    expect(first.stdout.at(-1)).toMatch(/^2 created, 0 replaced, 0 unchanged/);
    expect(first.stdout.join('\n')).toContain('/memory/building-usa1836  (building-USA1836: goods 52, building 251, supply 445, demand 260)');
    const base = server?.uri.replace(/\/memory$/, '') ?? '';
    const building = await openTrinoConnector({ url: `${base}/memory/building-usa1836` });
    const locating = await openTrinoConnector({ url: `${base}/memory/locating-1445` });
    try {
      const fromTrino = await loadBuildingFromConnector(building, 'trino');
      const dumpPath = join(demo, 'building-USA1836.sql');
      expect(fromTrino.data).toEqual(loadBuildingDump(readFileSync(dumpPath, 'utf8'), 'relational', dumpPath));
      expect(fromTrino.ordering.every((line) => line.endsWith('by import_order'))).toBe(true);
      const locatingPath = join(demo, 'locating-1445.sql');
      expect((await loadLocatingFromConnector(locating, 'trino')).data).toEqual(loadLocatingDump(readFileSync(locatingPath, 'utf8'), 'relational', locatingPath));
    } finally {
      await building.close();
      await locating.close();
    }
    const again = await importDemo();
    expect(again.stdout.at(-1)).toMatch(/0 created, 0 replaced, 2 unchanged/);
  }, 240_000);

  /** A relational dump of `sales` rows (VARCHAR(5) notes), the last row's note as given. */
  const salesDump = (rows: number, lastNote = 'ok'): string =>
    [
      'CREATE TABLE region(id INT, name VARCHAR(5), PRIMARY KEY (id));',
      'CREATE TABLE sale(id INT, region_id INT, amount FLOAT, note VARCHAR(5), PRIMARY KEY (id));',
      'INSERT INTO region(id, name) VALUES (1, "north"), (2, "south"), (3, "east");',
      ...Array.from({ length: rows }, (_, index) => `INSERT INTO sale(id, region_id, amount, note) VALUES (${index + 1}, ${(index % 3) + 1}, ${index + 0.5}, "${index === rows - 1 ? lastNote : 'ok'}");`),
    ].join('\n');
  /** A questions file naming one dump, `<name>.sql` in the suite's folder, written with `text`. */
  const questionsFor = (name: string, text: string): string => {
    const dumpPath = join(suiteDir(), `${name}.sql`);
    writeFileSync(dumpPath, text);
    const questions = join(suiteDir(), `${name}.questions.json`);
    writeFileSync(questions, JSON.stringify([{ rdb: dumpPath }]));
    return questions;
  };
  const importQuestions = async (questions: string): Promise<{ code: number; stdout: string[]; error: unknown }> => {
    const stdout: string[] = [];
    try {
      const code = await runDqaImportCommand(['--questions', questions, '--target', server?.adminUri ?? ''], { stdout: (line) => stdout.push(line), stderr: () => undefined });
      return { code, stdout, error: null };
    } catch (error) {
      return { code: 1, stdout, error };
    }
  };
  /** The tables of a schema of the memory catalog, as the admin sees them. */
  const tablesIn = async (schema: string): Promise<string[]> =>
    (await runTrinoSql(server?.adminUri ?? '', [`SELECT table_name FROM memory.information_schema.tables WHERE table_schema = '${schema}' ORDER BY 1`])).map((row) => String(row[0]));
  const recordOf = async (name: string): Promise<unknown> => {
    const { TrinoWriter } = await import('../../../src-main/importers/relational/trino-writer');
    return new TrinoWriter(server?.adminUri ?? '', null).findRecord({ name, path: `/${name}.sql`, kind: 'relational', reference: `${name}.sql` });
  };

  it('an import that fails on a bad row late in its dump leaves nothing read as imported, and the corrected dump imports after it', async () => {
    // 1,500 sales, written 400 a statement: three go in before the fourth fails on the last row.
    const failing = await importQuestions(questionsFor('late-bad-row', salesDump(1500, 'far too long')));
    expect(failing.code).toBe(1);
    expect(String(failing.error)).toContain('Cannot truncate non-space characters when casting from varchar(12) to varchar(5)');
    expect(await tablesIn('late-bad-row')).toEqual([]);
    expect(await runTrinoSql(server?.adminUri ?? '', ["SELECT schema_name FROM memory.information_schema.schemata WHERE schema_name = 'late-bad-row'"])).toEqual([]);
    expect(await recordOf('late-bad-row')).toBeNull();

    const fixed = await importQuestions(questionsFor('late-bad-row', salesDump(1500)));
    expect(fixed.error).toBeNull();
    expect(fixed.stdout.at(-1)).toMatch(/^1 created, 0 replaced, 0 unchanged/);
    expect(await tablesIn('late-bad-row')).toEqual(['_dwb_import', 'region', 'sale']);
    const reader = await openTrinoConnector({ url: `${server?.uri ?? ''}/late-bad-row` });
    try {
      expect((await reader.query('SELECT count(*), max(id) FROM sale', { maxRows: 1, timeoutMs: 20_000 })).rows).toEqual([[1500, 1500]]);
    } finally {
      await reader.close();
    }
  }, 240_000);

  it('an import killed while it loads leaves the earlier import whole and readable; the next run clears what it left and replaces it', async () => {
    const first = await importQuestions(questionsFor('interrupted', salesDump(10)));
    expect(first.stdout.at(-1)).toMatch(/^1 created/);
    const before = (await recordOf('interrupted')) as { sha256: string };
    // A bigger dump: 12,000 sales are 30 INSERTs, so the process is still loading when it is interrupted.
    const questions = questionsFor('interrupted', salesDump(12_000));
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'dwb.js'), 'dqa', 'import', '--questions', questions, '--target', server?.adminUri ?? ''], { stdio: 'ignore' });
    const exited = once(child, 'exit');
    let exitedFirst = false;
    void exited.then(() => (exitedFirst = true));
    // Wait for the state, not a duration: the sales being loaded under their partial name.
    while (!(await tablesIn('interrupted')).includes('_dwb_partial_sale')) {
      if (exitedFirst) throw new Error('the import ended before it could be interrupted');
    }
    child.kill('SIGINT'); // Ctrl+C: Node ends at once, so nothing is cleaned up.
    await exited;
    expect(await recordOf('interrupted')).toEqual(before);
    const reader = await openTrinoConnector({ url: `${server?.uri ?? ''}/interrupted` });
    try {
      expect((await reader.query('SELECT count(*) FROM sale', { maxRows: 1, timeoutMs: 20_000 })).rows).toEqual([[10]]);
    } finally {
      await reader.close();
    }
    expect((await tablesIn('interrupted')).filter((name) => !name.startsWith('_dwb_partial_'))).toEqual(['_dwb_import', 'region', 'sale']);

    const retry = await importQuestions(questions);
    expect(retry.error).toBeNull();
    expect(retry.stdout.at(-1)).toMatch(/^0 created, 1 replaced, 0 unchanged/);
    expect(await tablesIn('interrupted')).toEqual(['_dwb_import', 'region', 'sale']);
    expect(await runTrinoSql(server?.adminUri ?? '', ['SELECT count(*) FROM memory.interrupted.sale'])).toEqual([[12_000]]);
  }, 240_000);

  it('a swap cut short after its marker is read as incomplete, never as imported, and the next run replaces what it touched', async () => {
    const name = 'cut-swap';
    await importQuestions(questionsFor(name, salesDump(5)));
    // What a process killed mid-swap leaves: the marker, naming the tables the swap touches, and
    // an extra table the swap had renamed in; here the old record is already gone too.
    await runTrinoSql(server?.adminUri ?? '', [
      `CREATE TABLE memory."${name}"._dwb_import_pending (parts varchar)`,
      `INSERT INTO memory."${name}"._dwb_import_pending VALUES ('[{"kind":"table","name":"region","count":0},{"kind":"table","name":"stray","count":0}]')`,
      `CREATE TABLE memory."${name}".stray (id integer)`,
      `DROP TABLE memory."${name}"._dwb_import`,
    ]);
    expect(await recordOf(name)).toEqual({ sha256: '', parts: [expect.objectContaining({ name: 'region' }), expect.objectContaining({ name: 'stray' })] });
    const retry = await importQuestions(questionsFor(name, salesDump(5)));
    expect(retry.stdout.at(-1)).toMatch(/^0 created, 1 replaced, 0 unchanged/);
    expect(await tablesIn(name)).toEqual(['_dwb_import', 'region', 'sale']);
    expect(((await recordOf(name)) as { sha256: string }).sha256).toMatch(/^[0-9a-f]{64}$/);
  }, 240_000);

  it('refuses to overwrite a schema the importer did not make', async () => {
    await runTrinoSql(server?.adminUri ?? '', ['CREATE SCHEMA memory.usa1836_own', 'CREATE TABLE memory.usa1836_own.mine (id integer)']);
    const { TrinoWriter } = await import('../../../src-main/importers/relational/trino-writer');
    const writer = new TrinoWriter(server?.adminUri ?? '', null);
    await expect(writer.findRecord({ name: 'USA1836_own', path: '/x', kind: 'relational', reference: 'x.sql' })).rejects.toMatchObject({ code: 'conflict' });
  });
});

