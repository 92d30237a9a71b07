/**
 * Locating under `compat` rules: a replica of what the benchmark's annotation procedure
 * computed, down to the order of floating-point operations (see RULES.md for each deviation
 * from the question text).
 *
 * The stored database already holds the state after one simulation pass, and the annotation
 * simulated once more on top of it:
 * - a node's total power is its stored `total_power` plus every presence's power again;
 * - inflows produced by this pass are added to the stored `ingoing`;
 * - nodes are processed once, in trade_node table order;
 * - a node's outgoing value is (local_value + ingoing) * (power of presences whose home it
 *   is not) / total, split evenly over its destinations and multiplied by 1.05 on arrival;
 * - the merchant raises the country's power at its node to 1.05 * (base + 2), or on an
 *   inland node 1.05 * (base + 2 + max(50, development)); it only acts where the country
 *   already has a node_country row, and then sends the node's whole outgoing value to the
 *   destination closest to home (fewest hops; first in flow order on equal hops);
 * - the objective is (local_value + ingoing) * country power / total at the home node.
 */
import type { Evaluation } from './decision-ranking';
import { closestDestTowards, hopsTo, requireCountry, requireNode, type TradeGraph, type TradeGraphNode } from './locating-graph';

const ARRIVAL_FACTOR = 1.05;
const MERCHANT_FACTOR = 1.05;
const MERCHANT_BONUS = 2;
const INLAND_MINIMUM = 50;

export function compatMerchantPower(basePower: number, inland: boolean, development: number): number {
  // Grouped as the annotation did: the bonus is summed before it is added to the base.
  const bonus = MERCHANT_BONUS + (inland ? Math.max(INLAND_MINIMUM, development) : 0);
  return MERCHANT_FACTOR * (basePower + bonus);
}

interface CompatContext {
  graph: TradeGraph;
  country: string;
  development: number;
  home: number;
  hops: Int32Array;
  /** Skip nodes that cannot reach home (exact: their value never arrives there). */
  prune: boolean;
}

export interface LocatingCompatOptions {
  /** Skip candidates and nodes that provably cannot change the profit at home (default true). */
  prune?: boolean;
  /**
   * Resume each candidate's pass from the no-merchant pass (default true): nodes before the
   * merchant's node in table order are processed exactly as without a merchant, and every
   * node but the merchant's sums the same powers, so the candidate's pass starts from the
   * no-merchant `ingoing` as it stood at the merchant's node and reuses the no-merchant power
   * sums elsewhere. The same operations on the same values in the same order: bit-identical
   * to a pass from scratch (`false`; a test checks both on every dev question).
   */
  incremental?: boolean;
}

/** One annotation pass with the merchant at `merchantNode` (or none); returns the profit at home. */
function simulate(context: CompatContext, merchantNode: number | null): number {
  const { graph, country, home, hops } = context;
  const ingoing = Float64Array.from(graph.nodes, (node) => node.stored.ingoing);
  for (let index = 0; index < graph.nodes.length; index += 1) {
    // Nodes that cannot reach home cannot change its profit; skipping them is exact.
    if (context.prune && (hops[index] as number) < 0) continue;
    const node = graph.nodes[index] as TradeGraphNode;
    let total = node.stored.totalPower;
    let nonHomePower = 0;
    let countryPower = 0;
    let merchantPlaced = false;
    for (const presence of node.presences) {
      let power = presence.calculatedPower;
      if (presence.country === country) {
        if (index === merchantNode) {
          power = compatMerchantPower(presence.basePower, node.stored.isInland, context.development);
          merchantPlaced = true;
        }
        countryPower = power;
      }
      total += power;
      if (!presence.isHome) nonHomePower += power;
    }
    const value = node.stored.localValue + (ingoing[index] as number);
    if (index === home) return total === 0 ? 0 : (value * countryPower) / total;
    if (node.dests.length === 0 || total === 0) continue;
    const outgoing = (value * nonHomePower) / total;
    const steeredTo = merchantPlaced ? closestDestTowards(graph, index, hops) : null;
    if (steeredTo !== null) {
      ingoing[steeredTo] = (ingoing[steeredTo] as number) + outgoing * ARRIVAL_FACTOR;
      continue;
    }
    const share = outgoing / node.dests.length;
    for (const dest of node.dests) ingoing[dest] = (ingoing[dest] as number) + share * ARRIVAL_FACTOR;
  }
  throw new Error('home node was not reached');
}

/**
 * The no-merchant pass, recording what candidates resume from: `ingoing` as it stood just
 * before each node was processed (row i of `ingoingBefore`), and each node's power sums.
 */
interface BaselinePass {
  profit: number;
  /** nodes × nodes, row-major: ingoing of every node just before node i was processed. */
  ingoingBefore: Float64Array;
  total: Float64Array;
  nonHomePower: Float64Array;
  countryPower: Float64Array;
}

/** A node's power sums as `simulate` takes them; returns whether the merchant was placed. */
function sumPowers(context: CompatContext, node: TradeGraphNode, merchant: boolean, out: { total: number; nonHomePower: number; countryPower: number }): boolean {
  const { country } = context;
  let total = node.stored.totalPower;
  let nonHomePower = 0;
  let countryPower = 0;
  let placed = false;
  for (const presence of node.presences) {
    let power = presence.calculatedPower;
    if (presence.country === country) {
      if (merchant) {
        power = compatMerchantPower(presence.basePower, node.stored.isInland, context.development);
        placed = true;
      }
      countryPower = power;
    }
    total += power;
    if (!presence.isHome) nonHomePower += power;
  }
  out.total = total;
  out.nonHomePower = nonHomePower;
  out.countryPower = countryPower;
  return placed;
}

