/**
 * What-if scenarios and DeLLMa's exact outcomes on real PostgreSQL and MariaDB servers: the
 * tables the changes and objective name are read through the read-only connector into a local
 * DuckDB sandbox, each scenario's changes applied there in one rolled-back transaction. The
 * objectives are hand-computed; the server's own row checksums are the same before and after;
 * and a change that tries to reach beyond the copy (another database, a system table, a
 * file), change the schema or smuggle in a second statement is refused by name before any
 * scenario runs.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dellmaExactSchema, dellmaRunSettingsSchema, type DellmaExact } from '../../../src-main/contract/dellma';
import { WorkbenchError } from '../../../src-main/contract/errors';
import type { RunEvent } from '../../../src-main/contract/run';
import { openConnectionUri, parseConnectionUri } from '../../../src-main/connectors/connection-uri';
import type { Connector } from '../../../src-main/connectors/connector';
import { defaultRunLimits, runDecision } from '../../../src-main/engine/decision-run';
import { automaticGate } from '../../../src-main/engine/review-gate';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { runScenariosFor, type ScenarioRun, type ScenarioTrial } from '../../../src-main/whatif/run-scenarios';
import { whatIfModel } from '../dellma/scripted-dellma-model';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import { startMariadb, startPostgres, whyMariadbUnavailable, whyPostgresUnavailable, type TestServer } from '../../servers';
import { mariadbAdmin, postgresAdmin, withDatabase } from '../../servers/admin-sql';
import { describeOrNotRun } from '../../servers/not-run';
import { passwordApart, runDwb } from '../../support/cli';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

/** An option name with quotes, an apostrophe and non-Latin letters, bound as $candidate and stored as a key. */
const odd = 'Zoë\'s "Süd" 北区';

interface Server {
  name: string;
  unavailable: string | null;
  start: () => Promise<TestServer | null>;
  createDatabase: (name: string) => string;
  admin: (uri: string, statements: string[]) => Promise<unknown[][]>;
  /** The server's own checksum of every row of each table, computed on the server. */
  checksums: (uri: string) => Promise<unknown[][]>;
  /** A table of another database on the same server, as a statement would name it. */
  elsewhere: string;
  /** A system table of the server, as a statement would name it. */
  systemTable: string;
  /** The sales table qualified as a statement written for the server may name it. */
  qualifiedSales: string;
}

const tables = ['sales', 'store', 'secret'] as const;

const servers: Server[] = [
  {
    name: 'PostgreSQL',
    unavailable: whyPostgresUnavailable(),
    start: startPostgres,
    createDatabase: (name) => `CREATE DATABASE ${name}`,
    admin: postgresAdmin,
    checksums: (uri) => postgresAdmin(uri, [`SELECT ${tables.map((table) => `(SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) FROM ${table} t)`).join(', ')}`]),
    elsewhere: 'whatif_other.public.vault',
    systemTable: 'pg_catalog.pg_class',
    qualifiedSales: 'public.sales',
  },
  {
    name: 'MariaDB',
    unavailable: whyMariadbUnavailable(),
    start: startMariadb,
    createDatabase: (name) => `CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`,
    admin: mariadbAdmin,
    checksums: (uri) => mariadbAdmin(uri, [`CHECKSUM TABLE ${tables.join(', ')} EXTENDED`]),
    elsewhere: 'whatif_other.vault',
    systemTable: 'mysql.user',
    qualifiedSales: 'whatif_sales.sales',
  },
];

/** Sales per region (qty × price) and which store is open: north 100 × 2, south 80 × 3, the odd one 10 × 5; none open. */
const setup = [
  'CREATE TABLE sales (region varchar(40) PRIMARY KEY, qty numeric(10,2) NOT NULL, price numeric(10,2) NOT NULL)',
  'CREATE TABLE store (region varchar(40) PRIMARY KEY, open int NOT NULL)',
  'CREATE TABLE secret (id int PRIMARY KEY, note varchar(40))',
  `INSERT INTO sales VALUES ('north', 100, 2), ('south', 80, 3), ('${odd.replace(/'/g, "''")}', 10, 5)`,
  `INSERT INTO store VALUES ('north', 0), ('south', 0), ('${odd.replace(/'/g, "''")}', 0)`,
  "INSERT INTO secret VALUES (1, 'untouched')",
];

