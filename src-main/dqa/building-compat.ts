/**
 * Building under `compat` rules: the procedure that reproduces the benchmark's annotated
 * answers, step by step as ../shared/dqa/README.md ("Building, exactly as the annotation
 * computed it") states it, including its order of floating-point operations. "Row order" is
 * the buildings' table order, and within a building its demand / supply rows in file order;
 * every sum is taken in that order, one addition at a time.
 *
 * 1. stored totals per goods: BD0 = Σ stored max_demand, S0 = Σ stored current_output;
 * 2. the candidate's max_demand and max_supply rows are multiplied by (L + 5) / L;
 * 3. BD = BD0 + every (expanded) max_demand again; D = pop_demand + BD, fixed for all cycles;
 * 4. initial S = S0 + every (expanded) max_supply, buildings without inputs included;
 * 5. ten cycles: current_input = (max_demand · S) / D for every demand row; S is reset to 0;
 *    each building with inputs outputs max_supply · (plain average of
 *    min(current_input, max_demand) / max_demand), a building without inputs its stored
 *    current_output; each output is added to S;
 * 6. price = base · (1 + ((0.75 · (D − S)) / max(D, S))), or base when D = S = 0;
 * 7. the winner is the first building whose price is strictly below the best so far,
 *    starting from the stored current_price (decision-ranking.ts, `mustBeat`).
 *
 * Proven pruning (on by default; `prune: false` simulates every building over every row,
 * and a test checks both give bit-identical prices on every dev question): only goods that
 * can move the target's price are simulated (the target and, recursively, every input of a
 * building with inputs that supplies one), and a building with no row on those goods keeps
 * the unexpanded price. Per-goods sums never mix goods, so dropping the other goods' rows
 * changes no addition on the goods kept.
 */
import type { BuildingGoods, BuildingRecord } from './building-data';
import type { Evaluation } from './decision-ranking';
import { DqaDataError } from './load-values';
import { expansionFactor, influentialGoods, requireGoods, touchesGoods, type Market } from './building-market';

const CYCLES = 10;
const PRICE_SENSITIVITY = 0.75;

export interface CompatOptions {
  /** Skip goods and candidates that provably cannot move the target's price (default true). */
  prune?: boolean;
}

/**
 * The rows one target's simulation reads, flattened into typed arrays in row order (CSR
 * style: `…Start[i]..…Start[i + 1]` indexes the i-th building's rows).
 */
interface CompatPlan {
  target: number;
  /** Goods simulated (influential, or all when not pruning). */
  goods: Int32Array;
  /** Demand rows on simulated goods, in row order: summed into D. */
  demandRows: Int32Array;
  /** Supply rows on simulated goods, in row order: summed into the initial S. */
  supplyRows: Int32Array;
  /** Buildings with a supply row on a simulated goods, in row order. */
  suppliers: Int32Array;
  /** Per supplier: all its demand rows (its inputs), in file order. */
  supplierDemandStart: Int32Array;
  supplierDemandRows: Int32Array;
  /** Per supplier: its supply rows on simulated goods, in file order. */
  supplierSupplyStart: Int32Array;
  supplierSupplyRows: Int32Array;
}

function plan(market: Market, target: number, prune: boolean): CompatPlan {
  return planOver(market, target, prune ? influentialGoods(market, target) : new Uint8Array(market.goods.length).fill(1));
}

