import { describe, expect, it } from 'vitest';
import { solveLocating, type LocatingData, type LocatingNodeCountry, type LocatingTradeNode } from '../../../src-main/dqa/locating';
import { compatMerchantPower } from '../../../src-main/dqa/locating-compat';
import { statedMerchantPower } from '../../../src-main/dqa/locating-stated';

function node(name: string, localValue: number, totalPower: number, ingoing: number, isInland = false): LocatingTradeNode {
  return { name, localValue, isInland, totalPower, outgoing: 0, ingoing };
}

function presence(tradeNode: string, country: string, power: number, isHome: boolean): LocatingNodeCountry {
  return { tradeNode, country, isHome, hasMerchant: false, baseTradingPower: power, calculatedTradingPower: power };
}

/**
 * A -> Z (dead end) and A -> H (home of C). C has 10 power in A and 20 in H; O collects in A
 * (30, home) and has 20 in H. Stored state: A total 80, H total 80 and ingoing 2.
 */
function smallWorld(): LocatingData {
  return {
    countries: [
      { name: 'C', homeNode: 'H', development: 120 },
      { name: 'O', homeNode: 'A', development: 10 },
    ],
    tradeNodes: [node('A', 10, 80, 0), node('H', 4, 80, 2), node('Z', 1, 0, 0)],
    flows: [
      { source: 'A', dest: 'Z', flow: 0 },
      { source: 'A', dest: 'H', flow: 0 },
    ],
    nodeCountries: [presence('A', 'C', 10, false), presence('A', 'O', 30, true), presence('H', 'C', 20, true), presence('H', 'O', 20, false)],
  };
}

describe('merchant power formulas', () => {
  it('compat: 1.05 * (base + 2), inland 1.05 * (base + 2 + max(50, development))', () => {
    expect(compatMerchantPower(10, false, 120)).toBeCloseTo(12.6, 12); // 1.05 * 12
    expect(compatMerchantPower(10, true, 120)).toBeCloseTo(138.6, 12); // 1.05 * (10 + 2 + 120)
    expect(compatMerchantPower(10, true, 30)).toBeCloseTo(65.1, 12); // 1.05 * (10 + 2 + 50)
  });

  it('stated: 1.05 * (base + 2), touching inland 1.05 * (base + 2 + max(development / 3, 50))', () => {
    expect(statedMerchantPower(10, false, 300)).toBeCloseTo(12.6, 12);
    expect(statedMerchantPower(10, true, 300)).toBeCloseTo(117.6, 12); // 1.05 * (10 + 2 + 100)
    expect(statedMerchantPower(10, true, 120)).toBeCloseTo(65.1, 12); // 1.05 * (10 + 2 + max(40, 50))
  });
});

describe('solveLocating with compat rules', () => {
  it('counts stored totals and ingoing twice and steers the whole outflow home', () => {
    const result = solveLocating(smallWorld(), { country: 'C', home: 'H' }, { rules: 'compat' });
    // No merchant: A total = 80 + 10 + 30 = 120, outflow = 10 * 10 / 120 (only C is not at home in A),
    // half to each destination, * 1.05 on arrival: H ingoing = 2 + (10 * 10 / 120) / 2 * 1.05 = 2.4375.
    // H total = 80 + 20 + 20 = 120, profit = (4 + 2.4375) * 20 / 120.
    const baseline = ((4 + 2.4375) * 20) / 120;
    // Merchant in A: C power 12.6, A total 122.6, outflow 10 * 12.6 / 122.6, all of it to H (Z cannot reach H).
    const steered = ((4 + 2 + ((10 * 12.6) / 122.6) * 1.05) * 20) / 120;
    expect(result.candidates.map((c) => [c.candidate, c.rank])).toEqual([
      ['A', 1],
      ['Z', 2],
    ]);
    expect(result.best).toBe('A');
    const [a, z] = result.candidates;
    expect(a?.after).toBeCloseTo(steered, 12);
    expect(z?.after).toBeCloseTo(baseline, 12); // Z is downstream of nothing that matters: proven unchanged
    // before = the same compat pass without a merchant.
    expect(a?.before).toBeCloseTo(baseline, 12);
    expect(a?.delta).toBeCloseTo(steered - baseline, 12);
    expect(z?.delta).toBe(0);
    expect(result.margin).toBeCloseTo(steered - baseline, 12);
    expect(result.tied).toEqual(['A']);
    expect(result.objective).toContain('C profit at H');
    expect(result.candidateSet).toContain('1 simulated, 1 proven unchanged');
  });

  it('uses the inland merchant formula max(50, development) on an inland node', () => {
    const world = smallWorld();
    world.tradeNodes[0] = node('A', 10, 80, 0, true);
    const result = solveLocating(world, { country: 'C', home: 'H' }, { rules: 'compat' });
    // C power in A = 1.05 * (10 + 2 + 120) = 138.6; A total = 80 + 138.6 + 30.
    const steered = ((4 + 2 + ((10 * 138.6) / 248.6) * 1.05) * 20) / 120;
    expect(result.candidates[0]?.after).toBeCloseTo(steered, 12);
  });

  it('steers to the destination closest to home, not the first one', () => {
    // A -> B -> H and A -> H: B comes first in flow order, but H is 0 hops from home.
    const world: LocatingData = {
      countries: [{ name: 'C', homeNode: 'H', development: 10 }],
      tradeNodes: [node('A', 10, 0, 0), node('B', 0, 0, 0), node('H', 0, 0, 0)],
      flows: [
        { source: 'A', dest: 'B', flow: 0 },
        { source: 'B', dest: 'H', flow: 0 },
        { source: 'A', dest: 'H', flow: 0 },
      ],
      nodeCountries: [presence('A', 'C', 10, false), presence('H', 'C', 10, true)],
    };
    const result = solveLocating(world, { country: 'C', home: 'H' }, { rules: 'compat' });
    // Merchant in A: A total = 0 + 12.6, all of A's value (10) leaves; straight to H: 10 * 1.05.
    // H total = 10 and C holds all of it: profit = 10.5.
    expect(result.best).toBe('A');
    expect(result.candidates.find((c) => c.candidate === 'A')?.after).toBeCloseTo(10.5, 12);
  });

  it('reports a full tie and answers the first row when the country has no power upstream', () => {
    const world = smallWorld();
    world.nodeCountries = world.nodeCountries.filter((row) => !(row.country === 'C' && row.tradeNode === 'A'));
    const result = solveLocating(world, { country: 'C', home: 'H' }, { rules: 'compat' });
    expect(result.best).toBe('A');
    expect(result.tied).toEqual(['A', 'Z']);
    expect(result.margin).toBe(0);
    expect(result.candidates.every((c) => c.rank === 1)).toBe(true);
    expect(result.notes.join('\n')).toMatch(/no trading power upstream/);
    expect(result.notes.join('\n')).toMatch(/2 candidates are within relative 1e-9/);
  });

  it('rejects unknown countries and nodes with a clear message', () => {
    expect(() => solveLocating(smallWorld(), { country: 'X', home: 'H' }, { rules: 'compat' })).toThrow('unknown country X');
    expect(() => solveLocating(smallWorld(), { country: 'C', home: 'Q' }, { rules: 'stated' })).toThrow('unknown trade node Q');
  });
});

