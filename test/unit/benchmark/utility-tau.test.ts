import { describe, expect, it } from 'vitest';
import { utilityTau } from '../../../src-main/benchmark/judge';
import type { DecisionResult } from '../../../src-main/dqa/simulation';

const simulation = (rows: [string, number][]): DecisionResult => ({
  candidates: rows.map(([candidate, after], index) => ({ candidate, before: 0, after, delta: after, rank: index + 1 })) as DecisionResult['candidates'],
  best: rows[0]?.[0] ?? '',
  margin: 0,
  tied: [],
  objective: 'profit (maximize)',
  candidateSet: 'test',
  notes: [],
});

describe('utilityTau [ext]: DeLLMa’s expected utilities against the simulator’s order', () => {
  it('counts options whose objectives tie as one place (τ-b, by hand)', () => {
    // Places: a 0, c and b tied at 1. Pairs (a,b) and (a,c) concordant, (b,c) tied in the objective: 2 / √(3·2).
    const result = simulation([['a', 10], ['c', 5], ['b', 5]]);
    expect(utilityTau([{ action: 'a', expected: 0.5 }, { action: 'b', expected: 0.3 }, { action: 'c', expected: 0.1 }], result)).toBeCloseTo(2 / Math.sqrt(6), 12);
    expect(utilityTau([{ action: 'a', expected: 0.1 }, { action: 'c', expected: 0.9 }], result)).toBe(-1);
  });

  it('leaves out options the simulator does not know and estimates that are missing', () => {
    const result = simulation([['a', 3], ['b', 2], ['c', 1]]);
    expect(utilityTau([{ action: 'a', expected: 3 }, { action: 'zzz', expected: 9 }, { action: 'b', expected: null }, { action: 'c', expected: 1 }], result)).toBe(1);
    expect(utilityTau([{ action: 'a', expected: 3 }], result)).toBeNull();
  });
});
