import { describe, expect, it } from 'vitest';
import { normaliseFactor, parseLikelihood, stateProbability, type BeliefFactor } from '../../../src-main/engine/techniques/dellma/belief';
import { fitPairs, fitTop1 } from '../../../src-main/engine/techniques/dellma/bradley-terry';
import { estimateCost } from '../../../src-main/engine/techniques/dellma/cost';
import { globalPosition, stride, windows } from '../../../src-main/engine/techniques/dellma/minibatch';
import { seededRandom } from '../../../src-main/engine/techniques/dellma/random';
import { rankToPairs, rankToTop1, repairRank } from '../../../src-main/engine/techniques/dellma/ranking';
import { naiveSample, pairedSample } from '../../../src-main/engine/techniques/dellma/sampling';
import { bootstrap, decide, expectedUtilities, sensitivity, utilities } from '../../../src-main/engine/techniques/dellma/utility';

const factor = (name: string, likelihoods: string[]): BeliefFactor =>
  normaliseFactor({
    name,
    scope: { kind: 'shared' },
    values: likelihoods.map((label, index) => ({ value: `${name} ${index}`, likelihood: parseLikelihood(label)! })),
  });

describe('belief normalisation', () => {
  it('maps the 6-level scale to 6..1 and normalises per factor', () => {
    const f = factor('climate', ['very likely', 'somewhat likely', 'unlikely']);
    expect(f.probabilities[0]).toBeCloseTo(0.5, 12);
    expect(f.probabilities[1]).toBeCloseTo(1 / 3, 12);
    expect(f.probabilities[2]).toBeCloseTo(1 / 6, 12);
    const g = factor('supply', ['likely', 'somewhat unlikely', 'very unlikely']);
    expect(g.probabilities).toEqual([5 / 9, 3 / 9, 1 / 9]);
    // Independence: the joint is the product of the marginals.
    expect(stateProbability([f, g], [0, 1])).toBeCloseTo(0.5 * (3 / 9), 12);
  });

  it('reads labels by the documented fuzzy rule and rejects anything else', () => {
    expect(parseLikelihood(' Somewhat_Likely ')).toBe('somewhat likely');
    expect(parseLikelihood('VERY-unlikely')).toBe('very unlikely');
    expect(parseLikelihood('probable')).toBeNull();
    expect(parseLikelihood('50%')).toBeNull();
  });
});

describe('seeded sampling', () => {
  const factors = [factor('a', ['very likely', 'somewhat likely', 'unlikely']), factor('b', ['likely', 'likely', 'very unlikely'])];

  it('pairs every sampled state with every action exactly once, reproducibly', () => {
    const sample = pairedSample(seededRandom(7), factors, 4, 16);
    expect(sample.states).toHaveLength(16);
    expect(sample.items).toHaveLength(64);
    const keys = new Set(sample.items.map((item) => `${item.stateId}/${item.action}`));
    expect(keys.size).toBe(64);
    for (let stateId = 0; stateId < 16; stateId++) for (let action = 0; action < 4; action++) expect(keys.has(`${stateId}/${action}`)).toBe(true);
    // Shuffled: not in generation order.
    expect(sample.items.slice(0, 4).every((item) => item.stateId === 0)).toBe(false);
    expect(pairedSample(seededRandom(7), factors, 4, 16)).toEqual(sample);
    expect(pairedSample(seededRandom(8), factors, 4, 16)).not.toEqual(sample);
  });

  it('draws values with the forecast marginals', () => {
    const sample = pairedSample(seededRandom(2024), factors, 1, 40_000);
    for (const [index, f] of factors.entries()) {
      const counts = [0, 0, 0];
      for (const state of sample.states) counts[state[index]!]!++;
      counts.forEach((count, value) => expect(Math.abs(count / 40_000 - f.probabilities[value]!)).toBeLessThan(0.01));
    }
  });

  it('Naive draws one state per item and a uniform action', () => {
    const sample = naiveSample(seededRandom(1), factors, 3, 50);
    expect(sample.items).toHaveLength(50);
    expect(new Set(sample.items.map((item) => item.stateId)).size).toBe(50);
    expect(sample.items.every((item) => item.action >= 0 && item.action < 3)).toBe(true);
  });
});

