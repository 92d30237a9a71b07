/**
 * The DQA dev subset read THROUGH THE CONNECTORS: every relational dump imported into SQLite
 * and every graph dump imported into Kùzu, read back with the loaders of from-connector.ts,
 * must give exactly the data the dump parsers give (so ties and float sums are the same) and
 * the same accuracies: compat 81/81 and 36/36, stated 61/81 and 20/36, on both kinds.
 * Each scenario/kind is loaded once and shared by both rule sets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dqaRoot, readDumpText } from '../../../src-main/dqa/dataset';
import { loadBuildingDump, loadLocatingDump } from '../../../src-main/dqa/load';
import { prepareScenario } from '../../../src-main/dqa/prepared-scenario';
import { readQuestionSet, type QuestionSet } from '../../../src-main/dqa/question-file';
import { importingDatabases, type DbKind, type ScenarioDatabases } from '../../../src-main/dqa/scenario-databases';
import { solveQuestionSet, type SolveRun } from '../../../src-main/dqa/solve-questions';
import type { DqaScenario } from '../../../src-main/dqa/dataset';
import { join } from 'node:path';

const root = dqaRoot();
const combos: { scenario: DqaScenario; db: DbKind }[] = [
  { scenario: 'locating', db: 'rdb' },
  { scenario: 'locating', db: 'gdb' },
  { scenario: 'building', db: 'rdb' },
  { scenario: 'building', db: 'gdb' },
];

interface Loaded {
  set: QuestionSet;
  databases: ScenarioDatabases;
  compat: SolveRun;
  stated: SolveRun;
}
const loaded = new Map<string, Loaded>();
const key = (scenario: DqaScenario, db: DbKind): string => `${scenario}/${db}`;

beforeAll(async () => {
  for (const { scenario, db } of combos) {
    const set = readQuestionSet(join(root, scenario, 'questions.json'));
    const databases = importingDatabases({ scenario, db, baseDir: set.baseDir });
    const compat = await solveQuestionSet(set, { rules: 'compat', db, databases });
    const stated = await solveQuestionSet(set, { rules: 'stated', db, databases });
    loaded.set(key(scenario, db), { set, databases, compat, stated });
  }
}, 300_000);

afterAll(async () => {
  for (const { databases } of loaded.values()) await databases.close();
});

const expected: Record<DqaScenario, { total: number; compat: number; stated: number; statedWithTies: number }> = {
  locating: { total: 81, compat: 81, stated: 61, statedWithTies: 61 },
  building: { total: 36, compat: 36, stated: 20, statedWithTies: 21 },
};

describe.each(combos)('$scenario dev subset, --db $db, through the connectors', ({ scenario, db }) => {
  it('reads every dump through a real engine (SQLite for rdb, Kùzu for gdb) into exactly the dump parser\'s data', async () => {
    const { set, databases, compat } = loaded.get(key(scenario, db)) as Loaded;
    const dumps = [...new Set(compat.verdicts.map((v) => v.database))];
    for (const dump of dumps) {
      const database = await databases.load(dump);
      expect(database.via).toMatch(db === 'rdb' ? /^sqlite \(imported from / : /^ladybug \(imported from /);
      expect(database.warnings).toEqual([]);
      const text = readDumpText(root, set.scenario, dump);
      const kind = db === 'rdb' ? 'relational' : 'graph';
      const fromDump = scenario === 'locating' ? prepareScenario('locating', loadLocatingDump(text, kind, dump)) : prepareScenario('building', loadBuildingDump(text, kind, dump));
      expect(database.prepared).toEqual(fromDump);
    }
  });

  it(`compat reproduces every annotation`, () => {
    const run = (loaded.get(key(scenario, db)) as Loaded).compat;
    expect(run.verdicts.filter((v) => !v.agrees).map((v) => `${v.id}: ${v.decision} vs ${v.annotation}`)).toEqual([]);
    expect([run.correct, run.correctWithTies, run.total]).toEqual([expected[scenario].compat, expected[scenario].compat, expected[scenario].total]);
  });

  it('stated agrees as measured (reasons in docs/simulators.md)', () => {
    const run = (loaded.get(key(scenario, db)) as Loaded).stated;
    expect([run.correct, run.correctWithTies, run.total]).toEqual([expected[scenario].stated, expected[scenario].statedWithTies, expected[scenario].total]);
  });
});
