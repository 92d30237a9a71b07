import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openConnectionUri, parseConnectionUri } from '../../../src-main/connectors/connection-uri';
import type { Connector } from '../../../src-main/connectors/connector';
import { runWhatIf, runWhatIfOnConnection, type WhatIfSpec } from '../../../src-main/whatif';
import { serverTablesSource } from '../../../src-main/whatif/server-snapshot';
import { runWhatIfOnSource } from '../../../src-main/whatif/run-whatif';
import { defaultRunLimits, runDecision } from '../../../src-main/engine/decision-run';
import { automaticGate } from '../../../src-main/engine/review-gate';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { runWhatIfFor } from '../../../src-main/whatif';
import type { RunEvent } from '../../../src-main/contract/run';
import { messageText, startScriptedOpenAiServer } from '../../support/scripted-openai';
import { fileHash, repoRoot, sqliteFromDqaDump } from '../../support/fixtures';
import { passwordApart, runDwb } from '../../support/cli';
import { useSuiteTempDir } from '../../support/temp';
import { startMariadb, startPostgres, whyMariadbUnavailable, whyPostgresUnavailable, type TestServer } from '../../servers';
import { mariadbAdmin, postgresAdmin, withDatabase } from '../../servers/admin-sql';
import { importRelationalDump } from '../../servers/import-dump';
import { describeOrNotRun } from '../../servers/not-run';

/**
 * What-if on database servers: the tables an experiment names are read through the read-only
 * connector into a local DuckDB sandbox. The ranking must be the one the same experiment gives
 * on a SQLite copy of the same data, and the server's rows must be as they were.
 */

const suiteDir = useSuiteTempDir();
const demoDump = join(repoRoot, 'resources', 'demo', 'building-USA1836.sql');

// Expanding a building 5 levels, with output in proportion to level: which adds the most grain (goods 7)?
const grain = {
  sqliteChange: 'UPDATE supply SET current_output = current_output * (level + 5.0) / level WHERE building_id = :candidate AND goods_id = 7',
  duckdbChange: 'UPDATE supply SET current_output = current_output * (level + 5.0) / level WHERE building_id = $candidate AND goods_id = 7',
  objective: 'SELECT sum(current_output) FROM supply WHERE goods_id = 7',
  candidatesQuery: 'SELECT building_id FROM supply WHERE goods_id = 7 ORDER BY building_id',
};

/** Typed values whose exactness the copy must keep: a bigint past 2^53, decimals, dates, timestamps, booleans, codes. */
const ledgerRows = [
  [1, '007', '12.50', '2024-03-01', '2024-03-01 09:00:00', true, '9007199254740993'],
  [2, '7', '0.10', '2024-02-28', '2024-02-28 23:59:59', true, '9007199254740993'],
  [3, '008', '99.99', '2024-05-31', '2024-05-31 12:00:00', false, '9007199254740993'],
  [4, '009', '1.25', '2024-04-15', '2024-06-01 00:00:00', true, '9007199254740992'],
] as const;

interface Server {
  name: string;
  unavailable: string | null;
  start: () => Promise<TestServer | null>;
  ledgerDdl: string;
  /** Runs admin SQL (outside the workbench's read-only connectors) on `database`. */
  admin: (uri: string, statements: string[]) => Promise<unknown[][]>;
}

const servers: Server[] = [
  {
    name: 'PostgreSQL',
    unavailable: whyPostgresUnavailable(),
    start: startPostgres,
    ledgerDdl: 'CREATE TABLE ledger (id integer PRIMARY KEY, code varchar(10), amount numeric(12,2), day date, posted timestamp, flag boolean, big bigint)',
    admin: postgresAdmin,
  },
  {
    name: 'MariaDB',
    unavailable: whyMariadbUnavailable(),
    start: startMariadb,
    ledgerDdl: 'CREATE TABLE ledger (id int PRIMARY KEY, code varchar(10), amount decimal(12,2), day date, posted datetime, flag boolean, big bigint)',
    admin: mariadbAdmin,
  },
];

const literal = (value: string | number | boolean): string => (typeof value === 'string' ? `'${value}'` : String(value));