describe('minibatch windows', () => {
  it('slides with stride ⌊b(1−q)⌋ and counts windows as the spec does', () => {
    expect(stride(32, 0.25)).toBe(24);
    expect(windows(256, 32, 0.25)).toHaveLength(11);
    expect(windows(448, 32, 0.25)).toHaveLength(19);
    expect(windows(64, 32, 0.25)).toHaveLength(3);
    expect(windows(64, 32, 0.75)).toHaveLength(5);
    expect(windows(64, 32, 0)).toHaveLength(2);
    expect(windows(10, 32, 0.25)).toEqual([{ index: 0, start: 0, size: 10 }]);
  });

  it('shares b − stride items between consecutive windows and ends with a shorter one', () => {
    const all = windows(64, 32, 0.25);
    expect(all.map((w) => [w.start, w.size])).toEqual([
      [0, 32],
      [24, 32],
      [48, 16],
    ]);
    expect(all[0]!.start + all[0]!.size - all[1]!.start).toBe(8);
  });

  it('maps local numbers 1..b back to global positions and rejects others', () => {
    const second = windows(64, 32, 0.25)[1]!;
    expect(globalPosition(second, 1)).toBe(24);
    expect(globalPosition(second, 32)).toBe(55);
    expect(() => globalPosition(second, 0)).toThrow(/not in minibatch 2/);
    expect(() => globalPosition(second, 33)).toThrow(/items 1 to 32/);
  });

  it('refuses an overlap that leaves no stride', () => {
    expect(() => windows(64, 2, 0.75)).toThrow(/stride of 0/);
    expect(() => windows(64, 32, 1)).toThrow(/below 1/);
  });
});

describe('rank repair and comparison sets', () => {
  it('appends missing items in ascending order', () => {
    expect(repairRank([3, 1], 4)).toEqual({ order: [2, 0, 1, 3], outOfRange: [], duplicates: [], missing: [2, 4] });
  });

  it('drops duplicates (first kept) and out-of-range numbers [ext]', () => {
    expect(repairRank([2, 2, 9, 1, 0, 1.5, 3], 3)).toEqual({ order: [1, 0, 2], outOfRange: [9, 0, 1.5], duplicates: [2], missing: [] });
  });

  it('Pairs: every earlier item beats every later one', () => {
    const pairs = rankToPairs([2, 0, 3, 1]);
    expect(pairs).toEqual([
      [2, 0],
      [2, 3],
      [2, 1],
      [0, 3],
      [0, 1],
      [3, 1],
    ]);
  });

  it('Top-1: one choice of the first over the rest', () => {
    expect(rankToTop1([2, 0, 3, 1])).toEqual({ winner: 2, losers: [0, 3, 1] });
    expect(rankToTop1([5])).toBeNull();
  });
});

