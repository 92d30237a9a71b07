/**
 * Graph dump (parsed `GraphDump`) -> LocatingData / BuildingData. Nodes and relationships
 * keep file order, which matches the relational dumps' table order. Relationship endpoints
 * are identified by label, so a relationship written in the other direction still loads.
 */
import type { BuildingData } from './building-data';
import type { DumpNode, DumpRelationship, GraphDump } from './cypher-dump';
import type { LocatingData } from './locating-data';
import { DqaDataError, readBoolean, readInteger, readNumber, readText } from './load-values';

const sameName = (a: string, b: string): boolean => a === b || a.toLowerCase() === b.toLowerCase();

function nodesLabelled(graph: GraphDump, label: string, source: string): { node: DumpNode; where: (key: string) => string }[] {
  const found: { node: DumpNode; where: (key: string) => string }[] = [];
  graph.nodes.forEach((node, index) => {
    if (node.labels.some((l) => sameName(l, label))) found.push({ node, where: (key) => `${source}: :${label} node #${index + 1}, property ${key}` });
  });
  if (found.length === 0) throw new DqaDataError(`${source}: no :${label} nodes`);
  return found;
}

interface Endpoints {
  relationship: DumpRelationship;
  /** The endpoints carrying the first and the second requested label. */
  first: DumpNode;
  second: DumpNode;
  firstLabel: string;
  where: (key: string) => string;
}

function relationshipsOfType(graph: GraphDump, type: string, labels: readonly [string, string], source: string): Endpoints[] {
  const found: Endpoints[] = [];
  const [firstLabel, secondLabel] = labels;
  const has = (node: DumpNode, label: string): boolean => node.labels.some((l) => sameName(l, label));
  graph.relationships.forEach((relationship, index) => {
    if (!sameName(relationship.type, type)) return;
    const where = (key: string): string => `${source}: :${type} relationship #${index + 1}, ${key}`;
    const from = graph.nodes[relationship.from] as DumpNode;
    const to = graph.nodes[relationship.to] as DumpNode;
    if (has(from, firstLabel) && has(to, secondLabel)) found.push({ relationship, first: from, second: to, firstLabel, where });
    else if (has(to, firstLabel) && has(from, secondLabel)) found.push({ relationship, first: to, second: from, firstLabel, where });
    else throw new DqaDataError(`${where('endpoints')}: expected a :${firstLabel} and a :${secondLabel} node, found :${from.labels.join(':')} and :${to.labels.join(':')}`);
  });
  return found;
}

function end(endpoints: Endpoints, label: string): DumpNode {
  return label === endpoints.firstLabel ? endpoints.first : endpoints.second;
}

export function locatingFromGraph(graph: GraphDump, source = '<graph dump>'): LocatingData {
  return {
    countries: nodesLabelled(graph, 'Country', source).map(({ node, where }) => ({
      name: readText(node.properties['name'], where, 'name'),
      homeNode: readText(node.properties['home_node'], where, 'home_node'),
      development: readNumber(node.properties['development'], where, 'development'),
    })),
    tradeNodes: nodesLabelled(graph, 'Trade_node', source).map(({ node, where }) => ({
      name: readText(node.properties['name'], where, 'name'),
      localValue: readNumber(node.properties['local_value'], where, 'local_value'),
      isInland: readBoolean(node.properties['is_inland'], where, 'is_inland'),
      totalPower: readNumber(node.properties['total_power'], where, 'total_power'),
      outgoing: readNumber(node.properties['outgoing'], where, 'outgoing'),
      ingoing: readNumber(node.properties['ingoing'], where, 'ingoing'),
    })),
    // A flow's direction is the relationship's direction, so it cannot be taken from labels.
    flows: graph.relationships.flatMap((relationship, index) => {
      if (!sameName(relationship.type, 'source')) return [];
      const where = (key: string): string => `${source}: :source relationship #${index + 1}, ${key}`;
      return [
        {
          source: readText((graph.nodes[relationship.from] as DumpNode).properties['name'], where, 'source name'),
          dest: readText((graph.nodes[relationship.to] as DumpNode).properties['name'], where, 'dest name'),
          flow: readNumber(relationship.properties['flow'], where, 'flow'),
        },
      ];
    }),
    nodeCountries: relationshipsOfType(graph, 'NodeCountry', ['Country', 'Trade_node'], source).map((e) => ({
      tradeNode: readText(end(e, 'Trade_node').properties['name'], e.where, 'trade node name'),
      country: readText(end(e, 'Country').properties['name'], e.where, 'country name'),
      isHome: readBoolean(e.relationship.properties['is_home'], e.where, 'is_home'),
      hasMerchant: readBoolean(e.relationship.properties['has_merchant'], e.where, 'has_merchant'),
      baseTradingPower: readNumber(e.relationship.properties['base_trading_power'], e.where, 'base_trading_power'),
      calculatedTradingPower: readNumber(e.relationship.properties['calculated_trading_power'], e.where, 'calculated_trading_power'),
    })),
  };
}

export function buildingFromGraph(graph: GraphDump, source = '<graph dump>'): BuildingData {
  return {
    goods: nodesLabelled(graph, 'Goods', source).map(({ node, where }) => ({
      name: readText(node.properties['name'], where, 'name'),
      code: readInteger(node.properties['code'], where, 'code'),
      basePrice: readNumber(node.properties['base_price'], where, 'base_price'),
      currentPrice: readNumber(node.properties['current_price'], where, 'current_price'),
      popDemand: readNumber(node.properties['pop_demand'], where, 'pop_demand'),
    })),
    buildings: nodesLabelled(graph, 'Building', source).map(({ node, where }) => ({
      id: readInteger(node.properties['id'], where, 'id'),
      name: readText(node.properties['name'], where, 'name'),
      level: readInteger(node.properties['level'], where, 'level'),
    })),
    supplies: relationshipsOfType(graph, 'Supply', ['Goods', 'Building'], source).map((e) => ({
      goodsCode: readInteger(end(e, 'Goods').properties['code'], e.where, 'goods code'),
      buildingId: readInteger(end(e, 'Building').properties['id'], e.where, 'building id'),
      maxSupply: readNumber(e.relationship.properties['max_supply'], e.where, 'max_supply'),
      currentOutput: readNumber(e.relationship.properties['current_output'], e.where, 'current_output'),
      level: readInteger(e.relationship.properties['level'], e.where, 'level'),
    })),
    demands: relationshipsOfType(graph, 'Demand', ['Goods', 'Building'], source).map((e) => ({
      goodsCode: readInteger(end(e, 'Goods').properties['code'], e.where, 'goods code'),
      buildingId: readInteger(end(e, 'Building').properties['id'], e.where, 'building id'),
      maxDemand: readNumber(e.relationship.properties['max_demand'], e.where, 'max_demand'),
      currentInput: readNumber(e.relationship.properties['current_input'], e.where, 'current_input'),
      level: readInteger(e.relationship.properties['level'], e.where, 'level'),
    })),
  };
}