/** The plan over the goods flagged in `simulatedGoods`, which must be closed under influence (see influentialGoods). */
function planOver(market: Market, target: number, simulatedGoods: Uint8Array): CompatPlan {
  const goods: number[] = [];
  simulatedGoods.forEach((flag, index) => {
    if (flag === 1) goods.push(index);
  });
  const demandRows: number[] = [];
  const supplyRows: number[] = [];
  const suppliers: number[] = [];
  const supplierDemandStart = [0];
  const supplierDemandRows: number[] = [];
  const supplierSupplyStart = [0];
  const supplierSupplyRows: number[] = [];
  market.buildings.forEach((_, building) => {
    const demands = market.demandRowsOf[building] as number[];
    for (const row of demands) if (simulatedGoods[market.demandGoods[row] as number] === 1) demandRows.push(row);
    const supplies = (market.supplyRowsOf[building] as number[]).filter((row) => simulatedGoods[market.supplyGoods[row] as number] === 1);
    if (supplies.length === 0) return;
    supplyRows.push(...supplies);
    suppliers.push(building);
    // Every input of a supplier of a simulated goods is itself simulated (influentialGoods closes over them).
    for (const row of demands) {
      // Step 5 divides by max_demand: the annotation could not have run on such a row.
      if (!((market.demandMax[row] as number) > 0)) {
        const goodsName = (market.goods[market.demandGoods[row] as number] as BuildingGoods).name;
        throw new DqaDataError(`building ${(market.buildings[building] as BuildingRecord).id} needs ${goodsName} with max_demand ${market.demandMax[row]}: compat rules divide by it, so it must be positive`);
      }
    }
    supplierDemandRows.push(...demands);
    supplierDemandStart.push(supplierDemandRows.length);
    supplierSupplyRows.push(...supplies);
    supplierSupplyStart.push(supplierSupplyRows.length);
  });
  return {
    target,
    goods: Int32Array.from(goods),
    demandRows: Int32Array.from(demandRows),
    supplyRows: Int32Array.from(supplyRows),
    suppliers: Int32Array.from(suppliers),
    supplierDemandStart: Int32Array.from(supplierDemandStart),
    supplierDemandRows: Int32Array.from(supplierDemandRows),
    supplierSupplyStart: Int32Array.from(supplierSupplyStart),
    supplierSupplyRows: Int32Array.from(supplierSupplyRows),
  };
}

/** Scratch arrays reused across one question's candidates (the simulation is the hot loop). */
interface Scratch {
  demandMax: Float64Array;
  supplyMax: Float64Array;
  input: Float64Array;
  demand: Float64Array;
  supply: Float64Array;
}

function scratchFor(market: Market): Scratch {
  return {
    demandMax: Float64Array.from(market.demandMax),
    supplyMax: Float64Array.from(market.supplyMax),
    input: new Float64Array(market.demandMax.length),
    demand: new Float64Array(market.goods.length),
    supply: new Float64Array(market.goods.length),
  };
}

export function compatPrice(base: number, demand: number, supply: number): number {
  if (demand === 0 && supply === 0) return base;
  return base * (1 + (PRICE_SENSITIVITY * (demand - supply)) / Math.max(demand, supply));
}

/** Expands (factor ≠ 1) or restores (factor 1) one building's max_demand / max_supply rows in the scratch arrays. */
function scaleBuilding(market: Market, scratch: Scratch, building: number, factor: number): void {
  for (const row of market.demandRowsOf[building] as number[]) scratch.demandMax[row] = factor === 1 ? (market.demandMax[row] as number) : (market.demandMax[row] as number) * factor;
  for (const row of market.supplyRowsOf[building] as number[]) scratch.supplyMax[row] = factor === 1 ? (market.supplyMax[row] as number) : (market.supplyMax[row] as number) * factor;
}

/** The target's price after the tenth cycle with `expanded` raised by 5 levels (or none). */
function simulate(market: Market, p: CompatPlan, scratch: Scratch, expanded: number | null): number {
  run(market, p, scratch, expanded);
  return priceOf(market, scratch, p.target);
}

/** A goods' price from D and S as the last `run` left them in the scratch arrays. */
function priceOf(market: Market, scratch: Scratch, goods: number): number {
  return compatPrice((market.goods[goods] as BuildingGoods).basePrice, scratch.demand[goods] as number, scratch.supply[goods] as number);
}

/**
 * One cycle of step 5, on the plan's and scratch arrays passed one by one. A function of its
 * own (not a loop inside `run`) because V8 optimizes a function after a number of budget
 * ticks that grows with its bytecode size: this small one reaches optimized code sooner, and
 * the first Building questions of a run, which otherwise spend most of their time in the
 * interpreter and baseline code, take ≈ 0.015 s less CPU (docs/simulators.md, round 6).
 */
