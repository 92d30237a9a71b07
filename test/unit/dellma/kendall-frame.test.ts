import { describe, expect, it } from 'vitest';
import { forecastLines } from '../../../src-main/contract/dellma';
import { normaliseFactor } from '../../../src-main/engine/techniques/dellma/belief';
import { frameFactors, listedAfter, readForecastLines } from '../../../src-main/engine/techniques/dellma/frame';
import { addCounts, kendallTau, pairCounts, tauOf } from '../../../src-main/engine/techniques/dellma/kendall';

describe('Kendall τ-b [ext]', () => {
  it('matches values counted by hand', () => {
    // (1,2,3,4) against (1,3,2,4): 5 concordant pairs, 1 discordant → (5 − 1) / 6.
    expect(kendallTau([1, 2, 3, 4], [1, 3, 2, 4])).toBeCloseTo(4 / 6, 12);
    expect(kendallTau([1, 2, 3], [10, 20, 30])).toBe(1);
    expect(kendallTau([1, 2, 3], [3, 2, 1])).toBe(-1);
    // Ties: x = (1,1,2), y = (1,2,3): C = 2, D = 0, n0 = 3, tied in x 1, in y 0 → 2 / √(2·3).
    expect(kendallTau([1, 1, 2], [1, 2, 3])).toBeCloseTo(2 / Math.sqrt(6), 12);
    // Nothing to order.
    expect(kendallTau([5, 5, 5], [1, 2, 3])).toBeNull();
    expect(kendallTau([1], [1])).toBeNull();
  });

  it('pools counts over groups before dividing', () => {
    const pooled = addCounts(pairCounts([1, 2], [1, 2]), pairCounts([1, 2, 3], [3, 2, 1]));
    expect(pooled).toEqual({ pairs: 4, concordant: 1, discordant: 3, tiedX: 0, tiedY: 0 });
    expect(tauOf(pooled)).toBe(-0.5);
  });

  it('refuses scorings of different lengths', () => {
    expect(() => kendallTau([1, 2], [1])).toThrow(/same items/);
  });
});

describe('the decision frame of a run on a database', () => {
  it('reads the options and unknowns listed in the question', () => {
    const question = 'Which fruit should I plant on my 10 acres next year?\nOptions: apple; pear; grape.\nUnknowns: climate condition, supply chain disruptions';
    expect(listedAfter('options', question)).toEqual(['apple', 'pear', 'grape']);
    expect(listedAfter('unknowns', question)).toEqual(['climate condition', 'supply chain disruptions']);
    expect(listedAfter('options', 'Which node?')).toBeNull();
    expect(frameFactors(['apple', 'pear'], ['climate condition']).map((factor) => [factor.name, factor.scope])).toEqual([
      ['climate condition', { kind: 'shared' }],
      ['how apple turns out', { kind: 'action', action: 'apple' }],
      ['how pear turns out', { kind: 'action', action: 'pear' }],
    ]);
  });

  it('reads an edited forecast back from its review lines, and names every problem', () => {
    const current = [normaliseFactor({ name: 'how apple turns out', scope: { kind: 'action', action: 'apple' }, values: [{ value: 'worse', likelihood: 'somewhat likely' }, { value: 'same', likelihood: 'very likely' }, { value: 'better', likelihood: 'unlikely' }] })];
    const lines = forecastLines({ factors: current.map((factor) => ({ name: factor.name, action: 'apple', values: factor.values.map((entry, index) => ({ ...entry, probability: factor.probabilities[index] ?? 0 })) })) });
    expect(lines).toEqual(['how apple turns out | worse | somewhat likely', 'how apple turns out | same | very likely', 'how apple turns out | better | unlikely']);
    const edited = readForecastLines([lines[0] as string, lines[1] as string, 'how apple turns out | better | Very_Likely'], current);
    expect(edited.ok && normaliseFactor(edited.factors[0]!).probabilities).toEqual([4 / 16, 6 / 16, 6 / 16]);
    const bad = readForecastLines(['how apple turns out | worse | maybe', 'how pear turns out | x | likely', 'no bars here'], current);
    expect(bad.ok ? [] : bad.problems).toEqual([
      'line 1: "maybe" is not one of very likely, likely, somewhat likely, somewhat unlikely, unlikely, very unlikely',
      'line 2: no factor "how pear turns out"',
      'line 3 is not "factor | value | likelihood": no bars here',
    ]);
  });
});
