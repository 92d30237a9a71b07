/**
 * Reads the DQA graphs through a Cypher Connector (Kùzu or Neo4j) into LocatingData /
 * BuildingData, with plain Cypher both engines accept: one MATCH per label or relationship
 * type, explicit property lists (never whole nodes, whose JSON shape differs per engine), and
 * backquoted names taken from the database's own schema.
 *
 * Schema first: Kùzu refuses a query naming a property its table does not declare, so a
 * property is only referenced when the schema lists it; a missing one reads as NULL and the
 * value readers then name it. This is also how the `has_has_merchant` defect is handled: the
 * NodeCountry flag is `coalesce()` of whichever spellings exist.
 *
 * Order (the annotation's tie-break and float sums depend on it), per label or type:
 * - an `import_order` property when the schema has one (our Kùzu importer adds it);
 * - Neo4j: `id(x)`, the creation order of a database loaded from the dump;
 * - Kùzu: `offset(id(x))` for nodes (insertion order within a node table); Kùzu keeps no
 *   insertion order for relationships, so without `import_order` they come back unordered
 *   with a warning.
 * Relationship directions follow the dumps: `source` is directed Trade_node -> Trade_node;
 * NodeCountry, Supply and Demand are matched in either direction between their two labels.
 *
 * One database may hold several dumps: `dwb dqa import` into Neo4j Community (one user
 * database) tags every node and relationship with `_dump`. Given a dump name, every MATCH keeps
 * that dump's elements only; without one, a database holding several dumps is refused rather
 * than read as one mixed dataset.
 */
import type { Engine, SchemaInfo } from '../contract/data';
import type { Connector } from '../connectors/connector';
import type { BuildingData } from './building-data';
import { readAllRows, type CellRow } from './connector-rows';
import { IMPORT_ORDER_COLUMN, type ConnectorLoad } from './connector-sql-load';
import { DqaDataError, readBoolean, readInteger, readNumber, readText } from './load-values';
import type { LocatingData } from './locating-data';
import { dumpProperty } from './dump-tag';

type GraphSchema = Extract<SchemaInfo, { kind: 'graph' }>;
type GraphElement = GraphSchema['labels'][number];