for (const server of servers) {
  describeOrNotRun(`what-if on ${server.name}`, server.unavailable, () => {
    let running: TestServer | null = null;
    let buildingUri = '';
    let ledgerUri = '';
    const connectors: Connector[] = [];
    const open = async (uri: string): Promise<Connector> => {
      const connector = await openConnectionUri(uri);
      connectors.push(connector);
      return connector;
    };

    beforeAll(async () => {
      running = await server.start();
      if (!running) throw new Error(`${server.name} did not start`);
      buildingUri = await importRelationalDump(running.uri, demoDump);
      await server.admin(running.uri, ['CREATE DATABASE whatif_ledger']);
      ledgerUri = withDatabase(running.uri, 'whatif_ledger');
      const values = ledgerRows.map((row) => `(${row.map(literal).join(', ')})`).join(', ');
      await server.admin(ledgerUri, [server.ledgerDdl, `INSERT INTO ledger VALUES ${values}`, 'CREATE TABLE unrelated (id int)', 'INSERT INTO unrelated VALUES (1), (2)']);
    }, 300_000);

    afterAll(async () => {
      await Promise.all(connectors.map((connector) => connector.close()));
      await running?.stop();
    }, 60_000);

    const serverState = (): Promise<unknown[][]> =>
      server.admin(buildingUri, ['SELECT count(*), sum(current_output), sum(level) FROM supply']);

    it('ranks the demo’s building expansions exactly as on a SQLite copy, copying only the table named, and the server keeps its rows', async () => {
      const connector = await open(buildingUri);
      const stateBefore = await serverState();
      const spec: WhatIfSpec = { change: grain.duckdbChange, objective: grain.objective, candidatesQuery: grain.candidatesQuery, direction: 'maximize', tolerance: 1e-9, timeoutMs: 10_000 };
      const onServer = await runWhatIfOnConnection(parseConnectionUri(buildingUri), connector, spec);

      const sqlitePath = sqliteFromDqaDump('building/db/USA1836.sql', suiteDir());
      const sqliteHash = fileHash(sqlitePath);
      const onSqlite = await runWhatIf({ source: sqlitePath, candidates: onServer.rows.map((row) => row.candidate).sort((a, b) => Number(a) - Number(b)), change: grain.sqliteChange, objective: grain.objective });
      expect(fileHash(sqlitePath)).toBe(sqliteHash);

      expect(onServer.rows.length).toBeGreaterThan(5);
      expect(onServer.best).toBe(onSqlite.best);
      expect(onServer.tied).toEqual(onSqlite.tied);
      expect(onServer.rows.map((row) => [row.candidate, row.rank, row.changedRows])).toEqual(onSqlite.rows.map((row) => [row.candidate, row.rank, row.changedRows]));
      for (const [index, row] of onServer.rows.entries()) expect(row.delta).toBeCloseTo(onSqlite.rows[index]?.delta ?? NaN, 9);

      const [supplyCount] = (await server.admin(buildingUri, ['SELECT count(*) FROM supply']))[0] ?? [];
      expect(onServer.copiedTables).toEqual([{ name: 'supply', rows: Number(supplyCount) }]);
      expect(onServer.sourceDigestAfter).toBe(onServer.sourceDigestBefore);
      expect(onServer.isolation).toBe('process');
      expect(await serverState()).toEqual(stateBefore);
    });

    it('keeps big integers, decimals, dates, timestamps and booleans exact in the copy', async () => {
      const connector = await open(ledgerUri);
      // Only rows dated from March, flagged, before June and with the big value past 2^53 count: ids 1 and 4 are left out by `big` and `posted`.
      const objective = "SELECT sum(amount) FROM ledger WHERE day >= DATE '2024-03-01' AND flag AND posted < TIMESTAMP '2024-06-01 00:00:00' AND big > 9007199254740992";
      const result = await runWhatIfOnConnection(parseConnectionUri(ledgerUri), connector, {
        candidates: ['007', '7', '008'],
        change: 'UPDATE ledger SET amount = amount + 0.01 WHERE code = $candidate',
        objective,
        direction: 'maximize',
        tolerance: 1e-9,
        timeoutMs: 10_000,
      });
      // Only ledger row 1 (code 007) meets every condition; 7 is dated February, 008 is not flagged.
      expect(result.rows.map((row) => [row.candidate, row.before, row.after, row.rank])).toEqual([
        ['007', 12.5, 12.51, 1],
        ['7', 12.5, 12.5, 2],
        ['008', 12.5, 12.5, 2],
      ]);
      expect(result.copiedTables).toEqual([{ name: 'ledger', rows: 4 }]);
      const rows = await server.admin(ledgerUri, ['SELECT sum(amount), count(*) FROM ledger']);
      expect(rows.map((row) => row.map(String))).toEqual([['113.84', '4']]);
    });

    it('says what is wrong with an experiment it cannot run, and with one too large to copy', async () => {
      const connector = await open(ledgerUri);
      const target = parseConnectionUri(ledgerUri);
      const base = { direction: 'maximize' as const, tolerance: 1e-9, timeoutMs: 10_000, candidates: [1] };
      await expect(runWhatIfOnConnection(target, connector, { ...base, change: 'UPDATE nothing_here SET x = $candidate', objective: 'SELECT 1' })).rejects.toThrow(
        /name none of the tables of this database \(views are not copied\)/,
      );
      await expect(runWhatIfOnConnection(target, connector, { ...base, change: 'UPDATE ledger SET amount = 0 WHERE id = :candidate', objective: 'SELECT sum(amount) FROM ledger' })).rejects.toThrow(
        /DuckDB/,
      );
      const source = await serverTablesSource(target.engine === 'postgres' ? 'postgres' : 'mysql', connector, ['UPDATE ledger SET amount = 0 WHERE id = $candidate', 'SELECT count(*) FROM unrelated'], { maxRows: 5 });
      await expect(runWhatIfOnSource(source, { ...base, change: 'UPDATE ledger SET amount = 0 WHERE id = $candidate', objective: 'SELECT count(*) FROM unrelated' })).rejects.toThrow(
        /\(ledger, unrelated\) hold more than 5 rows/,
      );
    });

    it('is offered to the model in a decision run, whose prompt says to write DuckDB SQL with $candidate', async () => {
      const connector = await open(ledgerUri);
      const target = parseConnectionUri(ledgerUri);
      const whatIf = runWhatIfFor(target, connector, true);
      if (!whatIf) throw new Error('what-if not offered');
      const model = await startScriptedOpenAiServer([
        {
          expectTools: ['query', 'whatif', 'answer'],
          expect: (request) => {
            const system = messageText(request.chat.messages[0] ?? { role: 'system', content: '' });
            if (!system.includes('# What-if experiments\nThe experiment runs in DuckDB on a local copy')) return `system prompt lacks the what-if note: ${system}`;
            return undefined;
          },
          toolCalls: [{ name: 'whatif', arguments: { change: 'UPDATE ledger SET amount = amount * 2 WHERE id = $candidate', objective: 'SELECT sum(amount) FROM ledger', candidatesQuery: 'SELECT id FROM ledger ORDER BY id' } }],
        },
        { expectToolResultContains: ['what-if on a throwaway copy', 'best: 3'], toolCalls: [{ name: 'answer', arguments: { decision: '3', rationale: 'Doubling ledger row 3 adds the most.' } }] },
      ]);
      try {
        const events: RunEvent[] = [];
        const outcome = await runDecision({
          question: 'Which ledger row should be doubled?',
          rules: 'A larger total is better.',
          technique: 'iterrag',
          connector,
          connectionDescription: `ledger (${server.name})`,
          provider: createOpenAiProvider({ baseUrl: model.baseUrl, model: 'scripted', requestTimeoutMs: 10_000, maxRetries: 0, toolMode: 'tools' }),
          toolMode: 'tools',
          limits: { ...defaultRunLimits, queryTimeoutMs: 10_000 },
          gate: automaticGate,
          emit: (event) => events.push(event),
          whatIf,
        });
        expect(model.failures).toEqual([]);
        expect(outcome).toMatchObject({ status: 'answered', decision: '3' });
        const experiment = events.find((event) => event.type === 'whatif');
        expect(experiment?.type === 'whatif' && experiment.result?.copiedTables).toEqual([{ name: 'ledger', rows: 4 }]);
      } finally {
        await model.close();
      }
    });

    it('runs from the command line: `dwb whatif --connection <server URL>`', async () => {
      const ledger = passwordApart(ledgerUri);
      const result = await runDwb(['whatif', '--connection', ledger.uri, '--change', 'UPDATE ledger SET amount = amount * 2 WHERE id = $candidate', '--objective', 'SELECT sum(amount) FROM ledger', '--candidates', '1,2,3,4'], { env: ledger.env });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/best: 3 \(maximize; margin 87\.4[89]\d*\)/);
      expect(result.stderr).toContain('copied from the server into a local DuckDB sandbox: ledger (4 rows)');
      expect(result.stderr).toMatch(/source unchanged: sha256:[0-9a-f]{64} \(rows read from the server\)/);
    });
  });
}
