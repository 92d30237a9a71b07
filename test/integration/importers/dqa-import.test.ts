import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runDqaCommand } from '../../../src-main/cli/dqa-command';
import { runDqaImportCommand } from '../../../src-main/cli/dqa-import-command';
import { loadLocatingFromConnector } from '../../../src-main/dqa/from-connector';
import { openConnectionUri } from '../../../src-main/connectors/connection-uri';
import type { Connector } from '../../../src-main/connectors/connector';
import { loadBuildingDump, loadLocatingDump } from '../../../src-main/dqa/load';
import { dqaRoot } from '../../support/fixtures';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { withPasswordApart } from '../../support/cli';
import { startMariadb, startNeo4j, startPostgres, whyMariadbUnavailable, whyNeo4jUnavailable, whyPostgresUnavailable, type TestServer } from '../../servers';
import { describeOrNotRun } from '../../servers/not-run';
import {
  aggregatesFrom,
  buildingDemand,
  buildingSupply,
  locatingInflow,
  locatingProfit,
  maxRelativeDifference,
  referenceBuilding,
  referenceLocating,
  type Aggregates,
  type Analysis,
} from './aggregates';

/**
 * `dwb dqa import` into every kind of target, then the issue's cross-engine agreement: the
 * same aggregates computed by SQLite, DuckDB, PostgreSQL, MariaDB (relational dumps) and Neo4j,
 * Kùzu (graph dumps) against the parsed dumps, on the whole dev subset.
 */

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
const questionsFiles = ['locating', 'building'].map((scenario) => join(dqaRoot(), scenario, 'questions.json'));

interface Engine {
  name: string;
  kind: 'relational' | 'graph';
  unavailable: string | null;
  /** The import target. */
  target: () => string;
  /** The read-only URI of one imported dump, and the `_dump` filter where dumps share a database. */
  open: (dump: string) => { uri: string; dump: string | null };
}

const servers: { postgres: TestServer | null; mariadb: TestServer | null; neo4j: TestServer | null } = { postgres: null, mariadb: null, neo4j: null };
const folder = (name: string): string => join(suiteDir(), name);
const withDatabase = (uri: string, database: string): string => {
  const url = new URL(uri);
  url.pathname = `/${database}`;
  return url.toString();
};
const neo4jUri = (server: TestServer | null): string => server?.uri.replace('bolt://', `bolt://${server.username}:${server.password}@`) ?? '';

const engines: Engine[] = [
  { name: 'SQLite', kind: 'relational', unavailable: null, target: () => `sqlite:${folder('sqlite')}`, open: (dump) => ({ uri: `sqlite:${folder('sqlite')}/${dump}.sqlite`, dump: null }) },
  { name: 'DuckDB', kind: 'relational', unavailable: null, target: () => `duckdb:${folder('duckdb')}`, open: (dump) => ({ uri: `duckdb:${folder('duckdb')}/${dump}.duckdb`, dump: null }) },
  {
    name: 'PostgreSQL',
    kind: 'relational',
    unavailable: whyPostgresUnavailable(),
    target: () => servers.postgres?.uri ?? '',
    open: (dump) => ({ uri: withDatabase(servers.postgres?.uri ?? '', dump), dump: null }),
  },
  {
    name: 'MariaDB',
    kind: 'relational',
    unavailable: whyMariadbUnavailable(),
    // The import writes, so it logs in as the privileged login; the reads go through the read-only one.
    target: () => servers.mariadb?.adminUri ?? '',
    open: (dump) => ({ uri: withDatabase(servers.mariadb?.uri ?? '', dump), dump: null }),
  },
  { name: 'LadybugDB', kind: 'graph', unavailable: null, target: () => `kuzu:${folder('kuzu')}`, open: (dump) => ({ uri: `kuzu:${folder('kuzu')}/${dump}.lbug`, dump: null }) },
  { name: 'Neo4j', kind: 'graph', unavailable: whyNeo4jUnavailable(), target: () => neo4jUri(servers.neo4j), open: (dump) => ({ uri: neo4jUri(servers.neo4j), dump }) },
];

