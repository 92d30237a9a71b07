/**
 * Building under `compat` rules: a replica of what the benchmark's annotation procedure
 * computed, including its order of floating-point operations, so that the answers it
 * decided at float level (equivalent buildings ~1e-16 apart) come out the same.
 *
 * What the annotation did (see RULES.md for the deviations from the question text):
 * - the expanded building's max supply and max demand are multiplied by (L+5)/L;
 * - the stored state is counted twice: each cycle's demand of a goods is its stored demand
 *   (pop_demand + stored max_demand, summed in table order) plus pop_demand plus the
 *   current max_demand rows, and its supply is its stored supply (sum of stored
 *   current_output) plus the sum of this pass's outputs;
 * - outputs of buildings with inputs start at their max supply ("stored output plus max
 *   supply before the first cycle"); buildings without inputs keep their stored
 *   current_output forever, even after +5 levels;
 * - 10 cycles of: demand/supply -> price -> current_input = max_demand / demand * supply ->
 *   output = average over the building's inputs of min(1, current_input / max_demand)
 *   times max supply (the min(1, ...) cap is visible in the stored outputs);
 * - price = base + base * 0.75 * (demand - supply) / max(demand, supply), the price of the
 *   last cycle is the objective, and the winner is the first building in table order
 *   whose price is strictly below the best so far, starting from the stored current_price.
 */
import type { BuildingGoods, BuildingRecord } from './building-data';
import type { Evaluation } from './decision-ranking';
import { expansionFactor, hasInputs, relevantRows, requireGoods, touchesInfluential, type Market, type RelevantRows } from './building-market';

const CYCLES = 10;
const PRICE_SENSITIVITY = 0.75;

interface CompatContext {
  market: Market;
  rows: RelevantRows;
  target: number;
  producerHasInputs: Uint8Array;
}

function price(base: number, demand: number, supply: number): number {
  const larger = Math.max(demand, supply);
  if (larger === 0) return base;
  // Written exactly as the annotation evaluated it; base * (1 + ...) rounds differently.
  return base + (base * PRICE_SENSITIVITY * (demand - supply)) / larger;
}

function simulate(context: CompatContext, expanded: number | null): number {
  const { market, rows, target } = context;
  const factor = expanded === null ? 1 : expansionFactor(market.buildings[expanded] as BuildingRecord);
  const scaled = (max: number, building: number): number => (building === expanded ? max * factor : max);

  const supplyMax = new Float64Array(market.supplyMax.length);
  const output = new Float64Array(market.supplyMax.length);
  for (const row of rows.supplyRows) {
    const building = market.supplyBuilding[row] as number;
    supplyMax[row] = scaled(market.supplyMax[row] as number, building);
    output[row] = context.producerHasInputs[building] === 1 ? (supplyMax[row] as number) : (market.supplyOutput[row] as number);
  }
  const demandMax = new Float64Array(market.demandMax.length);
  for (const row of rows.demandRows) demandMax[row] = scaled(market.demandMax[row] as number, market.demandBuilding[row] as number);

  const demand = new Float64Array(market.goods.length);
  const supply = new Float64Array(market.goods.length);
  const newSupply = new Float64Array(market.goods.length);
  const input = new Float64Array(market.demandMax.length);
  const targetBase = (market.goods[target] as BuildingGoods).basePrice;
  let lastPrice = Number.NaN;

  for (let cycle = 0; cycle < CYCLES; cycle += 1) {
    for (const goods of rows.influentialGoods) {
      demand[goods] = (market.storedDemand[goods] as number) + (market.goods[goods] as BuildingGoods).popDemand;
      newSupply[goods] = 0;
    }
    for (const row of rows.demandRows) demand[market.demandGoods[row] as number] = (demand[market.demandGoods[row] as number] as number) + (demandMax[row] as number);
    for (const row of rows.supplyRows) newSupply[market.supplyGoods[row] as number] = (newSupply[market.supplyGoods[row] as number] as number) + (output[row] as number);
    for (const goods of rows.influentialGoods) supply[goods] = (market.storedSupply[goods] as number) + (newSupply[goods] as number);

    lastPrice = price(targetBase, demand[target] as number, supply[target] as number);

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
        // A zero requirement cannot be short, so it counts as fully supplied.
        sum += max > 0 ? Math.min(1, (input[row] as number) / max) : 1;
      }
      const ratio = sum / inputs.length;
      for (const row of market.supplyRowsOf[building] as number[]) {
        if (rows.influential[market.supplyGoods[row] as number] === 1) output[row] = ratio * (supplyMax[row] as number);
      }
    }
  }
  return lastPrice;
}

export function evaluateBuildingCompat(market: Market, goodsName: string): Evaluation {
  const target = requireGoods(market, goodsName);
  const rows = relevantRows(market, target);
  const producerHasInputs = Uint8Array.from(market.buildings, (_, index) => (hasInputs(market, index) ? 1 : 0));
  const context: CompatContext = { market, rows, target, producerHasInputs };
  const baseline = simulate(context, null);

  let simulated = 0;
  const values = market.buildings.map((building, index) => {
    // Proven unchanged: a building without inputs keeps its stored output (compat), and a
    // building whose rows avoid every influential goods cannot reach the target's price.
    if (!hasInputs(market, index) || !touchesInfluential(market, rows, index)) return { candidate: String(building.id), after: baseline };
    simulated += 1;
    return { candidate: String(building.id), after: simulate(context, index) };
  });

  const stored = (market.goods[target] as BuildingGoods).currentPrice;
  return {
    values,
    before: stored,
    candidateSet:
      `all ${values.length} buildings in building table order; ${simulated} simulated, ${values.length - simulated} proven unchanged ` +
      `(no inputs, so compat keeps their stored output; or no row on the ${rows.influentialGoods.length} goods that can move ${goodsName}'s price)`,
    notes: [],
  };
}