function quoteName(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

function hasDumpTag(element: GraphElement): boolean {
  return element.properties.some((p) => p.name === dumpProperty);
}

/** A database several dumps were imported into must be read one dump at a time. */
async function refuseMixedDumps(connector: Connector, schema: GraphSchema, source: string): Promise<void> {
  const label = schema.labels.find((element) => hasDumpTag(element));
  if (label === undefined) return;
  const text = `MATCH (n:${quoteName(label.name)}) RETURN DISTINCT n.${quoteName(dumpProperty)} AS dump ORDER BY dump`;
  const { rows } = await readAllRows(connector, text, `${source}: ${label.name}`);
  const dumps = rows.map((row) => String(row['dump']));
  if (dumps.length > 1) {
    throw new DqaDataError(`${source} holds ${dumps.length} imported DQA dumps (${dumps.slice(0, 5).join(', ')}${dumps.length > 5 ? ', …' : ''}); read one at a time by naming its dump`);
  }
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** A property expression, or NULL when the schema does not list the property (Kùzu would refuse the query). */
function property(element: GraphElement, variable: string, ...spellings: string[]): string {
  const present = spellings.flatMap((spelling) => element.properties.filter((p) => sameName(p.name, spelling)).map((p) => `${variable}.${quoteName(p.name)}`));
  if (present.length === 0) return 'NULL';
  return present.length === 1 ? (present[0] as string) : `coalesce(${present.join(', ')})`;
}

interface ElementOrder {
  sql: string | null;
  description: string;
}

function orderOf(engine: Engine, element: GraphElement, variable: string, isRelationship: boolean): ElementOrder {
  const explicit = element.properties.find((p) => sameName(p.name, IMPORT_ORDER_COLUMN));
  if (explicit !== undefined) return { sql: `${variable}.${quoteName(explicit.name)}`, description: `${element.name} by ${explicit.name}` };
  if (engine === 'neo4j') return { sql: `id(${variable})`, description: `${element.name} by id() (creation order)` };
  if (engine === 'kuzu' && !isRelationship) return { sql: `offset(id(${variable}))`, description: `${element.name} by internal offset (insertion order)` };
  return { sql: null, description: `${element.name} in the order the engine returns` };
}

/** Reads the schema once and builds the per-element queries from it. */
class GraphReader {
  readonly ordering: string[] = [];
  readonly warnings: string[] = [];

  private constructor(
    private readonly connector: Connector,
    private readonly schema: GraphSchema,
    private readonly source: string,
    private readonly dump: string | null,
  ) {}

  /** With `dump`, reads that dump's elements of a database tagged with `_dump` (untagged databases are read whole). */
  static async open(connector: Connector, source: string, dump?: string): Promise<GraphReader> {
    const schema = await connector.schema();
    if (schema.kind !== 'graph') throw new DqaDataError(`${source}: expected a graph database, found a ${schema.kind} one`);
    const tagged = [...schema.labels, ...schema.relationshipTypes].some((element) => hasDumpTag(element));
    if (tagged && dump === undefined) await refuseMixedDumps(connector, schema, source);
    return new GraphReader(connector, schema, source, tagged && dump !== undefined ? dump : null);
  }

  /** ` WHERE v._dump = $dump AND …` for each bound element that carries the tag, when reading one dump. */
  scope(...bound: [variable: string, element: GraphElement][]): string {
    if (this.dump === null) return '';
    const conditions = bound.filter(([, element]) => hasDumpTag(element)).map(([variable]) => `${variable}.${quoteName(dumpProperty)} = $dump`);
    return conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';
  }

  label(name: string): GraphElement {
    const element = this.schema.labels.find((l) => sameName(l.name, name));
    if (element === undefined) throw new DqaDataError(`${this.source}: no :${name} nodes (labels: ${this.schema.labels.map((l) => l.name).join(', ') || 'none'})`);
    return element;
  }

  relationship(name: string): GraphElement {
    const element = this.schema.relationshipTypes.find((r) => sameName(r.name, name));
    if (element === undefined) {
      throw new DqaDataError(`${this.source}: no :${name} relationships (types: ${this.schema.relationshipTypes.map((r) => r.name).join(', ') || 'none'})`);
    }
    return element;
  }

  /** `match` binds `variable` to the ordered element; `columns` are `expression AS alias` pairs. */
  async rows(match: string, ordered: { element: GraphElement; variable: string; isRelationship: boolean }, columns: [string, string][]): Promise<CellRow[]> {
    const order = orderOf(this.connector.engine, ordered.element, ordered.variable, ordered.isRelationship);
    const returned = columns.map(([expression, alias]) => `${expression} AS ${alias}`);
    if (order.sql !== null) returned.push(`${order.sql} AS row_order`);
    const text = `${match} RETURN ${returned.join(', ')}${order.sql === null ? '' : ' ORDER BY row_order'}`;
    const what = `${this.source}${this.dump === null ? '' : ` (${dumpProperty} ${this.dump})`}: ${ordered.element.name}`;
    const { rows } = await readAllRows(this.connector, text, what, this.dump === null ? undefined : { dump: this.dump });
    if (rows.length === 0 && this.dump !== null && !ordered.isRelationship) {
      throw new DqaDataError(`${what}: no nodes tagged ${dumpProperty} = '${this.dump}'; import the dump first (dwb dqa import --target …)`);
    }
    this.ordering.push(order.description);
    if (order.sql === null) {
      this.warnings.push(`${ordered.element.name}: ${this.connector.engine} keeps no insertion order here; ties and float-level sums may differ from the dump's order`);
    }
    return rows;
  }

  where(element: string, index: number): (key: string) => string {
    return (key) => `${this.source}: ${element} #${index + 1}, ${key}`;
  }
}

async function readLocating(reader: GraphReader): Promise<LocatingData> {
  const country = reader.label('Country');
  const tradeNode = reader.label('Trade_node');
  const flow = reader.relationship('source');
  const nodeCountry = reader.relationship('NodeCountry');
  const [countryLabel, nodeLabel] = [quoteName(country.name), quoteName(tradeNode.name)];

  const countries = await reader.rows(`MATCH (n:${countryLabel})${reader.scope(['n', country])}`, { element: country, variable: 'n', isRelationship: false }, [
    [property(country, 'n', 'name'), 'name'],
    [property(country, 'n', 'home_node'), 'home_node'],
    [property(country, 'n', 'development'), 'development'],
  ]);
  const tradeNodes = await reader.rows(`MATCH (n:${nodeLabel})${reader.scope(['n', tradeNode])}`, { element: tradeNode, variable: 'n', isRelationship: false }, [
    [property(tradeNode, 'n', 'name'), 'name'],
    [property(tradeNode, 'n', 'local_value'), 'local_value'],
    [property(tradeNode, 'n', 'is_inland'), 'is_inland'],
    [property(tradeNode, 'n', 'total_power'), 'total_power'],
    [property(tradeNode, 'n', 'outgoing'), 'outgoing'],
    [property(tradeNode, 'n', 'ingoing'), 'ingoing'],
  ]);
  const flows = await reader.rows(`MATCH (a:${nodeLabel})-[r:${quoteName(flow.name)}]->(b:${nodeLabel})${reader.scope(['r', flow], ['a', tradeNode], ['b', tradeNode])}`, { element: flow, variable: 'r', isRelationship: true }, [
    [property(tradeNode, 'a', 'name'), 'source'],
    [property(tradeNode, 'b', 'name'), 'dest'],
    [property(flow, 'r', 'flow'), 'flow'],
  ]);
  const presences = await reader.rows(
    `MATCH (c:${countryLabel})-[r:${quoteName(nodeCountry.name)}]-(t:${nodeLabel})${reader.scope(['r', nodeCountry], ['c', country], ['t', tradeNode])}`,
    { element: nodeCountry, variable: 'r', isRelationship: true },
    [
      [property(tradeNode, 't', 'name'), 'trade_node'],
      [property(country, 'c', 'name'), 'country'],
      [property(nodeCountry, 'r', 'is_home'), 'is_home'],
      [property(nodeCountry, 'r', 'has_merchant', 'has_has_merchant'), 'has_merchant'],
      [property(nodeCountry, 'r', 'base_trading_power'), 'base_trading_power'],
      [property(nodeCountry, 'r', 'calculated_trading_power'), 'calculated_trading_power'],
    ],
  );

  return {
    countries: countries.map((row, i) => {
      const at = reader.where(':Country', i);
      return { name: readText(row['name'], at('name')), homeNode: readText(row['home_node'], at('home_node')), development: readNumber(row['development'], at('development')) };
    }),
    tradeNodes: tradeNodes.map((row, i) => {
      const at = reader.where(':Trade_node', i);
      return {
        name: readText(row['name'], at('name')),
        localValue: readNumber(row['local_value'], at('local_value')),
        isInland: readBoolean(row['is_inland'], at('is_inland')),
        totalPower: readNumber(row['total_power'], at('total_power')),
        outgoing: readNumber(row['outgoing'], at('outgoing')),
        ingoing: readNumber(row['ingoing'], at('ingoing')),
      };
    }),
    flows: flows.map((row, i) => {
      const at = reader.where(':source', i);
      return { source: readText(row['source'], at('source name')), dest: readText(row['dest'], at('dest name')), flow: readNumber(row['flow'], at('flow')) };
    }),
    nodeCountries: presences.map((row, i) => {
      const at = reader.where(':NodeCountry', i);
      return {
        tradeNode: readText(row['trade_node'], at('trade node name')),
        country: readText(row['country'], at('country name')),
        isHome: readBoolean(row['is_home'], at('is_home')),
        hasMerchant: readBoolean(row['has_merchant'], at('has_merchant')),
        baseTradingPower: readNumber(row['base_trading_power'], at('base_trading_power')),
        calculatedTradingPower: readNumber(row['calculated_trading_power'], at('calculated_trading_power')),
      };
    }),
  };
}

async function readBuilding(reader: GraphReader): Promise<BuildingData> {
  const goods = reader.label('Goods');
  const building = reader.label('Building');
  const supply = reader.relationship('Supply');
  const demand = reader.relationship('Demand');
  const [goodsLabel, buildingLabel] = [quoteName(goods.name), quoteName(building.name)];

  const goodsRows = await reader.rows(`MATCH (n:${goodsLabel})${reader.scope(['n', goods])}`, { element: goods, variable: 'n', isRelationship: false }, [
    [property(goods, 'n', 'name'), 'name'],
    [property(goods, 'n', 'code'), 'code'],
    [property(goods, 'n', 'base_price'), 'base_price'],
    [property(goods, 'n', 'current_price'), 'current_price'],
    [property(goods, 'n', 'pop_demand'), 'pop_demand'],
  ]);
  const buildingRows = await reader.rows(`MATCH (n:${buildingLabel})${reader.scope(['n', building])}`, { element: building, variable: 'n', isRelationship: false }, [
    [property(building, 'n', 'id'), 'id'],
    [property(building, 'n', 'name'), 'name'],
    [property(building, 'n', 'level'), 'level'],
  ]);
  const supplyRows = await reader.rows(`MATCH (b:${buildingLabel})-[r:${quoteName(supply.name)}]-(g:${goodsLabel})${reader.scope(['r', supply], ['b', building], ['g', goods])}`, { element: supply, variable: 'r', isRelationship: true }, [
    [property(goods, 'g', 'code'), 'goods_code'],
    [property(building, 'b', 'id'), 'building_id'],
    [property(supply, 'r', 'max_supply'), 'max_supply'],
    [property(supply, 'r', 'current_output'), 'current_output'],
    [property(supply, 'r', 'level'), 'level'],
  ]);
  const demandRows = await reader.rows(`MATCH (g:${goodsLabel})-[r:${quoteName(demand.name)}]-(b:${buildingLabel})${reader.scope(['r', demand], ['g', goods], ['b', building])}`, { element: demand, variable: 'r', isRelationship: true }, [
    [property(goods, 'g', 'code'), 'goods_code'],
    [property(building, 'b', 'id'), 'building_id'],
    [property(demand, 'r', 'max_demand'), 'max_demand'],
    [property(demand, 'r', 'current_input'), 'current_input'],
    [property(demand, 'r', 'level'), 'level'],
  ]);

  return {
    goods: goodsRows.map((row, i) => {
      const at = reader.where(':Goods', i);
      return {
        name: readText(row['name'], at('name')),
        code: readInteger(row['code'], at('code')),
        basePrice: readNumber(row['base_price'], at('base_price')),
        currentPrice: readNumber(row['current_price'], at('current_price')),
        popDemand: readNumber(row['pop_demand'], at('pop_demand')),
      };
    }),
    buildings: buildingRows.map((row, i) => {
      const at = reader.where(':Building', i);
      return { id: readInteger(row['id'], at('id')), name: readText(row['name'], at('name')), level: readInteger(row['level'], at('level')) };
    }),
    supplies: supplyRows.map((row, i) => {
      const at = reader.where(':Supply', i);
      return {
        goodsCode: readInteger(row['goods_code'], at('goods code')),
        buildingId: readInteger(row['building_id'], at('building id')),
        maxSupply: readNumber(row['max_supply'], at('max_supply')),
        currentOutput: readNumber(row['current_output'], at('current_output')),
        level: readInteger(row['level'], at('level')),
      };
    }),
    demands: demandRows.map((row, i) => {
      const at = reader.where(':Demand', i);
      return {
        goodsCode: readInteger(row['goods_code'], at('goods code')),
        buildingId: readInteger(row['building_id'], at('building id')),
        maxDemand: readNumber(row['max_demand'], at('max_demand')),
        currentInput: readNumber(row['current_input'], at('current_input')),
        level: readInteger(row['level'], at('level')),
      };
    }),
  };
}

export async function locatingFromCypherConnector(connector: Connector, source = `${connector.engine} database`, dump?: string): Promise<ConnectorLoad<LocatingData>> {
  const reader = await GraphReader.open(connector, source, dump);
  const data = await readLocating(reader);
  return { data, ordering: reader.ordering, warnings: reader.warnings };
}

export async function buildingFromCypherConnector(connector: Connector, source = `${connector.engine} database`, dump?: string): Promise<ConnectorLoad<BuildingData>> {
  const reader = await GraphReader.open(connector, source, dump);
  const data = await readBuilding(reader);
  return { data, ordering: reader.ordering, warnings: reader.warnings };
}