/** Runs the command as the CLI would and keeps what it printed. */
async function importInto(target: string, questions: string[] = questionsFiles): Promise<{ code: number; stdout: string[]; stderr: string[] }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  // The CLI refuses a password in argv: the servers' go through DWB_DB_PASSWORD, as a user's would.
  const code = await withPasswordApart(target, (bare) =>
    runDqaImportCommand([...questions.flatMap((path) => ['--questions', path]), '--target', bare], {
      stdout: (line) => stdout.push(line),
      stderr: (line) => stderr.push(line),
    }),
  );
  return { code, stdout, stderr };
}

const firstImports = new Map<string, { code: number; stdout: string[]; stderr: string[]; ms: number }>();

beforeAll(async () => {
  const [postgres, mariadb, neo4j] = await Promise.all([
    whyPostgresUnavailable() === null ? startPostgres() : null,
    whyMariadbUnavailable() === null ? startMariadb() : null,
    whyNeo4jUnavailable() === null ? startNeo4j() : null,
  ]);
  Object.assign(servers, { postgres, mariadb, neo4j });
  for (const engine of engines.filter((candidate) => candidate.unavailable === null)) {
    const started = Date.now();
    firstImports.set(engine.name, { ...(await importInto(engine.target())), ms: Date.now() - started });
  }
}, 600_000);

afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server?.stop()));
}, 60_000);

/** Question pairs (relational dump, graph dump) of a scenario, each once. */
function dumpPairs(scenario: 'locating' | 'building'): { rdb: string; gdb: string }[] {
  const questions = JSON.parse(readFileSync(join(dqaRoot(), scenario, 'questions.json'), 'utf8')) as { rdb: string; gdb: string }[];
  const seen = new Map<string, { rdb: string; gdb: string }>();
  for (const { rdb, gdb } of questions) seen.set(`${rdb}|${gdb}`, { rdb, gdb });
  return [...seen.values()];
}

