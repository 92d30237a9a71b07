/**
 * Indexes LocatingData into arrays the simulators can walk quickly, and checks the
 * references between tables once so the simulators never meet a dangling name.
 */
import type { LocatingCountry, LocatingData, LocatingTradeNode } from './locating-data';

export interface Presence {
  country: string;
  isHome: boolean;
  hasMerchant: boolean;
  basePower: number;
  calculatedPower: number;
}

export interface TradeGraphNode {
  name: string;
  stored: LocatingTradeNode;
  /** node_country rows of this node, in table order (their summation order matters for compat). */
  presences: Presence[];
  /** Destination node indexes, in flow table order. */
  dests: number[];
  /** Source node indexes, in flow table order. */
  sources: number[];
}

export interface TradeGraph {
  /** In trade_node table order. */
  nodes: TradeGraphNode[];
  indexOf: ReadonlyMap<string, number>;
  countries: ReadonlyMap<string, LocatingCountry>;
  /** A topological order (ties in table order), or null when the flows contain a cycle. */
  topologicalOrder: number[] | null;
}

export function prepareTradeGraph(data: LocatingData): TradeGraph {
  const indexOf = new Map<string, number>();
  const nodes: TradeGraphNode[] = data.tradeNodes.map((stored, index) => {
    if (indexOf.has(stored.name)) throw new Error(`trade node ${stored.name} appears twice`);
    indexOf.set(stored.name, index);
    return { name: stored.name, stored, presences: [], dests: [], sources: [] };
  });
  const nodeIndex = (name: string, where: string): number => {
    const index = indexOf.get(name);
    if (index === undefined) throw new Error(`${where} refers to unknown trade node ${name}`);
    return index;
  };

  const countries = new Map<string, LocatingCountry>();
  for (const country of data.countries) {
    if (countries.has(country.name)) throw new Error(`country ${country.name} appears twice`);
    nodeIndex(country.homeNode, `country ${country.name}`);
    countries.set(country.name, country);
  }
  for (const flow of data.flows) {
    const source = nodeIndex(flow.source, 'a flow');
    const dest = nodeIndex(flow.dest, 'a flow');
    (nodes[source] as TradeGraphNode).dests.push(dest);
    (nodes[dest] as TradeGraphNode).sources.push(source);
  }
  for (const row of data.nodeCountries) {
    const node = nodes[nodeIndex(row.tradeNode, `node_country row of ${row.country}`)] as TradeGraphNode;
    if (!countries.has(row.country)) throw new Error(`node_country row at ${row.tradeNode} refers to unknown country ${row.country}`);
    node.presences.push({
      country: row.country,
      isHome: row.isHome,
      hasMerchant: row.hasMerchant,
      basePower: row.baseTradingPower,
      calculatedPower: row.calculatedTradingPower,
    });
  }
  return { nodes, indexOf, countries, topologicalOrder: topologicalOrder(nodes) };
}

/** Kahn's algorithm, always releasing the ready node that comes first in table order. */
function topologicalOrder(nodes: TradeGraphNode[]): number[] | null {
  const pending = nodes.map((node) => node.sources.length);
  const ready: number[] = [];
  pending.forEach((count, index) => {
    if (count === 0) ready.push(index);
  });
  const order: number[] = [];
  while (ready.length > 0) {
    let pick = 0;
    for (let i = 1; i < ready.length; i += 1) if ((ready[i] as number) < (ready[pick] as number)) pick = i;
    const index = ready.splice(pick, 1)[0] as number;
    order.push(index);
    for (const dest of (nodes[index] as TradeGraphNode).dests) {
      pending[dest] = (pending[dest] as number) - 1;
      if (pending[dest] === 0) ready.push(dest);
    }
  }
  return order.length === nodes.length ? order : null;
}

/** Number of flow hops from each node to `target` (0 for the target itself, -1 when it cannot reach it). */
export function hopsTo(graph: TradeGraph, target: number): Int32Array {
  const hops = new Int32Array(graph.nodes.length).fill(-1);
  hops[target] = 0;
  const queue = [target];
  for (let head = 0; head < queue.length; head += 1) {
    const current = queue[head] as number;
    for (const source of (graph.nodes[current] as TradeGraphNode).sources) {
      if (hops[source] === -1) {
        hops[source] = (hops[current] as number) + 1;
        queue.push(source);
      }
    }
  }
  return hops;
}

/** The destination of `node` closest (in hops) to the target; ties go to the first in flow order. */
export function closestDestTowards(graph: TradeGraph, node: number, hops: Int32Array): number | null {
  let best: number | null = null;
  for (const dest of (graph.nodes[node] as TradeGraphNode).dests) {
    const distance = hops[dest] as number;
    if (distance < 0) continue;
    if (best === null || distance < (hops[best] as number)) best = dest;
  }
  return best;
}

export function requireCountry(graph: TradeGraph, name: string): LocatingCountry {
  const country = graph.countries.get(name);
  if (country === undefined) throw new Error(`unknown country ${name}`);
  return country;
}

export function requireNode(graph: TradeGraph, name: string): number {
  const index = graph.indexOf.get(name);
  if (index === undefined) throw new Error(`unknown trade node ${name}`);
  return index;
}
