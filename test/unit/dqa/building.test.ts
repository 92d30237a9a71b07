import { describe, expect, it } from 'vitest';
import { solveBuilding, type BuildingData, type BuildingGoods, type DemandRecord, type SupplyRecord } from '../../../src-main/dqa/building';
import { expansionFactor, prepareMarket } from '../../../src-main/dqa/building-market';

function goods(name: string, code: number, basePrice: number, currentPrice: number, popDemand: number): BuildingGoods {
  return { name, code, basePrice, currentPrice, popDemand };
}
function supply(goodsCode: number, buildingId: number, maxSupply: number, currentOutput: number, level = 1): SupplyRecord {
  return { goodsCode, buildingId, maxSupply, currentOutput, level };
}
function demand(goodsCode: number, buildingId: number, maxDemand: number, level = 1): DemandRecord {
  return { goodsCode, buildingId, maxDemand, currentInput: 0, level };
}

/**
 * widgets (0) are made by factory 10 from parts (1); parts come from mine 11, which has no
 * inputs; building 12 only deals in "other" (2). Stored: widgets demand 10 (pop) and supply 10,
 * parts demand 5 and supply 20.
 */
function smallMarket(): BuildingData {
  return {
    goods: [goods('widgets', 0, 20, 25, 10), goods('parts', 1, 10, 10, 0), goods('other', 2, 30, 30, 0)],
    buildings: [
      { id: 10, name: 'factory', level: 1 },
      { id: 11, name: 'mine', level: 1 },
      { id: 12, name: 'unrelated', level: 2 },
    ],
    supplies: [supply(0, 10, 10, 10), supply(1, 11, 20, 20), supply(2, 12, 4, 4, 2)],
    demands: [demand(1, 10, 5), demand(2, 12, 2, 2)],
  };
}

describe('expansion factor', () => {
  it('is (L+5)/L and refuses non-positive levels', () => {
    expect(expansionFactor({ id: 1, name: 'x', level: 1 })).toBe(6);
    expect(expansionFactor({ id: 1, name: 'x', level: 2 })).toBe(3.5);
    expect(() => expansionFactor({ id: 7, name: 'x', level: 0 })).toThrow('building 7 has level 0');
  });
});

describe('prepareMarket stored totals', () => {
  it('sums in row order: buildings in table order, each building\'s rows in file order, one addition at a time', () => {
    // The demand table lists building 2's rows before building 1's; row order puts building 1 first.
    // (1 + 1) + 1e16 is exactly 1e16 + 2, while (1e16 + 1) + 1 rounds to 1e16 at each step.
    const market = prepareMarket({
      goods: [goods('g', 0, 10, 10, 0)],
      buildings: [
        { id: 1, name: 'first', level: 1 },
        { id: 2, name: 'second', level: 1 },
      ],
      supplies: [supply(0, 2, 1, 1), supply(0, 2, 1, 1), supply(0, 1, 1e16, 1e16)],
      demands: [demand(0, 2, 1), demand(0, 2, 1), demand(0, 1, 1e16)],
    });
    expect(market.storedBuildingDemand[0]).toBe(1e16);
    expect(market.storedSupply[0]).toBe(1e16);
  });
});