describe('Bradley–Terry by ILSR (values hand-checked against choix)', () => {
  const threeToOne: [number, number][] = [
    [0, 1],
    [0, 1],
    [0, 1],
    [1, 0],
  ];

  it('two items 3:1 → ±ln3/2 without regularisation, ±0.548640 with alpha 1e-3', () => {
    const plain = fitPairs(2, threeToOne, { alpha: 0 });
    expect(plain.converged).toBe(true);
    expect(Math.abs(plain.theta[0]! - Math.log(3) / 2)).toBeLessThan(1e-6);
    expect(Math.abs(plain.theta[0]! - 0.549306)).toBeLessThan(1e-6);
    expect(Math.abs(plain.theta[1]! + 0.549306)).toBeLessThan(1e-6);
    const regularised = fitPairs(2, threeToOne, { alpha: 1e-3 });
    expect(Math.abs(regularised.theta[0]! - 0.54864)).toBeLessThan(1e-6);
    expect(Math.abs(regularised.theta[1]! + 0.54864)).toBeLessThan(1e-6);
  });

  it('three items → (ln 2, 0, −ln 2)', () => {
    const fit = fitPairs(
      3,
      [
        [0, 1],
        [0, 1],
        [1, 0],
        [1, 2],
        [1, 2],
        [2, 1],
      ],
      { alpha: 0 },
    );
    [Math.log(2), 0, -Math.log(2)].forEach((expected, index) => expect(Math.abs(fit.theta[index]! - expected)).toBeLessThan(1e-6));
  });

  it('a cycle → (0, 0, 0)', () => {
    const fit = fitPairs(
      3,
      [
        [0, 1],
        [1, 2],
        [2, 0],
      ],
      { alpha: 0 },
    );
    fit.theta.forEach((value) => expect(Math.abs(value)).toBeLessThan(1e-9));
  });

  it('perfect separation has no finite estimate without alpha, and a centred one with it', () => {
    const pairs = rankToPairs([0, 1, 2]);
    expect(() => fitPairs(3, pairs, { alpha: 0 })).toThrow(/perfect separation/);
    const fit = fitPairs(3, pairs, { alpha: 1e-3 });
    expect(fit.theta.every(Number.isFinite)).toBe(true);
    expect(Math.abs(fit.theta.reduce((a, b) => a + b, 0))).toBeLessThan(1e-9);
    expect(fit.theta[0]!).toBeGreaterThan(fit.theta[1]!);
    expect(fit.theta[1]!).toBeGreaterThan(fit.theta[2]!);
  });

  it('the banded solver gives the dense solver\'s estimate on minibatch comparisons', () => {
    const random = seededRandom(9);
    const score = Array.from({ length: 96 }, () => random.next());
    const pairs: [number, number][] = [];
    const choices = [];
    for (const window of windows(96, 16, 0.25)) {
      const order = Array.from({ length: window.size }, (_, local) => window.start + local).sort((a, b) => score[b]! + random.next() * 0.3 - score[a]!);
      pairs.push(...rankToPairs(order));
      choices.push(rankToTop1(order)!);
    }
    for (const alpha of [2e-3, 1e-5]) {
      const banded = fitPairs(96, pairs, { alpha });
      const dense = fitPairs(96, pairs, { alpha, solver: 'dense' });
      expect(banded.iterations).toBe(dense.iterations);
      banded.theta.forEach((value, index) => expect(Math.abs(value - dense.theta[index]!)).toBeLessThan(1e-7));
      const top1 = fitTop1(96, choices, { alpha });
      const top1Dense = fitTop1(96, choices, { alpha, solver: 'dense' });
      top1.theta.forEach((value, index) => expect(Math.abs(value - top1Dense.theta[index]!)).toBeLessThan(1e-7));
    }
  });

  it('Top-1 choices: the winner gets the highest strength', () => {
    const fit = fitTop1(4, [rankToTop1([2, 0, 3, 1])!], { alpha: 1e-3 });
    expect(fit.theta.indexOf(Math.max(...fit.theta))).toBe(2);
    expect(fit.theta[0]!).toBeCloseTo(fit.theta[1]!, 9);
  });
});