const openStores = 'SELECT coalesce(sum(s.qty * s.price), 0) FROM sales s JOIN store t ON t.region = s.region WHERE t.open = 1';

const exactOf = (events: RunEvent[]): DellmaExact => dellmaExactSchema.parse(events.flatMap((event) => (event.type === 'tool' && event.tool === 'dellma.exact' ? [event.input] : []))[0]);

for (const server of servers) {
  describeOrNotRun(`what-if scenarios and DeLLMa exact outcomes on ${server.name}`, server.unavailable, () => {
    let running: TestServer | null = null;
    let uri = '';
    const connectors: Connector[] = [];
    const open = async (): Promise<Connector> => {
      const connector = await openConnectionUri(uri);
      connectors.push(connector);
      return connector;
    };

    beforeAll(async () => {
      running = await server.start();
      if (!running) throw new Error(`${server.name} did not start`);
      await server.admin(running.uri, [server.createDatabase('whatif_sales'), server.createDatabase('whatif_other')]);
      uri = withDatabase(running.uri, 'whatif_sales');
      await server.admin(uri, setup);
      await server.admin(withDatabase(running.uri, 'whatif_other'), ['CREATE TABLE vault (id int)', 'INSERT INTO vault VALUES (7)']);
    }, 300_000);

    afterAll(async () => {
      await Promise.all(connectors.map((connector) => connector.close()));
      await running?.stop();
    }, 60_000);

    const scenarios = async (trial: ScenarioTrial): Promise<ScenarioRun> => {
      const sandbox = runScenariosFor(parseConnectionUri(uri), await open());
      if ('unsupported' in sandbox) throw new Error(sandbox.unsupported);
      return sandbox.run(trial);
    };

    it('runs each scenario’s changes in order from the server’s rows, copies only the tables named, and the server’s checksums stay the same', async () => {
      const before = await server.checksums(uri);
      const run = await scenarios({
        changes: [
          { label: 'demand = low', text: 'UPDATE sales SET qty = qty * 0.5' },
          { label: 'demand = high', text: 'UPDATE sales SET qty = qty * 2' },
          { label: 'open the store', text: 'UPDATE store SET open = 1 WHERE region = $candidate' },
        ],
        objective: openStores,
        scenarios: [
          { steps: [0, 2], candidate: 'north' },
          { steps: [1, 2], candidate: 'south' },
          { steps: [2], candidate: odd },
          { steps: [0, 1, 2], candidate: 'south' },
          { steps: [], candidate: 'north' },
        ],
      });
      // north low: 50 × 2; south high: 160 × 3; the odd one as is: 10 × 5; south low then high: 80 × 3; nothing open: 0.
      expect(run.measures).toEqual([
        { before: 0, after: 100, changedRows: 4 },
        { before: 0, after: 480, changedRows: 4 },
        { before: 0, after: 50, changedRows: 1 },
        { before: 0, after: 240, changedRows: 7 },
        { before: 0, after: 0, changedRows: 0 },
      ]);
      expect(run.copiedTables).toEqual([
        { name: 'sales', rows: 3 },
        { name: 'store', rows: 3 },
      ]);
      expect(run.isolation).toBe('process');
      expect(run.sourceDigestAfter).toBe(run.sourceDigestBefore);
      expect(await server.checksums(uri)).toEqual(before);
    });

    it('reaches a copied table by the qualified name the server gives it', async () => {
      const run = await scenarios({
        changes: [{ label: 'demand = high', text: `UPDATE ${server.qualifiedSales} SET qty = qty * 2` }],
        objective: `SELECT sum(qty * price) FROM ${server.qualifiedSales} WHERE region <> $candidate`,
        scenarios: [{ steps: [0], candidate: odd }],
      });
      // north 100 × 2 + south 80 × 3 = 440 as is, 880 doubled.
      expect(run.measures).toEqual([{ before: 440, after: 880, changedRows: 3 }]);
    });

    it('records a scenario whose objective is NULL on its data as failed; an objective that fails on the unchanged data stops the run before any scenario', async () => {
      const changes = [
        { label: 'demand = low', text: 'UPDATE sales SET qty = qty * 0.5' },
        { label: 'demand = high', text: 'UPDATE sales SET qty = qty * 2' },
      ];
      const trial = (objective: string): ScenarioTrial => ({ changes, objective, scenarios: [{ steps: [0], candidate: 'north' }, { steps: [1], candidate: 'north' }] });
      // Revenue of the regions selling more than 90: north alone as is (200), none at low demand, north and south at high (400 + 480).
      expect((await scenarios(trial('SELECT sum(qty * price) FROM sales WHERE qty > 90'))).measures).toEqual([
        { failed: 'the objective must return a finite number; after candidate north it returned NULL' },
        { before: 200, after: 880, changedRows: 3 },
      ]);
      // Text, or three rows, already on the unchanged data: every scenario would fail alike, so none runs.
      const refusal = (objective: string): Promise<string> => scenarios(trial(objective)).then(() => 'ran', (error: unknown) => (error as Error).message);
      expect(await refusal("SELECT 'a lot'")).toBe(
        `the objective fails on the unchanged data, so none of the 2 scenarios was run (objective: SELECT 'a lot'): the objective must return a finite number; before candidate north it returned "a lot"`,
      );
      expect(await refusal('SELECT qty FROM sales')).toBe(
        'the objective fails on the unchanged data, so none of the 2 scenarios was run (objective: SELECT qty FROM sales): the objective must return exactly one number (one row, one column); before candidate north it returned 3 row(s) of 1 column(s)',
      );
    });

    it('refuses, by the change’s label and before any scenario, a change that reaches beyond the copy, changes the schema or holds a second statement', async () => {
      const before = await server.checksums(uri);
      const attempt = async (text: string, objective = openStores): Promise<WorkbenchError> => {
        const failure = await scenarios({ changes: [{ label: '"demand" = "high"', text }], objective, scenarios: [{ steps: [0], candidate: 'north' }] }).then(
          () => null,
          (error: unknown) => error,
        );
        if (!(failure instanceof WorkbenchError)) throw new Error(`not refused with a WorkbenchError: ${text} (${String(failure)})`);
        return failure;
      };
      const notACopy = /^"demand" = "high": DuckDB: (Catalog|Binder) Error: .*does not exist.*\(the sandbox holds copies of the server tables sales, store only; views, system tables and other databases are not copied\)$/s;
      expect((await attempt(`UPDATE ${server.elsewhere} SET id = 8`)).message).toMatch(notACopy);
      expect((await attempt(`DELETE FROM ${server.systemTable}`)).message).toMatch(/^"demand" = "high": DuckDB: (Catalog|Binder) Error/);
      expect((await attempt("UPDATE sales SET qty = (SELECT count(*) FROM read_csv('/etc/hostname'))")).message).toMatch(/^"demand" = "high": DuckDB: Permission Error: .*disabled/s);
      const notAChange = /^"demand" = "high" must be one INSERT, UPDATE or DELETE; queries, COPY, ATTACH, schema changes and transaction control are refused$/;
      for (const text of ['DROP TABLE sales', 'ALTER TABLE sales ADD COLUMN note varchar', 'CREATE TABLE sales_copy AS SELECT * FROM sales', 'COMMIT', 'SELECT * FROM secret']) {
        expect((await attempt(text)).message, text).toMatch(notAChange);
      }
      // Statements that name a file are stopped even earlier, by the sandbox's locked configuration.
      for (const text of ["COPY sales TO '/tmp/dwb-escape.csv'", "ATTACH '/tmp/dwb-escape.duckdb' AS escape"]) {
        expect((await attempt(text)).message, text).toMatch(/^"demand" = "high"(: DuckDB: Permission Error: .*disabled by configuration| must be one INSERT, UPDATE or DELETE)/s);
        expect(existsSync(text.split("'")[1] ?? ''), text).toBe(false);
      }
      expect((await attempt('UPDATE sales SET qty = 0; DELETE FROM secret')).message).toBe('the "demand" = "high" must be a single SQL statement');
      expect((await attempt('UPDATE sales SET qty = 0', 'DELETE FROM sales')).message).toBe('the objective must be a read-only query (SELECT) that returns one number');
      // SQLite's :candidate on server data: DuckDB names parameters $candidate, and the message says so.
      expect((await attempt('UPDATE store SET open = 1 WHERE region = :candidate')).message).toMatch(/^"demand" = "high": DuckDB: (Failed to extract statements: )?Parser Error: syntax error at or near ":".*; write the candidate as \$candidate/s);
      // MySQL's backticks: DuckDB reads double quotes, and the message says so.
      expect((await attempt('UPDATE `sales` SET qty = 0')).message).toMatch(/^"demand" = "high": DuckDB: .*Parser Error: .*; quote names with double quotes, not backticks \(the statements are DuckDB SQL\)$/s);
      expect(await server.checksums(uri)).toEqual(before);
    });

    it('computes a DeLLMa run’s futures × options exactly on the server’s data, says which futures failed there, and the decision stands', async () => {
      const before = await server.checksums(uri);
      const model = await startScriptedOpenAiServer(Array.from({ length: 20 }, () => whatIfModel('north')));
      const connector = await open();
      const decide = async (lines: string[]): Promise<{ events: RunEvent[]; decision: string | null; status: string }> => {
        const events: RunEvent[] = [];
        const outcome = await runDecision({
          question: ['Which region should get the new store?', 'Options: north; south', 'Unknowns: demand', ...lines].join('\n'),
          rules: '',
          technique: 'dellma',
          connector,
          connectionDescription: `sales (${server.name})`,
          provider: createOpenAiProvider({ baseUrl: model.baseUrl, model: 'scripted', requestTimeoutMs: 5000, maxRetries: 0, toolMode: 'tools' }),
          toolMode: 'tools',
          limits: { ...defaultRunLimits, queryTimeoutMs: 10_000 },
          gate: automaticGate,
          emit: (event) => events.push(event),
          scenarios: runScenariosFor(parseConnectionUri(uri), connector),
          techniqueOptions: dellmaRunSettingsSchema.parse({}),
        });
        return { events, decision: outcome.decision, status: outcome.status };
      };
      try {
        const option = 'What-if option: UPDATE store SET open = 1 WHERE region = $candidate';
        const run = await decide(['What-if demand = low: UPDATE sales SET qty = qty * 0.5', 'What-if demand = high: UPDATE sales SET qty = qty * 2', option, `What-if objective: ${openStores}`]);
        expect(model.failures).toEqual([]);
        expect([run.status, run.decision]).toEqual(['answered', 'north']);
        const exact = exactOf(run.events);
        expect(exact.error).toBeNull();
        // north: low 50 × 2 = 100, high 200 × 2 = 400; south: low 40 × 3 = 120, high 160 × 3 = 480; p(low) = 5/9, p(high) = 4/9.
        expect(exact.scenarios.map((scenario) => [scenario.future, scenario.action, scenario.objective, scenario.status])).toEqual([
          ['demand = low', 'north', 100, 'computed'],
          ['demand = low', 'south', 120, 'computed'],
          ['demand = high', 'north', 400, 'computed'],
          ['demand = high', 'south', 480, 'computed'],
        ]);
        expect(exact.rows.map((row) => row.expected)).toEqual([expect.closeTo(2100 / 9, 9), expect.closeTo(2520 / 9, 9)]);
        expect([exact.exactBest, exact.agrees, exact.isolation]).toEqual(['south', false, 'process']);
        expect(exact.sourceDigestAfter).toBe(exact.sourceDigestBefore);

        // A change that fails on the high-demand futures only: 200 × 30 000 000 overflows a 32-bit integer, 50 × 30 000 000 does not.
        const failing = await decide(['What-if demand = low: UPDATE sales SET qty = CAST(qty * 15000000 AS INTEGER) / 15000000 * 0.5', 'What-if demand = high: UPDATE sales SET qty = CAST(qty * 2 * 15000000 AS INTEGER) / 15000000', option, `What-if objective: ${openStores}`]);
        expect([failing.status, failing.decision]).toEqual(['answered', 'north']);
        const partial = exactOf(failing.events);
        expect(partial.error).toBeNull();
        expect(partial.scenarios.map((scenario) => [scenario.future, scenario.action, scenario.objective, scenario.status])).toEqual([
          ['demand = low', 'north', 100, 'computed'],
          ['demand = low', 'south', 120, 'computed'],
          ['demand = high', 'north', null, 'failed'],
          ['demand = high', 'south', null, 'failed'],
        ]);
        expect(partial.scenarios[2]?.reason).toMatch(/^"demand" = "high" for candidate north: DuckDB: (Conversion|Out of Range) Error: .*INT32/s);
        expect(partial.rows.map((row) => [row.expected, row.coverage])).toEqual([
          [expect.closeTo(100, 9), expect.closeTo(5 / 9, 12)],
          [expect.closeTo(120, 9), expect.closeTo(5 / 9, 12)],
        ]);
        expect(partial.agrees).toBeNull();
        const text = failing.events.find((event) => event.type === 'tool' && event.tool === 'dellma.exact');
        expect(text?.type === 'tool' && text.output).toContain("2 failed (see each one's reason)");
        expect(text?.type === 'tool' && text.output).toContain("not compared with DeLLMa's decision (2 future × option failed in the sandbox, so the options are not weighed over the same futures)");
      } finally {
        await model.close();
      }
      expect(await server.checksums(uri)).toEqual(before);
    });

    it('runs from the command line: `dwb run --technique dellma --connection <server URL>` records the exact outcomes', async () => {
      const before = await server.checksums(uri);
      const model = await startScriptedOpenAiServer(Array.from({ length: 10 }, () => whatIfModel('north')));
      try {
        const dir = tempDir();
        const questionFile = join(dir, 'question.txt');
        writeFileSync(
          questionFile,
          [
            'Which region should get the new store?',
            'Options: north; south',
            'Unknowns: demand',
            'What-if demand = low: UPDATE sales SET qty = qty * 0.5',
            'What-if demand = high: UPDATE sales SET qty = qty * 2',
            'What-if option: UPDATE store SET open = 1 WHERE region = $candidate',
            `What-if objective: ${openStores}`,
          ].join('\n'),
        );
        const out = tempDir();
        const server = passwordApart(uri);
        const result = await runDwb(['run', '--technique', 'dellma', '--samples', '8', '--connection', server.uri, '--question-file', questionFile, '--base-url', model.baseUrl, '--model', 'scripted', '--out', out], { env: server.env });
        expect(model.failures).toEqual([]);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout.trim().split('\n').at(-1)).toBe('decision: north');
        const events = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { event: RunEvent }).event);
        const exact = exactOf(events);
        // Both futures are drawn (seeded), each × each option computed on the server's rows.
        const value = { 'demand = low': { north: 100, south: 120 }, 'demand = high': { north: 400, south: 480 } } as Record<string, Record<string, number>>;
        expect(exact.error).toBeNull();
        expect(exact.scenarios.map((scenario) => scenario.status)).toEqual(['computed', 'computed', 'computed', 'computed']);
        for (const scenario of exact.scenarios) expect(scenario.objective, `${scenario.future} × ${scenario.action}`).toBe(value[scenario.future]?.[scenario.action]);
        expect(exact.isolation).toBe('process');
      } finally {
        await model.close();
      }
      expect(await server.checksums(uri)).toEqual(before);
    });
  });
}
