/**
 * The compat simulators reuse work: Locating resumes each candidate's pass from the
 * no-merchant pass instead of simulating it from scratch, and the Building questions on one
 * dump are simulated together. This checks, on every dev question from both dump kinds, that
 * the reused results are bit-identical to computing each one on its own.
 */
import { describe, expect, it } from 'vitest';
import { evaluateBuildingCompat, evaluateBuildingCompatTogether } from '../../../src-main/dqa/building-compat';
import { prepareMarket, type Market } from '../../../src-main/dqa/building-market';
import { readBuildingQuestions, readDumpText, readLocatingQuestions } from '../../../src-main/dqa/dataset';
import { prepareScenario, solvePrepared, solvePreparedTogether } from '../../../src-main/dqa/prepared-scenario';
import type { CandidateValue, Evaluation } from '../../../src-main/dqa/decision-ranking';
import { loadBuildingDump, loadLocatingDump, type DumpKind } from '../../../src-main/dqa/load';
import { evaluateLocatingCompat } from '../../../src-main/dqa/locating-compat';
import { prepareTradeGraph, type TradeGraph } from '../../../src-main/dqa/locating-graph';
import { dqaRoot } from '../../support/fixtures';

const kinds: DumpKind[] = ['relational', 'graph'];

function memo<T>(load: (dump: string) => T): (dump: string) => T {
  const cache = new Map<string, T>();
  return (dump) => {
    let value = cache.get(dump);
    if (value === undefined) {
      value = load(dump);
      cache.set(dump, value);
    }
    return value;
  };
}

/** Candidates whose reused value differs from the fresh one in any bit, as readable lines. */
function differences(id: string, reused: Evaluation, fresh: Evaluation): string[] {
  expect(reused.values.map((v) => v.candidate)).toEqual(fresh.values.map((v) => v.candidate));
  expect(reused.before).toBe(fresh.before);
  const found: string[] = [];
  reused.values.forEach((value: CandidateValue, index) => {
    const full = (fresh.values[index] as CandidateValue).after;
    if (!Object.is(value.after, full)) found.push(`${id} ${value.candidate}: reused ${value.after}, fresh ${full}`);
  });
  return found;
}

describe.each(kinds)('compat reuse on the dev subset from %s dumps', (kind) => {
  it('Locating: resuming from the no-merchant pass gives every candidate of all 81 questions the profit of a pass from scratch', () => {
    const root = dqaRoot();
    const questions = readLocatingQuestions(root);
    const graphOf = memo((dump): TradeGraph => prepareTradeGraph(loadLocatingDump(readDumpText(root, 'locating', dump), kind, dump)));
    const found: string[] = [];
    let distinct = 0;
    for (const question of questions) {
      const graph = graphOf(kind === 'relational' ? question.rdb : question.gdb);
      for (const prune of [true, false]) {
        const resumed = evaluateLocatingCompat(graph, question.country, question.home, { prune });
        const fresh = evaluateLocatingCompat(graph, question.country, question.home, { prune, incremental: false });
        found.push(...differences(`${question.id}${prune ? '' : ' unpruned'}`, resumed, fresh));
        distinct += new Set(fresh.values.map((v) => v.after)).size;
      }
    }
    expect(questions).toHaveLength(81);
    expect(found).toEqual([]);
    // Meaningful only if the merchant moves the profit.
    expect(distinct).toBeGreaterThan(questions.length * 2);
  });
});

describe.each(kinds)('compat Building questions solved together on the dev subset from %s dumps', (kind) => {
  it('every candidate of all 36 questions gets the same price together as alone, and the same decision', () => {
    const root = dqaRoot();
    const questions = readBuildingQuestions(root);
    const marketOf = memo((dump): Market => prepareMarket(loadBuildingDump(readDumpText(root, 'building', dump), kind, dump)));
    const byDump = new Map<string, typeof questions>();
    for (const question of questions) {
      const dump = kind === 'relational' ? question.rdb : question.gdb;
      byDump.set(dump, [...(byDump.get(dump) ?? []), question]);
    }
    const found: string[] = [];
    let shared = 0;
    for (const [dump, group] of byDump) {
      const market = marketOf(dump);
      const together = evaluateBuildingCompatTogether(
        market,
        group.map((q) => q.goods),
      );
      group.forEach((question, index) => {
        const alone = evaluateBuildingCompat(market, question.goods);
        const reused = together[index] as Evaluation;
        expect(reused.candidateSet).toBe(alone.candidateSet);
        found.push(...differences(question.id, reused, alone));
      });
      const prepared = prepareScenario('building', loadBuildingDump(readDumpText(root, 'building', dump), kind, dump));
      const results = solvePreparedTogether(
        prepared,
        group.map((q) => ({ goods: q.goods })),
        'compat',
      );
      group.forEach((question, index) => expect(results[index]).toEqual(solvePrepared(prepared, { goods: question.goods }, 'compat')));
      if (group.length > 1) shared += group.length;
    }
    expect(questions).toHaveLength(36);
    expect(found).toEqual([]);
    // Meaningful only if some dumps carry several questions.
    expect(shared).toBeGreaterThan(questions.length / 2);
  });

  it('a question with an unknown goods gets its own error and leaves the others their results', () => {
    const root = dqaRoot();
    const question = readBuildingQuestions(root)[0];
    if (question === undefined) throw new Error('no Building question');
    const dump = kind === 'relational' ? question.rdb : question.gdb;
    const prepared = prepareScenario('building', loadBuildingDump(readDumpText(root, 'building', dump), kind, dump));
    const [unknown, known] = solvePreparedTogether(prepared, [{ goods: 'unobtainium' }, { goods: question.goods }], 'compat');
    expect(unknown).toBeInstanceOf(Error);
    expect((unknown as Error).message).toBe('unknown goods unobtainium');
    expect(known).toEqual(solvePrepared(prepared, { goods: question.goods }, 'compat'));
  });
});
