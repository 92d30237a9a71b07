/**
 * The critical values of a DQA question (PlanRAG paper, "rate of missed data analysis"): the
 * stored values a decision maker must have looked at to rank the best candidate. Locating:
 * the best node's incoming value (IV) and total trading power (TPtotal); Building: the goods'
 * pop demand (PD) and the best building's current output of it (CO).
 */
import type { PreparedScenario } from '../dqa/prepared-scenario';

export interface CriticalValue {
  label: string;
  value: number;
}

export function criticalValues(prepared: PreparedScenario, question: { goods?: string }, best: string): CriticalValue[] {
  if (prepared.scenario === 'locating') {
    const index = prepared.graph.indexOf.get(best);
    const node = index === undefined ? undefined : prepared.graph.nodes[index];
    if (!node) return [];
    return [
      { label: `ingoing of ${best} (IV)`, value: node.stored.ingoing },
      { label: `total_power of ${best} (TPtotal)`, value: node.stored.totalPower },
    ];
  }
  const { market } = prepared;
  const goodsIndex = question.goods === undefined ? undefined : market.goodsIndexByName.get(question.goods);
  if (goodsIndex === undefined) return [];
  const goods = market.goods[goodsIndex];
  const values: CriticalValue[] = goods ? [{ label: `pop_demand of ${goods.name} (PD)`, value: goods.popDemand }] : [];
  const buildingIndex = market.buildings.findIndex((building) => String(building.id) === best);
  for (const row of market.supplyRowsOf[buildingIndex] ?? []) {
    if (market.supplyGoods[row] === goodsIndex) values.push({ label: `current_output of ${question.goods ?? ''} by building ${best} (CO)`, value: market.supplyOutput[row] as number });
  }
  return values;
}

/**
 * Whether `value` is distinctive enough that finding it in a text means it was retrieved:
 * zero and small whole numbers turn up everywhere (row counts, levels, flags).
 */
export function isDistinctive(value: number): boolean {
  return Number.isFinite(value) && !(Number.isInteger(value) && Math.abs(value) < 10);
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g;

/**
 * Whether a number equal to `value` appears in `text`, as printed in full or rounded to the
 * decimals it shows: a value printed with k ≥ 1 decimals counts when it is the true value
 * rounded to k decimals (a database's ROUND(x, 1) or a model's formatting retrieved the value;
 * 3.2 for 3.2146, never 3.3). A whole number is not taken as a rounding: small integers are
 * everywhere (row counts, levels), so only an exact whole value counts.
 */
export function appearsIn(value: number, text: string): boolean {
  for (const match of text.matchAll(NUMBER)) {
    const printed = match[0];
    const number = Number(printed);
    if (!Number.isFinite(number)) continue;
    if (Math.abs(number - value) <= 1e-9 * Math.max(1, Math.abs(value))) return true;
    const decimals = /\.(\d+)/.exec(printed)?.[1]?.length ?? 0;
    if (decimals >= 1 && !/[eE]/.test(printed) && roundsTo(value, decimals, number)) return true;
  }
  return false;
}

/**
 * Whether `value` rounded to `decimals` is `printed`: within half a unit of the last decimal
 * shown, with room for binary representation (1.005 may print as 1.00 or 1.01, both honest).
 */
function roundsTo(value: number, decimals: number, printed: number): boolean {
  const halfUnit = 0.5 * 10 ** -decimals;
  return Math.abs(printed - value) <= halfUnit * (1 + 1e-9) + 1e-12 * Math.max(1, Math.abs(value));
}