const dumpName = (reference: string): string => reference.replace(/^.*\//, '').replace(/\.(sql|cql)$/, '');

/** Worst relative difference per engine and analysis, printed at the end for the record. */
const worst = new Map<string, number>();
afterAll(() => {
  if (worst.size > 0) console.log(`[cross-engine] largest relative difference from the parsed dumps:\n${[...worst].map(([key, value]) => `  ${key}: ${value.toExponential(2)}`).join('\n')}`);
});

async function compare(engine: Engine, reference: Aggregates, analysis: Analysis, dump: string): Promise<void> {
  const { uri, dump: filter } = engine.open(dump);
  const connector: Connector = await openConnectionUri(uri);
  try {
    const actual = await aggregatesFrom(connector, analysis, filter);
    const difference = maxRelativeDifference(reference, actual);
    const key = `${engine.name} ${analysis.name}`;
    worst.set(key, Math.max(worst.get(key) ?? 0, difference));
    // Sums in another order than the dump's may differ in the last bit or two (1e-16 relative).
    expect(difference, `${key} on ${dump}`).toBeLessThan(1e-12);
  } finally {
    await connector.close();
  }
}

for (const engine of engines) {
  describeOrNotRun(`dwb dqa import into ${engine.name}`, engine.unavailable, () => {
    it('imports every dump of its kind and prints what it created with counts', () => {
      const first = firstImports.get(engine.name);
      expect(first?.code).toBe(0);
      const expected = engine.kind === 'relational' ? 16 : 18;
      expect(first?.stdout.filter((line) => line.startsWith('created '))).toHaveLength(expected);
      expect(first?.stdout.at(-1)).toMatch(new RegExp(`^${expected} created, 0 replaced, 0 unchanged`));
      const usa = first?.stdout.find((line) => line.includes('USA1836'));
      expect(usa).toContain(engine.kind === 'relational' ? 'goods 52, building 251, supply 445, demand 260' : ':Goods 52, :Building 251, [:Demand] 260, [:Supply] 445');
      console.log(`[dqa import] ${engine.name}: ${expected} dumps in ${first?.ms} ms`);
    });

    it('skips identical dumps on a second import', async () => {
      const again = await importInto(engine.target());
      expect(again.code).toBe(0);
      expect(again.stdout.filter((line) => line.startsWith('unchanged '))).toHaveLength(engine.kind === 'relational' ? 16 : 18);
    }, 120_000);

    for (const scenario of ['locating', 'building'] as const) {
      it(`agrees with the parsed dumps on the ${scenario} aggregates`, async () => {
        for (const pair of dumpPairs(scenario)) {
          const reference = engine.kind === 'relational' ? pair.rdb : pair.gdb;
          const text = readFileSync(join(dqaRoot(), scenario, reference), 'utf8');
          // The reference is always the relational dump: graph engines must match it too.
          const relational = readFileSync(join(dqaRoot(), scenario, pair.rdb), 'utf8');
          if (scenario === 'locating') {
            const expected = referenceLocating(loadLocatingDump(relational, 'relational'));
            expect(referenceLocating(loadLocatingDump(text, engine.kind))).toEqual(expected);
            await compare(engine, expected.profit, locatingProfit, dumpName(reference));
            await compare(engine, expected.inflow, locatingInflow, dumpName(reference));
          } else {
            const expected = referenceBuilding(loadBuildingDump(relational, 'relational'));
            await compare(engine, expected.demand, buildingDemand, dumpName(reference));
            await compare(engine, expected.supply, buildingSupply, dumpName(reference));
          }
        }
      }, 300_000);
    }
  });
}

describeOrNotRun('dwb dqa solve on what was imported into Neo4j (all dumps in one database)', whyNeo4jUnavailable(), () => {
  it('reads each question\'s own dump by its _dump tag and reaches the compat accuracy', async () => {
    for (const [scenario, total] of [['locating', 81], ['building', 36]] as const) {
      const stdout: string[] = [];
      const code = await withPasswordApart(neo4jUri(servers.neo4j), (bare) =>
        runDqaCommand(['solve', '--questions', join(dqaRoot(), scenario, 'questions.json'), '--engine', 'simulator', '--rules', 'compat', '--db', 'gdb', '--target', bare], {
          stdout: (line) => stdout.push(line),
          stderr: () => undefined,
        }),
      );
      expect(code).toBe(0);
      expect(stdout.join("\n")).toContain(`accuracy: ${total}/${total}`);
    }
  }, 300_000);

  it('refuses to read a database holding several dumps as one dataset', async () => {
    const connector = await openConnectionUri(neo4jUri(servers.neo4j));
    try {
      await expect(loadLocatingFromConnector(connector, 'neo4j')).rejects.toThrow(/neo4j holds \d+ imported DQA dumps \(.*\); read one at a time by naming its dump/);
      await expect(loadLocatingFromConnector(connector, 'neo4j', 'locating-0000-missing')).rejects.toThrow("no nodes tagged _dump = 'locating-0000-missing'");
    } finally {
      await connector.close();
    }
  });
});

describe('dwb dqa import: re-import of a changed dump, and places it did not make', () => {
  /** A one-question scenario over copies of the CHL1836 dumps, named CHL1836-edited. */
  function editableScenario(): { questions: string; sql: string; cql: string } {
    const dir = tempDir();
    mkdirSync(join(dir, 'db'));
    const sql = join(dir, 'db', 'CHL1836-edited.sql');
    const cql = join(dir, 'db', 'CHL1836-edited.cql');
    cpSync(join(dqaRoot(), 'building', 'db', 'CHL1836.sql'), sql);
    cpSync(join(dqaRoot(), 'building', 'db', 'CHL1836.cql'), cql);
    const questions = join(dir, 'questions.json');
    writeFileSync(questions, JSON.stringify([{ id: 'q', rdb: 'db/CHL1836-edited.sql', gdb: 'db/CHL1836-edited.cql' }]));
    return { questions, sql, cql };
  }

  /** Drops the last goods row / node, so the re-import has one goods fewer. */
  function dropLastGoods(paths: { sql: string; cql: string }): void {
    const sql = readFileSync(paths.sql, 'utf8').split('\n');
    const lastGoods = sql.map((line) => /^INSERT INTO goods/i.test(line)).lastIndexOf(true);
    writeFileSync(paths.sql, sql.filter((_, index) => index !== lastGoods).join('\n'));
    const cql = readFileSync(paths.cql, 'utf8').split('\n');
    const unused = cql.map((line) => /^CREATE \(\w+:\s*Goods\b/.test(line)).lastIndexOf(true);
    const code = /code:\s*(\d+)/.exec(cql[unused] ?? '')?.[1] ?? '';
    // Only a goods no relationship mentions can go without breaking the dump's MATCHes.
    if (cql.some((line) => new RegExp(`Goods\\s*\\{code:\\s*${code}\\}`).test(line))) throw new Error(`goods ${code} is referenced`);
    writeFileSync(paths.cql, cql.filter((_, index) => index !== unused).join('\n'));
  }

  for (const engine of engines) {
    const available = engine.unavailable === null ? null : engine.unavailable;
    describeOrNotRun(engine.name, available, () => {
      it('replaces an earlier import of a dump that changed', async () => {
        const scenario = editableScenario();
        const first = await importInto(engine.target(), [scenario.questions]);
        expect(first.stdout[0]).toMatch(/^created /);
        dropLastGoods(scenario);
        const second = await importInto(engine.target(), [scenario.questions]);
        expect(second.stdout[0]).toMatch(/^replaced /);
        expect(second.stdout[0]).toContain(engine.kind === 'relational' ? 'goods 51,' : ':Goods 51,');
        const { uri, dump } = engine.open('CHL1836-edited');
        const connector = await openConnectionUri(uri);
        try {
          const text = engine.kind === 'relational' ? 'SELECT count(*) FROM goods' : `MATCH (g:Goods ${dump === null ? '' : '{_dump: $dump}'}) RETURN count(g)`;
          const result = await connector.query(text, { maxRows: 1, timeoutMs: 30_000, ...(dump === null ? {} : { params: { dump } }) });
          expect(Number(result.rows[0]?.[0])).toBe(51);
        } finally {
          await connector.close();
        }
      }, 120_000);
    });
  }

  it('refuses to overwrite a SQLite file it did not make', async () => {
    const dir = tempDir();
    const database = new Database(join(dir, 'USA1836.sqlite'));
    database.exec('CREATE TABLE mine (x)');
    database.close();
    await expect(importInto(`sqlite:${dir}`, [questionsFiles[1] as string])).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('exists but was not made by "dwb dqa import"'),
    });
  });

  describeOrNotRun('PostgreSQL', whyPostgresUnavailable(), () => {
    it('refuses to replace the tables of a database it did not make', async () => {
      const uri = servers.postgres?.uri ?? '';
      const admin = new pg.Client({ connectionString: uri });
      await admin.connect();
      await admin.query('CREATE DATABASE "GRE1836-mine"');
      await admin.end();
      const mine = new pg.Client({ connectionString: withDatabase(uri, 'GRE1836-mine') });
      await mine.connect();
      await mine.query('CREATE TABLE goods (id int)');
      await mine.end();
      const dir = tempDir();
      mkdirSync(join(dir, 'db'));
      cpSync(join(dqaRoot(), 'building', 'db', 'GRE1836.sql'), join(dir, 'db', 'GRE1836-mine.sql'));
      writeFileSync(join(dir, 'questions.json'), JSON.stringify([{ rdb: 'db/GRE1836-mine.sql' }]));
      await expect(importInto(uri, [join(dir, 'questions.json')])).rejects.toMatchObject({ code: 'conflict' });
    });
  });

  it('says which dumps are missing and what a target must look like', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'questions.json'), JSON.stringify([{ rdb: 'db/nope.sql', gdb: 'db/nope.cql' }]));
    await expect(importInto(`sqlite:${dir}`, [join(dir, 'questions.json')])).rejects.toMatchObject({ code: 'not-found', message: expect.stringContaining('db/nope.sql, db/nope.cql') });
    await expect(importInto('oracle://x', questionsFiles)).rejects.toMatchObject({ code: 'invalid-uri' });
    await expect(runDqaImportCommand(['--target', 'sqlite:/tmp/x'], { stdout: () => undefined, stderr: () => undefined })).rejects.toMatchObject({ code: 'invalid-request' });
  });
});
