/**
 * Building under `stated` rules: a clean simulation of the business rules as the question
 * text states them, starting from the stored outputs rather than stacking on the stored totals.
 *
 * Interpretations (the text leaves these open; see RULES.md):
 * - +5 levels multiply the building's max supply and max demand by (L+5)/L ("proportional").
 * - demand = pop_demand + sum of max_demand; supply = sum of current_output.
 * - current_input = max_demand / demand * supply; a building's output = average over its
 *   inputs of current_input / max_demand (no cap: the text states none) times max_supply.
 * - The text gives no rule for buildings without inputs: they keep their stored utilization
 *   (current_output / max_supply), so an expanded one produces proportionally more.
 * - The text gives no iteration count: 10 input/output cycles (the paper's count), then the
 *   price base * (1 + 0.75 * (demand - supply) / max(demand, supply)) of the final state.
 */
import type { BuildingGoods, BuildingRecord } from './building-data';
import type { Evaluation } from './decision-ranking';
import { expansionFactor, relevantRows, requireGoods, touchesGoods, type Market, type RelevantRows } from './building-market';

const CYCLES = 10;
const PRICE_SENSITIVITY = 0.75;

interface StatedContext {
  market: Market;
  rows: RelevantRows;
  target: number;
}

function price(base: number, demand: number, supply: number): number {
  const larger = Math.max(demand, supply);
  return larger === 0 ? base : base * (1 + (PRICE_SENSITIVITY * (demand - supply)) / larger);
}

function simulate(context: StatedContext, expanded: number | null): number {
  const { market, rows, target } = context;
  const factor = expanded === null ? 1 : expansionFactor(market.buildings[expanded] as BuildingRecord);
  const scaled = (max: number, building: number): number => (building === expanded ? max * factor : max);

  const supplyMax = new Float64Array(market.supplyMax.length);
  const output = new Float64Array(market.supplyMax.length);
  for (const row of rows.supplyRows) {
    const building = market.supplyBuilding[row] as number;
    supplyMax[row] = scaled(market.supplyMax[row] as number, building);
    // Start from the stored state; an expanded building starts at its stored utilization of the larger capacity.
    output[row] = scaled(market.supplyOutput[row] as number, building);
  }
  const demandMax = new Float64Array(market.demandMax.length);
  for (const row of rows.demandRows) demandMax[row] = scaled(market.demandMax[row] as number, market.demandBuilding[row] as number);

  const demand = new Float64Array(market.goods.length);
  const supply = new Float64Array(market.goods.length);
  const input = new Float64Array(market.demandMax.length);
  const aggregate = (): void => {
    for (const goods of rows.influentialGoods) {
      demand[goods] = (market.goods[goods] as BuildingGoods).popDemand;
      supply[goods] = 0;
    }
    for (const row of rows.demandRows) demand[market.demandGoods[row] as number] = (demand[market.demandGoods[row] as number] as number) + (demandMax[row] as number);
    for (const row of rows.supplyRows) supply[market.supplyGoods[row] as number] = (supply[market.supplyGoods[row] as number] as number) + (output[row] as number);
  };

  for (let cycle = 0; cycle < CYCLES; cycle += 1) {
    aggregate();
    for (const row of rows.demandRows) {
      const goods = market.demandGoods[row] as number;
      const goodsDemand = demand[goods] as number;
      input[row] = goodsDemand > 0 ? ((demandMax[row] as number) / goodsDemand) * (supply[goods] as number) : 0;
    }
    for (const building of rows.producers) {
      const inputs = market.demandRowsOf[building] as number[];
      let sum = 0;
      for (const row of inputs) {
        const max = demandMax[row] as number;
        sum += max > 0 ? (input[row] as number) / max : 1;
      }
      const ratio = sum / inputs.length;
      for (const row of market.supplyRowsOf[building] as number[]) {
        if (rows.influential[market.supplyGoods[row] as number] === 1) output[row] = ratio * (supplyMax[row] as number);
      }
    }
  }
  aggregate();
  return price((market.goods[target] as BuildingGoods).basePrice, demand[target] as number, supply[target] as number);
}

export interface StatedOptions {
  /** Skip goods and candidates that provably cannot move the target's price (default true). */
  prune?: boolean;
}

export function evaluateBuildingStated(market: Market, goodsName: string, options: StatedOptions = {}): Evaluation {
  const prune = options.prune ?? true;
  const target = requireGoods(market, goodsName);
  const rows = relevantRows(market, target, prune);
  const context: StatedContext = { market, rows, target };
  const baseline = simulate(context, null);

  let simulated = 0;
  const values = market.buildings.map((building, index) => {
    if (prune && !touchesGoods(market, rows.influential, index)) return { candidate: String(building.id), after: baseline };
    simulated += 1;
    return { candidate: String(building.id), after: simulate(context, index) };
  });
  const notes: string[] = [];
  const stored = (market.goods[target] as BuildingGoods).currentPrice;
  if (Math.abs(baseline - stored) > 1e-9 * Math.max(Math.abs(stored), 1)) {
    notes.push(`the stored state is not a fixed point of the stated rules: without any expansion ${goodsName} would move from ${stored} to ${baseline}`);
  }
  return {
    values,
    before: baseline,
    candidateSet:
      `all ${values.length} buildings in building table order; ${simulated} simulated, ${values.length - simulated} proven unchanged ` +
      `(no row on the ${rows.influentialGoods.length} goods that can move ${goodsName}'s price)`,
    notes,
  };
}
