/**
 * The simulators (compat and stated) skip candidates (and goods / nodes) they can prove cannot change the
 * objective. This checks the proof on data: on every dev question, from both dump kinds, the
 * pruned evaluation gives bit-identical objective values to simulating every candidate over
 * every row.
 */
import { describe, expect, it } from 'vitest';
import { evaluateBuildingCompat } from '../../../src-main/dqa/building-compat';
import { evaluateBuildingStated } from '../../../src-main/dqa/building-stated';
import { prepareMarket, type Market } from '../../../src-main/dqa/building-market';
import { readBuildingQuestions, readDumpText, readLocatingQuestions } from '../../../src-main/dqa/dataset';
import type { CandidateValue, Evaluation } from '../../../src-main/dqa/decision-ranking';
import { loadBuildingDump, loadLocatingDump, type DumpKind } from '../../../src-main/dqa/load';
import { evaluateLocatingCompat } from '../../../src-main/dqa/locating-compat';
import { evaluateLocatingStated } from '../../../src-main/dqa/locating-stated';
import { prepareTradeGraph, type TradeGraph } from '../../../src-main/dqa/locating-graph';
import { dqaRoot } from '../../support/fixtures';

const kinds: DumpKind[] = ['relational', 'graph'];

/** Stated Locating counts (node, steering destination) simulations instead of skipped candidates. */
const simulations = (evaluation: Evaluation): number => Number(/(\d+) \(node, steering destination\) simulations/.exec(evaluation.candidateSet)?.[1] ?? 0);

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

/** Candidates whose pruned value differs from the unpruned one in any bit, as readable lines. */
function differences(id: string, pruned: Evaluation, unpruned: Evaluation): string[] {
  expect(pruned.values.map((v) => v.candidate)).toEqual(unpruned.values.map((v) => v.candidate));
  const found: string[] = [];
  pruned.values.forEach((value: CandidateValue, index) => {
    const full = (unpruned.values[index] as CandidateValue).after;
    if (!Object.is(value.after, full)) found.push(`${id} ${value.candidate}: pruned ${value.after}, unpruned ${full}`);
  });
  return found;
}

const cases = kinds.flatMap((kind) => (['compat', 'stated'] as const).map((rules) => ({ kind, rules })));

describe.each(cases)('$rules pruning on the dev subset from $kind dumps', ({ kind, rules }) => {
  it('Building: every candidate of all 36 questions gets the same price pruned and unpruned', () => {
    const root = dqaRoot();
    const questions = readBuildingQuestions(root);
    const marketOf = memo((dump): Market => prepareMarket(loadBuildingDump(readDumpText(root, 'building', dump), kind, dump)));
    const found: string[] = [];
    let skipped = 0;
    for (const question of questions) {
      const market = marketOf(kind === 'relational' ? question.rdb : question.gdb);
      const evaluate = rules === 'compat' ? evaluateBuildingCompat : evaluateBuildingStated;
      const pruned = evaluate(market, question.goods);
      const unpruned = evaluate(market, question.goods, { prune: false });
      expect(unpruned.values.every((v) => Number.isFinite(v.after))).toBe(true);
      found.push(...differences(question.id, pruned, unpruned));
      skipped += Number(/(\d+) proven unchanged/.exec(pruned.candidateSet)?.[1] ?? 0);
    }
    expect(questions).toHaveLength(36);
    expect(found).toEqual([]);
    // The check means something only if the pruning skips candidates.
    expect(skipped).toBeGreaterThan(0);
  });

  it('Locating: every candidate of all 81 questions gets the same profit pruned and unpruned', () => {
    const root = dqaRoot();
    const questions = readLocatingQuestions(root);
    const graphOf = memo((dump): TradeGraph => prepareTradeGraph(loadLocatingDump(readDumpText(root, 'locating', dump), kind, dump)));
    const found: string[] = [];
    let skipped = 0;
    for (const question of questions) {
      const graph = graphOf(kind === 'relational' ? question.rdb : question.gdb);
      const evaluate = rules === 'compat' ? evaluateLocatingCompat : evaluateLocatingStated;
      const pruned = evaluate(graph, question.country, question.home);
      const unpruned = evaluate(graph, question.country, question.home, { prune: false });
      expect(unpruned.values.every((v) => Number.isFinite(v.after))).toBe(true);
      found.push(...differences(question.id, pruned, unpruned));
      skipped += rules === 'compat' ? Number(/(\d+) proven unchanged/.exec(pruned.candidateSet)?.[1] ?? 0) : simulations(unpruned) - simulations(pruned);
    }
    expect(questions).toHaveLength(81);
    expect(found).toEqual([]);
    expect(skipped).toBeGreaterThan(0);
  });
});