function cycleOnce(
  rows: Int32Array,
  goods: Int32Array,
  suppliers: number,
  demandStart: Int32Array,
  supplyStart: Int32Array,
  supplyRows: Int32Array,
  demandGoods: Int32Array,
  demandMax: Float64Array,
  supply: Float64Array,
  demand: Float64Array,
  input: Float64Array,
  supplyGoods: Int32Array,
  supplyOutput: Float64Array,
  supplyMax: Float64Array,
): void {
  for (let i = 0; i < rows.length; i += 1) {
    const row = rows[i] as number;
    const g = demandGoods[row] as number;
    input[row] = ((demandMax[row] as number) * (supply[g] as number)) / (demand[g] as number);
  }
  for (let i = 0; i < goods.length; i += 1) supply[goods[i] as number] = 0;
  for (let s = 0; s < suppliers; s += 1) {
    const demandFrom = demandStart[s] as number;
    const demandTo = demandStart[s + 1] as number;
    const supplyFrom = supplyStart[s] as number;
    const supplyTo = supplyStart[s + 1] as number;
    if (demandTo === demandFrom) {
      // No inputs: the stored current_output, even after expansion.
      for (let j = supplyFrom; j < supplyTo; j += 1) {
        const row = supplyRows[j] as number;
        const g = supplyGoods[row] as number;
        supply[g] = (supply[g] as number) + (supplyOutput[row] as number);
      }
      continue;
    }
    let sum = 0;
    for (let j = demandFrom; j < demandTo; j += 1) {
      const row = rows[j] as number;
      const max = demandMax[row] as number;
      sum += Math.min(input[row] as number, max) / max;
    }
    const ratio = sum / (demandTo - demandFrom);
    for (let j = supplyFrom; j < supplyTo; j += 1) {
      const row = supplyRows[j] as number;
      const g = supplyGoods[row] as number;
      supply[g] = (supply[g] as number) + (supplyMax[row] as number) * ratio;
    }
  }
}

/** Steps 2 to 5 with `expanded` raised by 5 levels (or none): leaves D and S of every simulated goods in the scratch arrays. */
function run(market: Market, p: CompatPlan, scratch: Scratch, expanded: number | null): void {
  if (expanded !== null) scaleBuilding(market, scratch, expanded, expansionFactor(market.buildings[expanded] as BuildingRecord));
  const { demandMax, supplyMax, input, demand, supply } = scratch;
  const { demandGoods, supplyGoods, supplyOutput, storedBuildingDemand, storedSupply, popDemand } = market;

  // Steps 3 and 4: D = pop_demand + (BD0 + Σ max_demand); S = S0 + Σ max_supply.
  for (let i = 0; i < p.goods.length; i += 1) {
    const g = p.goods[i] as number;
    demand[g] = storedBuildingDemand[g] as number;
    supply[g] = storedSupply[g] as number;
  }
  for (let i = 0; i < p.demandRows.length; i += 1) {
    const row = p.demandRows[i] as number;
    const g = demandGoods[row] as number;
    demand[g] = (demand[g] as number) + (demandMax[row] as number);
  }
  for (let i = 0; i < p.goods.length; i += 1) {
    const g = p.goods[i] as number;
    demand[g] = (popDemand[g] as number) + (demand[g] as number);
  }
  for (let i = 0; i < p.supplyRows.length; i += 1) {
    const row = p.supplyRows[i] as number;
    const g = supplyGoods[row] as number;
    supply[g] = (supply[g] as number) + (supplyMax[row] as number);
  }

  // Step 5. Plan arrays in locals: this loop is where a Building question spends its time.
  const rows = p.supplierDemandRows;
  const goods = p.goods;
  const suppliers = p.suppliers.length;
  const demandStart = p.supplierDemandStart;
  const supplyStart = p.supplierSupplyStart;
  const supplyRows = p.supplierSupplyRows;
  for (let cycle = 0; cycle < CYCLES; cycle += 1) {
    cycleOnce(rows, goods, suppliers, demandStart, supplyStart, supplyRows, demandGoods, demandMax, supply, demand, input, supplyGoods, supplyOutput, supplyMax);
  }

  if (expanded !== null) scaleBuilding(market, scratch, expanded, 1);
}

export function evaluateBuildingCompat(market: Market, goodsName: string, options: CompatOptions = {}): Evaluation {
  const prune = options.prune ?? true;
  const target = requireGoods(market, goodsName);
  const p = plan(market, target, prune);
  const simulatedGoods = new Uint8Array(market.goods.length);
  for (const g of p.goods) simulatedGoods[g] = 1;
  const scratch = scratchFor(market);
  const baseline = simulate(market, p, scratch, null);

  let simulated = 0;
  const values = market.buildings.map((building, index) => {
    if (prune && !touchesGoods(market, simulatedGoods, index)) return { candidate: String(building.id), after: baseline };
    simulated += 1;
    return { candidate: String(building.id), after: simulate(market, p, scratch, index) };
  });

  const stored = (market.goods[target] as BuildingGoods).currentPrice;
  return {
    values,
    before: stored,
    candidateSet: prune
      ? `all ${values.length} buildings in building table order; ${simulated} simulated, ${values.length - simulated} proven unchanged ` +
        `(no row on the ${p.goods.length} goods that can move ${goodsName}'s price)`
      : `all ${values.length} buildings in building table order, each simulated over every goods (no pruning)`,
    notes: [],
  };
}