describe('solveBuilding with compat rules', () => {
  it('counts stored demand and supply twice, caps input ratios at 1 and keeps input-less outputs stored', () => {
    const result = solveBuilding(smallMarket(), { goods: 'widgets' }, { rules: 'compat' });
    // Stored totals (row order): BD0 parts 5; S0 widgets 10, parts 20.
    // Without expansion: D widgets = 10 (pop), D parts = 0 + (5 + 5) = 10; initial S widgets
    // 10 + 10, parts 20 + 20. Every cycle the factory's parts input is >= its need (ratio 1),
    // so it makes 10 widgets: S = D = 10, price 20.
    // Factory +5 levels (x6): max supply 60, parts need 30, D parts = 5 + 30 = 35. Cycle 1
    // starts from S parts = 40 (ratio 1); from cycle 2 on, parts supply is the mine's stored
    // 20: input = 30 * 20 / 35, ratio = input / 30, widgets S = 60 * ratio.
    const supply = 60 * (Math.min((30 * 20) / 35, 30) / 30);
    const expanded = 20 * (1 + (0.75 * (10 - supply)) / supply);
    // The mine has no inputs: its expanded max supply only enters the first cycle's S, after
    // which it outputs its stored 20 again, so the price ends at 20; building 12 cannot reach widgets.
    expect(result.candidates.map((c) => [c.candidate, c.after, c.rank])).toEqual([
      ['10', expanded, 1],
      ['11', 20, 2],
      ['12', 20, 2],
    ]);
    expect(expanded).toBeCloseTo(9.375, 12);
    expect(result.best).toBe('10');
    expect(result.candidates[0]?.before).toBe(25); // the stored current_price
    expect(result.candidates[0]?.delta).toBeCloseTo(expanded - 25, 12);
    expect(result.margin).toBeCloseTo(20 - expanded, 12);
    expect(result.tied).toEqual(['10']);
    // Input-less buildings are candidates like any other (they move the first cycle's supply).
    expect(result.candidateSet).toContain('2 simulated, 1 proven unchanged');
    expect(result.notes).toEqual([]);
  });

  it('averages the capped input ratios of a building with several inputs', () => {
    // Factory 10 needs parts (5, plentiful) and gears (10, short); mine 11 and press 12 have no inputs.
    const data: BuildingData = {
      goods: [goods('widgets', 0, 20, 31, 30), goods('parts', 1, 10, 10, 0), goods('gears', 2, 10, 10, 0)],
      buildings: [
        { id: 10, name: 'factory', level: 1 },
        { id: 11, name: 'mine', level: 1 },
        { id: 12, name: 'press', level: 1 },
      ],
      supplies: [supply(0, 10, 10, 10), supply(1, 11, 20, 20), supply(2, 12, 5, 5)],
      demands: [demand(1, 10, 5), demand(2, 10, 10)],
    };
    const result = solveBuilding(data, { goods: 'widgets' }, { rules: 'compat' });
    // Baseline: D widgets 30, parts 5 + 5, gears 10 + 10. From cycle 2 on the stored outputs
    // (parts 20, gears 5) feed the factory: parts ratio 5*20/10 -> capped 1, gears (10*5/20)/10
    // = 0.25; output = (1 + 0.25) / 2 * 10 = 6.25; price = 20 * (1 + 0.75 * (30 - 6.25) / 30) = 31.875.
    // Factory x6: D parts 5 + 30, gears 10 + 60; parts ratio (30*20/35)/30 = 4/7, gears
    // (60*5/70)/60 = 1/14; output = (4/7 + 1/14) / 2 * 60 = 135/7.
    expect(result.best).toBe('10');
    expect(result.candidates[0]?.after).toBeCloseTo(20 * (1 + (0.75 * (30 - 135 / 7)) / 30), 12);
    expect(result.candidates[1]?.after).toBeCloseTo(31.875, 12);
  });

  it('refuses a building with inputs whose max_demand is 0 (the procedure divides by it)', () => {
    const data = smallMarket();
    (data.demands[0] as DemandRecord).maxDemand = 0;
    expect(() => solveBuilding(data, { goods: 'widgets' }, { rules: 'compat' })).toThrow('building 10 needs parts with max_demand 0');
  });

  it('reports equivalent buildings as tied and keeps the first in table order', () => {
    const data = smallMarket();
    data.buildings.push({ id: 13, name: 'factory', level: 1 });
    data.supplies.push(supply(0, 13, 10, 10));
    data.demands.push(demand(1, 13, 5));
    const result = solveBuilding(data, { goods: 'widgets' }, { rules: 'compat' });
    expect(result.best).toBe('10');
    expect(result.tied).toEqual(['10', '13']);
    expect(result.margin).toBe(0);
    expect(result.notes.join('\n')).toMatch(/2 candidates are within relative 1e-9 of the best; 10 is chosen as the first strictly best/);
  });

  it('notes when no building beats the stored price (the annotation would have had no answer)', () => {
    const data = smallMarket();
    (data.goods[0] as BuildingGoods).currentPrice = 5;
    const result = solveBuilding(data, { goods: 'widgets' }, { rules: 'compat' });
    expect(result.best).toBe('10');
    expect(result.notes.join('\n')).toMatch(/no candidate is strictly better than the current value 5/);
  });

  it('names unknown goods and dangling references', () => {
    expect(() => solveBuilding(smallMarket(), { goods: 'gold' }, { rules: 'compat' })).toThrow('unknown goods gold');
    const data = smallMarket();
    data.supplies.push(supply(9, 10, 1, 1));
    expect(() => solveBuilding(data, { goods: 'widgets' }, { rules: 'stated' })).toThrow('supply row 4 refers to unknown goods code 9');
  });
});

describe('solveBuilding with stated rules', () => {
  it('simulates from the stored outputs without caps, letting input-less buildings grow', () => {
    const result = solveBuilding(smallMarket(), { goods: 'widgets' }, { rules: 'stated' });
    // Baseline: parts demand 5, supply 20 -> ratio 20/5 = 4 (uncapped): factory output 4 * 10 = 40.
    // Widgets: demand 10 (pop), supply 40, price = 20 * (1 + 0.75 * (10 - 40) / 40) = 8.75.
    // Factory x6: parts demand 30, supply 20, ratio 2/3, output 2/3 * 60 = 40: price 8.75 again.
    // Mine x6: it keeps its utilization (20/20) of max 120: parts supply 120, ratio 24,
    // factory output 240, price = 20 * (1 + 0.75 * (10 - 240) / 240) = 5.625.
    expect(result.best).toBe('11');
    const byCandidate = new Map(result.candidates.map((c) => [c.candidate, c]));
    expect(byCandidate.get('11')?.after).toBeCloseTo(5.625, 12);
    expect(byCandidate.get('10')?.after).toBeCloseTo(8.75, 12);
    expect(byCandidate.get('12')?.after).toBeCloseTo(8.75, 12);
    expect(byCandidate.get('11')?.before).toBeCloseTo(8.75, 12);
    expect(result.tied).toEqual(['11']);
    expect(result.notes.join('\n')).toMatch(/not a fixed point of the stated rules/);
  });

  it('breaks near-ties by table order within the tolerance', () => {
    const data = smallMarket();
    data.buildings.push({ id: 13, name: 'mine', level: 1 });
    data.supplies.push(supply(1, 13, 20, 20));
    const result = solveBuilding(data, { goods: 'widgets' }, { rules: 'stated' });
    expect(result.best).toBe('11');
    expect(result.tied).toEqual(['11', '13']);
    expect(result.candidates.slice(0, 2).map((c) => c.rank)).toEqual([1, 1]);
  });
});