describe('expected utility', () => {
  // Items 0:(s1,a1) 1:(s2,a1) 2:(s1,a2) 3:(s2,a2); one ranking [2,0,3,1] fitted as pairs, alpha 1e-3.
  const items = [
    { stateId: 0, action: 0 },
    { stateId: 1, action: 0 },
    { stateId: 0, action: 1 },
    { stateId: 1, action: 1 },
  ];
  const fit = fitPairs(4, rankToPairs([2, 0, 3, 1]), { alpha: 1e-3 });
  const u = utilities(fit.theta, 1);

  it('reproduces the worked example', () => {
    [2.6909, -7.6711, 7.1258, -2.1456].forEach((expected, index) => expect(Math.abs(fit.theta[index]! - expected)).toBeLessThan(1e-4));
    [0.0117, 0.0, 0.9882, 0.0001].forEach((expected, index) => expect(Math.abs(u[index]! - expected)).toBeLessThan(1e-4));
    const eu = expectedUtilities(items, u, 2);
    expect(eu[0]!).toBeCloseTo(0.0059, 4);
    expect(eu[1]!).toBeCloseTo(0.4941, 4);
    expect(decide(eu)).toMatchObject({ action: 1, runnerUp: 0, tied: false });
    expect(decide(eu)!.margin!).toBeCloseTo(0.4882, 3);
  });

  it('guard against per-action normalisation: clear preferences give unequal expected utilities', () => {
    // Action 1's items always ranked above action 0's, over several states.
    const many = Array.from({ length: 8 }, (_, stateId) => [
      { stateId, action: 0 },
      { stateId, action: 1 },
    ]).flat();
    const order = [...many.keys()].sort((a, b) => many[b]!.action - many[a]!.action);
    const theta = fitPairs(many.length, rankToPairs(order), { alpha: 2e-3 }).theta;
    const eu = expectedUtilities(many, utilities(theta, 1), 2);
    expect(eu[0]).not.toBeCloseTo(eu[1]!, 6);
    expect(eu[1]!).toBeGreaterThan(eu[0]!);
    expect(decide(eu)!.action).toBe(1);
  });

  it('bootstrap intervals contain the estimate and are reproducible from the seed', () => {
    const eu = expectedUtilities(items, u, 2);
    const first = bootstrap(items, u, 2, 2, { resamples: 500, seed: 3 });
    expect(first).toEqual(bootstrap(items, u, 2, 2, { resamples: 500, seed: 3 }));
    first.intervals.forEach((interval, action) => {
      expect(interval!.low).toBeLessThanOrEqual(eu[action]! + 1e-12);
      expect(interval!.high).toBeGreaterThanOrEqual(eu[action]! - 1e-12);
    });
    expect(first.stability).toBe(1);
  });

  it('sensitivity finds the forecast move that flips the decision', () => {
    // Action 0 wins in state value 0, action 1 in state value 1; value 0 is forecast likelier.
    const weather = factor('weather', ['very likely', 'unlikely', 'very unlikely']);
    const states = [[0], [0], [0], [1]];
    const flipItems = states.flatMap((_s, stateId) => [
      { stateId, action: 0 },
      { stateId, action: 1 },
    ]);
    const utility = flipItems.map((item) => (states[item.stateId]![0] === item.action ? 1 : 0));
    expect(decide(expectedUtilities(flipItems, utility, 2))!.action).toBe(0);
    const flips = sensitivity([weather], states, flipItems, utility, 2);
    const viaValue1 = flips.find((flip) => flip.value === 1)!;
    expect(viaValue1.newDecision).toBe(1);
    expect(viaValue1.shift).toBeGreaterThan(0);
    // By hand: with value 1 at t the others scale by (1−t)/(7/9), so action 1 wins once
    // t·9/2 > 3·(1−t)·9/7, i.e. t > 6/13; the scan steps (1 − 2/9)/200 at a time.
    expect(viaValue1.to).toBeGreaterThan(6 / 13);
    expect(viaValue1.to).toBeLessThan(6 / 13 + 7 / 9 / 200 + 1e-12);
    // Making value 0 less likely flips it below t = 0.4 (3(1−t) > 1.5t); that move is larger.
    const viaValue0 = flips.find((flip) => flip.value === 0)!;
    expect(viaValue0.to).toBeLessThan(0.4);
    expect(viaValue0.to).toBeGreaterThan(0.4 - (2 / 3) / 200 - 1e-12);
    expect(flips[0]).toBe(viaValue1);
  });
});

describe('cost estimate', () => {
  it('counts calls from |A|, s, b, q', () => {
    const base = { actions: 4, perAction: 64, naiveSamples: 50, batch: 32, overlap: 0.25, contextChars: 4000, factorNameChars: 200, factorCount: 10, forecastCached: false, selfConsistency: 5 };
    expect(estimateCost({ ...base, variant: 'pairs' })).toMatchObject({ forecastCalls: 1, rankingCalls: 11, calls: 12 });
    expect(estimateCost({ ...base, variant: 'top1', perAction: 16, forecastCached: true })).toMatchObject({ rankingCalls: 3, calls: 3 });
    expect(estimateCost({ ...base, variant: 'naive' })).toMatchObject({ rankingCalls: 1, calls: 2 });
    expect(estimateCost({ ...base, variant: 'cot' }).calls).toBe(3);
    expect(estimateCost({ ...base, variant: 'sc' }).calls).toBe(5);
    expect(estimateCost({ ...base, variant: 'pairs' }).promptTokens).toBeGreaterThan(estimateCost({ ...base, variant: 'pairs', perAction: 16 }).promptTokens);
  });
});
