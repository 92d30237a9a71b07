import type { Connector } from '../../../src-main/connectors/connector';
import type { BuildingData } from '../../../src-main/dqa/building-data';
import type { LocatingData } from '../../../src-main/dqa/locating-data';

/**
 * The analysis every engine computes for the cross-engine agreement test (issue, step 6):
 * - Locating: each country's profit at its home node, (local_value + ingoing) × the country's
 *   power there / the node's total power, and the trade value flowing into each node;
 * - Building: each goods' total demand (pop_demand + Σ max_demand) and supply (Σ current_output).
 * Written once in SQL, once in Cypher, and once in TypeScript over the parsed dump (the reference).
 */
export type Aggregates = Map<string, number | null>;

export interface Analysis {
  name: string;
  sql: string;
  /** `$dump` filters one dump's elements where dumps share a database (Neo4j). */
  cypher: (filter: string) => string;
}

export const locatingProfit: Analysis = {
  name: 'profit at the home node',
  sql: `SELECT c.country_name, (t.local_value + t.ingoing) * nc.calculated_trading_power / NULLIF(t.total_power, 0)
          FROM country c
          JOIN trade_node t ON t.trade_node = c.home_node
          JOIN node_country nc ON nc.trade_node = c.home_node AND nc.country_name = c.country_name`,
  cypher: (filter) => `MATCH (c:Country ${filter})-[nc:NodeCountry]->(t:Trade_node)
          WHERE t.name = c.home_node
          RETURN c.name, CASE WHEN t.total_power = 0 THEN null ELSE (t.local_value + t.ingoing) * nc.calculated_trading_power / t.total_power END`,
};

export const locatingInflow: Analysis = {
  name: 'flow into each node',
  sql: 'SELECT dest, sum(flow) FROM flow GROUP BY dest',
  cypher: (filter) => `MATCH (:Trade_node ${filter})-[f:source]->(t:Trade_node) RETURN t.name, sum(f.flow)`,
};

export const buildingDemand: Analysis = {
  name: 'total demand per goods',
  sql: `SELECT g.goods_name, g.pop_demand + COALESCE((SELECT sum(d.max_demand) FROM demand d WHERE d.goods_id = g.code), 0) FROM goods g`,
  cypher: (filter) => `MATCH (g:Goods ${filter}) OPTIONAL MATCH (g)-[d:Demand]->(:Building)
          WITH g, coalesce(sum(d.max_demand), 0) AS demanded
          RETURN g.name, g.pop_demand + demanded`,
};

export const buildingSupply: Analysis = {
  name: 'total supply per goods',
  sql: 'SELECT g.goods_name, COALESCE((SELECT sum(s.current_output) FROM supply s WHERE s.goods_id = g.code), 0) FROM goods g',
  cypher: (filter) => `MATCH (g:Goods ${filter}) OPTIONAL MATCH (:Building)-[s:Supply]->(g)
          RETURN g.name, coalesce(sum(s.current_output), 0)`,
};

/** Runs an analysis through a read-only connector and keys its two columns (name, number). */
export async function aggregatesFrom(connector: Connector, analysis: Analysis, dump: string | null): Promise<Aggregates> {
  const text = connector.dialect === 'sql' ? analysis.sql : analysis.cypher(dump === null ? '' : '{_dump: $dump}');
  const result = await connector.query(text, { maxRows: 10_000, timeoutMs: 60_000, ...(dump === null ? {} : { params: { dump } }) });
  return new Map(result.rows.map(([name, value]) => [String(name), value === null ? null : Number(value)]));
}

/** Sums in table order, as the simulators take them. */
function sumBy<T>(items: T[], key: (item: T) => string, value: (item: T) => number): Map<string, number> {
  const sums = new Map<string, number>();
  for (const item of items) sums.set(key(item), (sums.get(key(item)) ?? 0) + value(item));
  return sums;
}

export function referenceLocating(data: LocatingData): Record<'profit' | 'inflow', Aggregates> {
  const profit: Aggregates = new Map();
  for (const country of data.countries) {
    const node = data.tradeNodes.find((candidate) => candidate.name === country.homeNode);
    const presence = data.nodeCountries.find((candidate) => candidate.tradeNode === country.homeNode && candidate.country === country.name);
    if (node === undefined || presence === undefined) continue;
    profit.set(country.name, node.totalPower === 0 ? null : ((node.localValue + node.ingoing) * presence.calculatedTradingPower) / node.totalPower);
  }
  return { profit, inflow: sumBy(data.flows, (flow) => flow.dest, (flow) => flow.flow) };
}

export function referenceBuilding(data: BuildingData): Record<'demand' | 'supply', Aggregates> {
  const demanded = sumBy(data.demands, (demand) => String(demand.goodsCode), (demand) => demand.maxDemand);
  const supplied = sumBy(data.supplies, (supply) => String(supply.goodsCode), (supply) => supply.currentOutput);
  return {
    demand: new Map(data.goods.map((goods) => [goods.name, goods.popDemand + (demanded.get(String(goods.code)) ?? 0)])),
    supply: new Map(data.goods.map((goods) => [goods.name, supplied.get(String(goods.code)) ?? 0])),
  };
}

/** Largest relative difference between two aggregate maps over the same keys; Infinity when keys or nulls differ. */
export function maxRelativeDifference(expected: Aggregates, actual: Aggregates): number {
  if (expected.size !== actual.size) return Number.POSITIVE_INFINITY;
  let worst = 0;
  for (const [key, value] of expected) {
    const other = actual.get(key);
    if (other === undefined || (value === null) !== (other === null)) return Number.POSITIVE_INFINITY;
    if (value === null || other === null || value === other) continue;
    worst = Math.max(worst, Math.abs(value - other) / Math.max(Math.abs(value), Math.abs(other)));
  }
  return worst;
}
