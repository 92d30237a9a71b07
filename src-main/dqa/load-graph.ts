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

/**
 * Maps every node labelled `label` (file order) through `read`. One locator serves every node
 * (it names the current one), so no closure is made per node; `where` is only called while its
 * node is being read, to word an error.
 */
function mapNodes<T>(graph: GraphDump, label: string, source: string, read: (node: DumpNode, where: (key: string) => string) => T): T[] {
  const found: T[] = [];
  let index = 0;
  const where = (key: string): string => `${source}: :${label} node #${index + 1}, property ${key}`;
  for (index = 0; index < graph.nodes.length; index += 1) {
    const node = graph.nodes[index] as DumpNode;
    if (node.labels.some((l) => sameName(l, label))) found.push(read(node, where));
  }
  if (found.length === 0) throw new DqaDataError(`${source}: no :${label} nodes`);
  return found;
}

interface Endpoints {
  relationship: DumpRelationship;
  /** The endpoints carrying the first and the second requested label. */
  first: DumpNode;
  second: DumpNode;
  where: (key: string) => string;
}

/**
 * Maps every relationship of `type` (file order) through `read`, with its endpoints sorted by
 * label. The Endpoints object and its locator are reused from one relationship to the next.
 */
function mapRelationships<T>(graph: GraphDump, type: string, labels: readonly [string, string], source: string, read: (endpoints: Endpoints) => T): T[] {
  const found: T[] = [];
  const [firstLabel, secondLabel] = labels;
  const has = (node: DumpNode, label: string): boolean => node.labels.some((l) => sameName(l, label));
  let index = 0;
  const where = (key: string): string => `${source}: :${type} relationship #${index + 1}, ${key}`;
  for (index = 0; index < graph.relationships.length; index += 1) {
    const relationship = graph.relationships[index] as DumpRelationship;
    if (!sameName(relationship.type, type)) continue;
    const from = graph.nodes[relationship.from] as DumpNode;
    const to = graph.nodes[relationship.to] as DumpNode;
    if (has(from, firstLabel) && has(to, secondLabel)) found.push(read({ relationship, first: from, second: to, where }));
    else if (has(to, firstLabel) && has(from, secondLabel)) found.push(read({ relationship, first: to, second: from, where }));
    else throw new DqaDataError(`${where('endpoints')}: expected a :${firstLabel} and a :${secondLabel} node, found :${from.labels.join(':')} and :${to.labels.join(':')}`);
  }
  return found;
}

/** Every :source relationship as a flow, in file order. */
function flowsOf(graph: GraphDump, source: string): LocatingData['flows'] {
  const flows: LocatingData['flows'] = [];
  let index = 0;
  const where = (key: string): string => `${source}: :source relationship #${index + 1}, ${key}`;
  for (index = 0; index < graph.relationships.length; index += 1) {
    const relationship = graph.relationships[index] as DumpRelationship;
    if (!sameName(relationship.type, 'source')) continue;
    flows.push({
      source: readText((graph.nodes[relationship.from] as DumpNode).properties['name'], where, 'source name'),
      dest: readText((graph.nodes[relationship.to] as DumpNode).properties['name'], where, 'dest name'),
      flow: readNumber(relationship.properties['flow'], where, 'flow'),
    });
  }
  return flows;
}

export function locatingFromGraph(graph: GraphDump, source = '<graph dump>'): LocatingData {
  return {
    countries: mapNodes(graph, 'Country', source, (node, where) => ({
      name: readText(node.properties['name'], where, 'name'),
      homeNode: readText(node.properties['home_node'], where, 'home_node'),
      development: readNumber(node.properties['development'], where, 'development'),
    })),
    tradeNodes: mapNodes(graph, 'Trade_node', source, (node, where) => ({
      name: readText(node.properties['name'], where, 'name'),
      localValue: readNumber(node.properties['local_value'], where, 'local_value'),
      isInland: readBoolean(node.properties['is_inland'], where, 'is_inland'),
      totalPower: readNumber(node.properties['total_power'], where, 'total_power'),
      outgoing: readNumber(node.properties['outgoing'], where, 'outgoing'),
      ingoing: readNumber(node.properties['ingoing'], where, 'ingoing'),
    })),
    // A flow's direction is the relationship's direction, so it cannot be taken from labels.
    flows: flowsOf(graph, source),
    nodeCountries: mapRelationships(graph, 'NodeCountry', ['Country', 'Trade_node'], source, (e) => ({
      tradeNode: readText(e.second.properties['name'], e.where, 'trade node name'),
      country: readText(e.first.properties['name'], e.where, 'country name'),
      isHome: readBoolean(e.relationship.properties['is_home'], e.where, 'is_home'),
      hasMerchant: readBoolean(e.relationship.properties['has_merchant'], e.where, 'has_merchant'),
      baseTradingPower: readNumber(e.relationship.properties['base_trading_power'], e.where, 'base_trading_power'),
      calculatedTradingPower: readNumber(e.relationship.properties['calculated_trading_power'], e.where, 'calculated_trading_power'),
    })),
  };
}

export function buildingFromGraph(graph: GraphDump, source = '<graph dump>'): BuildingData {
  return {
    goods: mapNodes(graph, 'Goods', source, (node, where) => ({
      name: readText(node.properties['name'], where, 'name'),
      code: readInteger(node.properties['code'], where, 'code'),
      basePrice: readNumber(node.properties['base_price'], where, 'base_price'),
      currentPrice: readNumber(node.properties['current_price'], where, 'current_price'),
      popDemand: readNumber(node.properties['pop_demand'], where, 'pop_demand'),
    })),
    buildings: mapNodes(graph, 'Building', source, (node, where) => ({
      id: readInteger(node.properties['id'], where, 'id'),
      name: readText(node.properties['name'], where, 'name'),
      level: readInteger(node.properties['level'], where, 'level'),
    })),
    supplies: mapRelationships(graph, 'Supply', ['Goods', 'Building'], source, (e) => ({
      goodsCode: readInteger(e.first.properties['code'], e.where, 'goods code'),
      buildingId: readInteger(e.second.properties['id'], e.where, 'building id'),
      maxSupply: readNumber(e.relationship.properties['max_supply'], e.where, 'max_supply'),
      currentOutput: readNumber(e.relationship.properties['current_output'], e.where, 'current_output'),
      level: readInteger(e.relationship.properties['level'], e.where, 'level'),
    })),
    demands: mapRelationships(graph, 'Demand', ['Goods', 'Building'], source, (e) => ({
      goodsCode: readInteger(e.first.properties['code'], e.where, 'goods code'),
      buildingId: readInteger(e.second.properties['id'], e.where, 'building id'),
      maxDemand: readNumber(e.relationship.properties['max_demand'], e.where, 'max_demand'),
      currentInput: readNumber(e.relationship.properties['current_input'], e.where, 'current_input'),
      level: readInteger(e.relationship.properties['level'], e.where, 'level'),
    })),
  };
}
