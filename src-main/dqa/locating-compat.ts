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

export function evaluateLocatingCompat(graph: TradeGraph, countryName: string, homeName: string, options: LocatingCompatOptions = {}): Evaluation {
  const prune = options.prune ?? true;
  const country = requireCountry(graph, countryName);
  const home = requireNode(graph, homeName);
  const hops = hopsTo(graph, home);
  const context: CompatContext = { graph, country: country.name, development: country.development, home, hops, prune };
  const baseline = simulate(context, null);

  let simulated = 0;
  const values = graph.nodes.flatMap((node, index) => {
    if (index === home) return [];
    // Proven unchanged: the merchant only acts where the country has a row, and only nodes upstream of home matter.
    const acts = (hops[index] as number) > 0 && node.presences.some((p) => p.country === country.name);
    if (prune && !acts) return [{ candidate: node.name, after: baseline }];
    simulated += 1;
    return [{ candidate: node.name, after: simulate(context, index) }];
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
