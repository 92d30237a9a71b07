/**
 * Locating compat resumes each candidate's pass from the no-merchant pass instead of
 * simulating it from scratch. This checks, on every dev question from both dump kinds, pruned
 * and unpruned, that the resumed profits are bit-identical to passes from scratch.
 */
import { describe, expect, it } from 'vitest';
import { readDumpText, readLocatingQuestions } from '../../../src-main/dqa/dataset';
import type { CandidateValue, Evaluation } from '../../../src-main/dqa/decision-ranking';
import { loadLocatingDump, type DumpKind } from '../../../src-main/dqa/load';
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