/**
 * Every goods in `goodsNames` evaluated on one market together, each exactly as
 * `evaluateBuildingCompat(market, goods)` (pruned) would: one run per candidate over the
 * union of the targets' influential goods gives every target's price. Per-goods sums never
 * mix goods and the union is closed under influence, so each target's D and S come from the
 * same additions in the same order as in its own pruned run (the argument that makes the
 * pruning exact); a candidate outside a target's own goods keeps that target's unexpanded
 * price, as in its own run. A test checks the results equal separate evaluations on every dev
 * question. When a goods is unknown or the union plan refuses a row, each goods is evaluated
 * on its own, so every one gets the error (or result) it would alone.
 */
export function evaluateBuildingCompatTogether(market: Market, goodsNames: readonly string[]): Evaluation[] {
  const alone = (): Evaluation[] => goodsNames.map((goods) => evaluateBuildingCompat(market, goods));
  if (goodsNames.length < 2 || goodsNames.some((goods) => !market.goodsIndexByName.has(goods))) return alone();
  const targets = goodsNames.map((goods) => requireGoods(market, goods));
  const own = targets.map((target) => influentialGoods(market, target));
  const union = new Uint8Array(market.goods.length);
  for (const flags of own) flags.forEach((flag, g) => {
    if (flag === 1) union[g] = 1;
  });
  let p: CompatPlan;
  try {
    p = planOver(market, targets[0] as number, union);
  } catch {
    return alone();
  }
  const scratch = scratchFor(market);
  run(market, p, scratch, null);
  const baselines = targets.map((target) => priceOf(market, scratch, target));
  const buildingCount = market.buildings.length;
  const prices = targets.map(() => new Float64Array(buildingCount));
  // touching[t * buildingCount + b]: building b has a row on a goods that can move target t (touchesGoods, for all at once).
  const touching = new Uint8Array(targets.length * buildingCount);
  own.forEach((flags, t) => {
    for (let row = 0; row < market.supplyGoods.length; row += 1) {
      if (flags[market.supplyGoods[row] as number] === 1) touching[t * buildingCount + (market.supplyBuilding[row] as number)] = 1;
    }
    for (let row = 0; row < market.demandGoods.length; row += 1) {
      if (flags[market.demandGoods[row] as number] === 1) touching[t * buildingCount + (market.demandBuilding[row] as number)] = 1;
    }
  });
  const simulatedCount = targets.map(() => 0);
  for (let building = 0; building < buildingCount; building += 1) {
    let any = false;
    for (let t = 0; t < targets.length && !any; t += 1) any = touching[t * buildingCount + building] === 1;
    if (!any) continue;
    run(market, p, scratch, building);
    for (let t = 0; t < targets.length; t += 1) {
      if (touching[t * buildingCount + building] !== 1) continue;
      (prices[t] as Float64Array)[building] = priceOf(market, scratch, targets[t] as number);
      simulatedCount[t] = (simulatedCount[t] as number) + 1;
    }
  }
  return targets.map((target, t) => {
    const flags = own[t] as Uint8Array;
    const goodsCount = flags.reduce((sum, flag) => sum + flag, 0);
    const values = market.buildings.map((building, index) => ({
      candidate: String(building.id),
      after: touching[t * buildingCount + index] === 1 ? ((prices[t] as Float64Array)[index] as number) : (baselines[t] as number),
    }));
    const simulated = simulatedCount[t] as number;
    const goodsName = goodsNames[t] as string;
    return {
      values,
      before: (market.goods[target] as BuildingGoods).currentPrice,
      candidateSet:
        `all ${values.length} buildings in building table order; ${simulated} simulated, ${values.length - simulated} proven unchanged ` +
        `(no row on the ${goodsCount} goods that can move ${goodsName}'s price)`,
      notes: [],
    };
  });
}
