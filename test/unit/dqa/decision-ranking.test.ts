import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decide, type RankingInput } from '../../../src-main/dqa/decision-ranking';
import { withinTolerance } from '../../../src-main/dqa/simulation';

function input(values: [string, number][], overrides: Partial<RankingInput> = {}): RankingInput {
  return {
    values: values.map(([candidate, after]) => ({ candidate, after })),
    before: 1,
    direction: 'maximize',
    tieBreak: 'first-strictly-best',
    objective: 'test objective',
    candidateSet: 'test set',
    ...overrides,
  };
}

describe('withinTolerance', () => {
  it('is relative and symmetric', () => {
    expect(withinTolerance(1, 1 + 1e-10)).toBe(true);
    expect(withinTolerance(1, 1 + 1e-8)).toBe(false);
    expect(withinTolerance(1e6, 1e6 + 1e-4)).toBe(true);
    expect(withinTolerance(0, 0)).toBe(true);
    expect(withinTolerance(0, 1e-300)).toBe(false);
  });
});

describe('decide', () => {
  it('under the stated tie-break, looks past a first value that is not a number, and words an all-NaN objective', () => {
    const result = decide(input([['a', Number.NaN], ['b', 5], ['c', 7]], { tieBreak: 'first-within-tolerance' }));
    expect(result.best).toBe('c');
    expect(decide(input([['a', Number.NaN], ['b', 5], ['c', 7]], { tieBreak: 'first-within-tolerance', direction: 'minimize' })).best).toBe('b');
    expect(() => decide(input([['a', Number.NaN], ['b', Number.NaN]], { tieBreak: 'first-within-tolerance' }))).toThrow("every candidate's test objective is not a number");
  });

  it('ranks best first, keeps table order among equals and reports the margin', () => {
    const result = decide(input([['a', 2], ['b', 5], ['c', 3], ['d', 5]]));
    expect(result.best).toBe('b');
    expect(result.candidates.map((c) => [c.candidate, c.rank])).toEqual([
      ['b', 1],
      ['d', 1],
      ['c', 3],
      ['a', 4],
    ]);
    expect(result.margin).toBe(0);
    expect(result.tied).toEqual(['b', 'd']);
    expect(result.candidates[0]).toMatchObject({ before: 1, after: 5, delta: 4 });
  });

  it('compat: the first strictly best wins even when a later one is better only by float noise', () => {
    const result = decide(input([['a', 1], ['b', 1 + 2e-16], ['c', 0.5]]));
    expect(result.best).toBe('b');
    expect(result.tied).toEqual(['a', 'b']);
    expect(result.candidates.map((c) => [c.candidate, c.rank])).toEqual([
      ['b', 1],
      ['a', 2],
      ['c', 3],
    ]);
    expect(result.notes.join('\n')).toMatch(/first strictly best in table order/);
  });

  it('stated: the first candidate within tolerance of the optimum wins', () => {
    const result = decide(input([['a', 1], ['b', 1 + 2e-16], ['c', 0.5]], { tieBreak: 'first-within-tolerance' }));
    expect(result.best).toBe('a');
    expect(result.candidates.map((c) => [c.candidate, c.rank])).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 3],
    ]);
    expect(result.margin).toBe(1 - (1 + 2e-16)); // negative: the runner-up is better by float noise only
    expect(result.notes.join('\n')).toMatch(/first in table order within tolerance/);
  });

  it('minimizes, gives Infinity as margin for a single candidate and names the winner detail', () => {
    const single = decide(input([['only', 3]], { direction: 'minimize', details: new Map([['only', 'why']]) }));
    expect(single.margin).toBe(Number.POSITIVE_INFINITY);
    expect(single.notes).toContain('only: why');
    const result = decide(input([['a', 3], ['b', 2]], { direction: 'minimize', mustBeat: 2.5 }));
    expect(result.best).toBe('b');
    expect(result.margin).toBe(1);
    expect(result.notes).toEqual([]);
  });

  it('refuses an empty candidate list', () => {
    expect(() => decide(input([]))).toThrow('no candidates to rank for test objective');
  });
});

describe('decide ranks without a tolerance', () => {
  it('gives every candidate 1 + the number of candidates strictly better (checked against the quadratic count)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ noDefaultInfinity: false }), fc.constant(Number.NaN)), { minLength: 1, maxLength: 40 }),
        fc.constantFrom<'maximize' | 'minimize'>('maximize', 'minimize'),
        (afters, direction) => {
          const values = afters.map((after, index) => ({ candidate: `c${index}`, after }));
          const result = decide({ values, before: 0, direction, tieBreak: 'first-strictly-best', objective: 'x', candidateSet: 'all' });
          const better = (a: number, b: number): boolean => (direction === 'maximize' ? a > b : a < b);
          const rankOf = new Map(result.candidates.map((c) => [c.candidate, c.rank]));
          for (const value of values) {
            expect(rankOf.get(value.candidate)).toBe(1 + values.filter((other) => better(other.after, value.after)).length);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