describe('solveLocating with stated rules', () => {
  it('simulates from scratch: fresh totals and ingoing', () => {
    const result = solveLocating(smallWorld(), { country: 'C', home: 'H' }, { rules: 'stated' });
    // No merchant: A total = 10 + 30, outflow = 10 * 10 / 40 = 2.5, half to H * 1.05 = 1.3125.
    // H total = 40, profit = (4 + 1.3125) * 20 / 40 = 2.65625.
    // Merchant in A: C power 12.6, A total 42.6, outflow 10 * 12.6 / 42.6, all to H.
    const steered = ((4 + ((10 * 12.6) / 42.6) * 1.05) * 20) / 40;
    expect(result.best).toBe('A');
    expect(result.candidates[0]?.after).toBeCloseTo(steered, 12);
    expect(result.candidates[0]?.before).toBeCloseTo(2.65625, 12);
    expect(result.candidates[1]).toMatchObject({ candidate: 'Z', delta: 0 });
    expect(result.notes).toContain('A: the merchant steers trade toward H');
  });

  it('lets a merchant create a presence where the country had none', () => {
    const world = smallWorld();
    world.nodeCountries = world.nodeCountries.filter((row) => !(row.country === 'C' && row.tradeNode === 'A'));
    const result = solveLocating(world, { country: 'C', home: 'H' }, { rules: 'stated' });
    // Merchant in A: C power 1.05 * 2 = 2.1, A total 32.1, outflow 10 * 2.1 / 32.1 all to H.
    // H: total 40, profit = (4 + (10 * 2.1 / 32.1) * 1.05) * 20 / 40.
    expect(result.best).toBe('A');
    expect(result.candidates[0]?.after).toBeCloseTo(((4 + ((10 * 2.1) / 32.1) * 1.05) * 20) / 40, 12);
    expect(result.tied).toEqual(['A']);
  });

  it('chooses the steering destination that pays best, even the longer route', () => {
    // A -> H directly or A -> B -> H, where B adds local value 5 and passes everything on.
    const world: LocatingData = {
      countries: [
        { name: 'C', homeNode: 'H', development: 10 },
        { name: 'P', homeNode: 'Z', development: 10 },
      ],
      tradeNodes: [node('A', 10, 0, 0), node('B', 5, 0, 0), node('H', 0, 0, 0), node('Z', 0, 0, 0)],
      flows: [
        { source: 'A', dest: 'H', flow: 0 },
        { source: 'A', dest: 'B', flow: 0 },
        { source: 'B', dest: 'H', flow: 0 },
      ],
      nodeCountries: [presence('A', 'C', 10, false), presence('B', 'P', 10, false), presence('H', 'C', 10, true)],
    };
    const result = solveLocating(world, { country: 'C', home: 'H' }, { rules: 'stated' });
    // Via H: H ingoing = 10 * 1.05 + B's own 5 * 1.05 = 15.75 (C holds all of H's power, so that is the profit).
    // Via B: B value = 5 + 10.5, all of it leaves (P is not at home): H ingoing = 15.5 * 1.05 = 16.275.
    expect(result.best).toBe('A');
    expect(result.candidates[0]?.after).toBeCloseTo(16.275, 12);
    expect(result.notes).toContain('A: the merchant steers trade toward B');
  });

  it('needs an acyclic network', () => {
    const world = smallWorld();
    world.flows.push({ source: 'H', dest: 'A', flow: 0 });
    expect(() => solveLocating(world, { country: 'C', home: 'H' }, { rules: 'stated' })).toThrow(/cycle/);
  });
});
