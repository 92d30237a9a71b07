/**
 * Locating under `stated` rules: a clean simulation of the business rules as the question
 * text states them, from scratch rather than on top of the stored state.
 *
 * Interpretations (the text leaves these open; see RULES.md):
 * - Power: a presence's `base_trading_power` (its stored `calculated_trading_power` when the
 *   dump says a merchant is already there). A node's total power is the sum of its presences.
 * - Flow: nodes are processed in topological order with `ingoing` starting at zero. A node's
 *   value (local_value + ingoing) leaves it in proportion to the power of countries whose
 *   home it is not; with no merchant it splits evenly over the destinations ("in proportion
 *   to other outflows"), and it gains 1.05x on arrival.
 * - Merchant: adds 2 and amplifies by 1.05; the bonus becomes 2 + max(development / 3, 50)
 *   when one of the node's edges touches an inland node (the node itself or a neighbour).
 *   A merchant may go to a node where the country has no presence yet (base 0). The country
 *   decides the direction: all of the node's outflow follows the merchant's choice (the
 *   others' outflow goes "in proportion to other outflows", which is only the merchant's),
 *   and the simulator tries every destination that can reach home and keeps the best.
 */
import type { Evaluation } from './decision-ranking';
import { hopsTo, requireCountry, requireNode, type Presence, type TradeGraph, type TradeGraphNode } from './locating-graph';

const ARRIVAL_FACTOR = 1.05;
const MERCHANT_FACTOR = 1.05;
const MERCHANT_BONUS = 2;
const INLAND_MINIMUM = 50;
const INLAND_DEVELOPMENT_DIVISOR = 3;

interface Merchant {
  node: number;
  steerTo: number;
  power: number;
}

interface StatedContext {
  graph: TradeGraph;
  order: number[];
  country: string;
  home: number;
}

function presencePower(presence: Presence): number {
  return presence.hasMerchant ? presence.calculatedPower : presence.basePower;
}

function touchesInland(graph: TradeGraph, index: number): boolean {
  const node = graph.nodes[index] as TradeGraphNode;
  if (node.stored.isInland) return true;
  return [...node.dests, ...node.sources].some((other) => (graph.nodes[other] as TradeGraphNode).stored.isInland);
}

export function statedMerchantPower(basePower: number, touchingInland: boolean, development: number): number {
  const bonus = touchingInland ? MERCHANT_BONUS + Math.max(development / INLAND_DEVELOPMENT_DIVISOR, INLAND_MINIMUM) : MERCHANT_BONUS;
  return MERCHANT_FACTOR * (basePower + bonus);
}

function simulate(context: StatedContext, merchant: Merchant | null): number {
  const { graph, country, home } = context;
  const ingoing = new Float64Array(graph.nodes.length);
  for (const index of context.order) {
    const node = graph.nodes[index] as TradeGraphNode;
    let total = 0;
    let nonHomePower = 0;
    let countryPower = 0;
    let countryPresent = false;
    for (const presence of node.presences) {
      const isDecider = presence.country === country;
      const power = isDecider && merchant?.node === index ? merchant.power : presencePower(presence);
      if (isDecider) {
        countryPower = power;
        countryPresent = true;
      }
      total += power;
      if (!presence.isHome) nonHomePower += power;
    }
    if (merchant?.node === index && !countryPresent) {
      // A merchant sent where the country had no presence creates one.
      countryPower = merchant.power;
      total += merchant.power;
      nonHomePower += merchant.power;
    }
    const value = node.stored.localValue + (ingoing[index] as number);
    if (index === home) return total === 0 ? 0 : (value * countryPower) / total;
    if (node.dests.length === 0 || total === 0) continue;
    const outgoing = (value * nonHomePower) / total;
    if (merchant?.node === index) {
      ingoing[merchant.steerTo] = (ingoing[merchant.steerTo] as number) + outgoing * ARRIVAL_FACTOR;
      continue;
    }
    const share = outgoing / node.dests.length;
    for (const dest of node.dests) ingoing[dest] = (ingoing[dest] as number) + share * ARRIVAL_FACTOR;
  }
  throw new Error('home node was not reached');
}

export interface LocatingStatedOptions {
  /** Skip nodes and steering destinations that cannot reach home (default true). */
  prune?: boolean;
}

export function evaluateLocatingStated(graph: TradeGraph, countryName: string, homeName: string, options: LocatingStatedOptions = {}): Evaluation {
  const prune = options.prune ?? true;
  const country = requireCountry(graph, countryName);
  const home = requireNode(graph, homeName);
  if (graph.topologicalOrder === null) throw new Error('the trade flows contain a cycle; stated rules need an acyclic trade network');
  const hops = hopsTo(graph, home);
  const context: StatedContext = { graph, order: graph.topologicalOrder, country: country.name, home };
  const baseline = simulate(context, null);

  let simulated = 0;
  const steering = new Map<string, string>();
  const values = graph.nodes.flatMap((node, index) => {
    if (index === home) return [];
    // Unpruned, every destination is tried (a node without any still gets its merchant: -1 is never used).
    const routes = prune ? node.dests.filter((dest) => (hops[dest] as number) >= 0) : node.dests.length > 0 ? node.dests : [-1];
    // A node that cannot reach home cannot change the profit there, whatever the merchant does.
    if (routes.length === 0) return [{ candidate: node.name, after: baseline }];
    const presence = node.presences.find((p) => p.country === country.name);
    const power = statedMerchantPower(presence?.basePower ?? 0, touchesInland(graph, index), country.development);
    let best = Number.NEGATIVE_INFINITY;
    for (const steerTo of routes) {
      simulated += 1;
      const profit = simulate(context, { node: index, steerTo, power });
      if (profit > best) {
        best = profit;
        steering.set(node.name, `the merchant steers trade toward ${(graph.nodes[steerTo] as TradeGraphNode | undefined)?.name ?? 'nowhere (no destination)'}`);
      }
    }
    return [{ candidate: node.name, after: best }];
  });

  return {
    values,
    before: baseline,
    candidateSet:
      `all ${values.length} trade nodes except the home node ${homeName}, in trade_node table order; ` +
      `nodes that cannot reach ${homeName} are proven unchanged; ${simulated} (node, steering destination) simulations`,
    notes: [],
    details: steering,
  };
}