/**
 * The nodes × nodes record of one baseline pass, reused by the next question (a pass lives only
 * while its question is evaluated, and every row a candidate reads is written first: rows up to
 * home's, and candidates after home never read one). Allocating it per question was most of
 * what a Locating run allocated.
 */
let ingoingBeforeBuffer = new Float64Array(0);

/** Same pass as `simulate(context, null)`, recording the state candidates resume from. */
function baselinePass(context: CompatContext): BaselinePass {
  const { graph, home, hops } = context;
  const n = graph.nodes.length;
  const ingoing = Float64Array.from(graph.nodes, (node) => node.stored.ingoing);
  if (ingoingBeforeBuffer.length < n * n) ingoingBeforeBuffer = new Float64Array(n * n);
  const ingoingBefore = ingoingBeforeBuffer;
  const total = new Float64Array(n);
  const nonHomePower = new Float64Array(n);
  const countryPower = new Float64Array(n);
  const sums = { total: 0, nonHomePower: 0, countryPower: 0 };
  for (let index = 0; index < n; index += 1) {
    ingoingBefore.set(ingoing, index * n);
    if (context.prune && (hops[index] as number) < 0) continue;
    const node = graph.nodes[index] as TradeGraphNode;
    sumPowers(context, node, false, sums);
    total[index] = sums.total;
    nonHomePower[index] = sums.nonHomePower;
    countryPower[index] = sums.countryPower;
    const value = node.stored.localValue + (ingoing[index] as number);
    if (index === home) return { profit: sums.total === 0 ? 0 : (value * sums.countryPower) / sums.total, ingoingBefore, total, nonHomePower, countryPower };
    if (node.dests.length === 0 || sums.total === 0) continue;
    const share = (value * sums.nonHomePower) / sums.total / node.dests.length;
    for (const dest of node.dests) ingoing[dest] = (ingoing[dest] as number) + share * ARRIVAL_FACTOR;
  }
  throw new Error('home node was not reached');
}

/** `simulate(context, merchantNode)`, resumed from the baseline pass at the merchant's node. */
function resumedPass(context: CompatContext, baseline: BaselinePass, merchantNode: number, ingoing: Float64Array): number {
  const { graph, home, hops } = context;
  const n = graph.nodes.length;
  // The pass ends at home: a merchant after it in table order is never reached.
  if (merchantNode > home) return baseline.profit;
  ingoing.set(baseline.ingoingBefore.subarray(merchantNode * n, merchantNode * n + n));
  const sums = { total: 0, nonHomePower: 0, countryPower: 0 };
  for (let index = merchantNode; index < n; index += 1) {
    if (context.prune && (hops[index] as number) < 0) continue;
    const node = graph.nodes[index] as TradeGraphNode;
    let merchantPlaced = false;
    if (index === merchantNode) {
      merchantPlaced = sumPowers(context, node, true, sums);
    } else {
      sums.total = baseline.total[index] as number;
      sums.nonHomePower = baseline.nonHomePower[index] as number;
      sums.countryPower = baseline.countryPower[index] as number;
    }
    const { total } = sums;
    const value = node.stored.localValue + (ingoing[index] as number);
    if (index === home) return total === 0 ? 0 : (value * sums.countryPower) / total;
    if (node.dests.length === 0 || total === 0) continue;
    const outgoing = (value * sums.nonHomePower) / total;
    const steeredTo = merchantPlaced ? closestDestTowards(graph, index, hops) : null;
    if (steeredTo !== null) {
      ingoing[steeredTo] = (ingoing[steeredTo] as number) + outgoing * ARRIVAL_FACTOR;
      continue;
    }
    const share = outgoing / node.dests.length;
    for (const dest of node.dests) ingoing[dest] = (ingoing[dest] as number) + share * ARRIVAL_FACTOR;
  }
  throw new Error('home node was not reached');
}

export function evaluateLocatingCompat(graph: TradeGraph, countryName: string, homeName: string, options: LocatingCompatOptions = {}): Evaluation {
  const prune = options.prune ?? true;
  const country = requireCountry(graph, countryName);
  const home = requireNode(graph, homeName);
  const hops = hopsTo(graph, home);
  const context: CompatContext = { graph, country: country.name, development: country.development, home, hops, prune };
  const incremental = options.incremental ?? true;
  const pass = incremental ? baselinePass(context) : null;
  const baseline = pass !== null ? pass.profit : simulate(context, null);
  const scratch = new Float64Array(graph.nodes.length);

  let simulated = 0;
  const values = graph.nodes.flatMap((node, index) => {
    if (index === home) return [];
    // Proven unchanged: the merchant only acts where the country has a row, and only nodes upstream of home matter.
    const acts = (hops[index] as number) > 0 && node.presences.some((p) => p.country === country.name);
    if (prune && !acts) return [{ candidate: node.name, after: baseline }];
    simulated += 1;
    return [{ candidate: node.name, after: pass !== null ? resumedPass(context, pass, index, scratch) : simulate(context, index) }];
  });

  const notes: string[] = [];
  if (prune && simulated === 0) notes.push(`${country.name} has no trading power upstream of ${homeName}: every option leaves the profit unchanged`);
  return {
    values,
    before: baseline,
    candidateSet: prune
      ? `all ${values.length} trade nodes except the home node ${homeName}, in trade_node table order; ` +
        `${simulated} simulated, ${values.length - simulated} proven unchanged (not upstream of ${homeName}, or no ${country.name} presence for the merchant to act on)`
      : `all ${values.length} trade nodes except the home node ${homeName}, in trade_node table order, each simulated over every node (no pruning)`,
    notes,
  };
}
