/**
 * Per-rule tests of the simulators on tiny hand-built databases, read back through the real
 * connectors: every fixture is written as a relational dump (imported into SQLite) and as a
 * graph dump (imported into Kùzu), and both must give the hand-computed answers. Also checks
 * that table order survives the round trip (it decides ties) and that the has_has_merchant
 * defect is repaired on read.
 */
import Database from 'better-sqlite3';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openLadybugConnector } from '../../../src-main/connectors/ladybug';
import type { Connector } from '../../../src-main/connectors/connector';
import { openSqliteConnector } from '../../../src-main/connectors/sqlite/sqlite-connector';
import { solveBuilding, type BuildingData } from '../../../src-main/dqa/building';
import { parseCypherDump, type GraphDump } from '../../../src-main/dqa/cypher-dump';
import { loadBuildingFromConnector, loadLocatingFromConnector } from '../../../src-main/dqa/from-connector';
import { writeLadybugDatabase } from '../../../src-main/dqa/ladybug-import';
import { solveLocating, type LocatingData } from '../../../src-main/dqa/locating';
import { importingDatabases } from '../../../src-main/dqa/scenario-databases';
import { parseSqlDump } from '../../../src-main/dqa/sql-dump';
import { writeSqliteDatabase } from '../../../src-main/dqa/sqlite-import';
import { useSuiteTempDir } from '../../support/temp';

const suiteDir = useSuiteTempDir();
type EngineName = 'sqlite' | 'kuzu';
const engines: EngineName[] = ['sqlite', 'kuzu'];

// ---------- tiny dump writers (the DQA dump formats) ----------

const text = (value: string): string => JSON.stringify(value);

function locatingSql(data: LocatingData): string {
  return [
    'CREATE TABLE country( country_name VARCHAR(30), home_node VARCHAR(30), development FLOAT, PRIMARY KEY (country_name));',
    'CREATE TABLE trade_node( trade_node VARCHAR(30), local_value FLOAT, is_inland BOOLEAN, total_power FLOAT, outgoing FLOAT, ingoing FLOAT, PRIMARY KEY (trade_node));',
    'CREATE TABLE flow( source VARCHAR(30), dest VARCHAR(30), flow FLOAT, PRIMARY KEY (source, dest));',
    'CREATE TABLE node_country( trade_node VARCHAR(30), country_name VARCHAR(30), is_home BOOLEAN, has_merchant BOOLEAN, base_trading_power FLOAT, calculated_trading_power FLOAT, PRIMARY KEY (trade_node, country_name));',
    ...data.countries.map((c) => `INSERT INTO country(country_name, home_node, development) VALUES (${text(c.name)}, ${text(c.homeNode)}, ${c.development});`),
    ...data.tradeNodes.map(
      (n) => `INSERT INTO trade_node(trade_node, local_value, is_inland, total_power, outgoing, ingoing) VALUES (${text(n.name)}, ${n.localValue}, ${n.isInland ? 'TRUE' : 'FALSE'}, ${n.totalPower}, ${n.outgoing}, ${n.ingoing});`,
    ),
    ...data.flows.map((f) => `INSERT INTO flow(source, dest, flow) VALUES (${text(f.source)}, ${text(f.dest)}, ${f.flow});`),
    ...data.nodeCountries.map(
      (r) =>
        `INSERT INTO node_country(trade_node, country_name, is_home, has_merchant, base_trading_power, calculated_trading_power) VALUES (${text(r.tradeNode)}, ${text(r.country)}, ${r.isHome ? 'TRUE' : 'FALSE'}, ${r.hasMerchant ? 'TRUE' : 'FALSE'}, ${r.baseTradingPower}, ${r.calculatedTradingPower});`,
    ),
  ].join('\n');
}

function locatingCypher(data: LocatingData): string {
  return [
    ...data.tradeNodes.map(
      (n) => `CREATE (n:Trade_node {name:${text(n.name)}, local_value:${n.localValue}, is_inland:${n.isInland}, total_power:${n.totalPower}, outgoing:${n.outgoing}, ingoing:${n.ingoing}});`,
    ),
    ...data.countries.map((c) => `CREATE (n:Country {name:${text(c.name)}, home_node:${text(c.homeNode)}, development:${c.development}});`),
    ...data.flows.map((f) => `MATCH (a:Trade_node {name:${text(f.source)}}), (b:Trade_node {name:${text(f.dest)}}) CREATE (a)-[r:source{flow:${f.flow}}]->(b);`),
    ...data.nodeCountries.map(
      (r) =>
        `MATCH (t:Trade_node {name:${text(r.tradeNode)}}), (c:Country {name:${text(r.country)}}) CREATE (c)-[r:NodeCountry{is_home: ${r.isHome}, has_merchant: ${text(r.hasMerchant ? 'True' : 'False')}, base_trading_power: ${r.baseTradingPower}, calculated_trading_power: ${r.calculatedTradingPower}}]->(t);`,
    ),
  ].join('\n');
}

function buildingSql(data: BuildingData): string {
  return [
    'CREATE TABLE goods( goods_name VARCHAR(30), code INT, base_price FLOAT, current_price FLOAT, pop_demand FLOAT, PRIMARY KEY (code));',
    'CREATE TABLE building( id INT, name VARCHAR(80), level INT, PRIMARY KEY (id));',
    'CREATE TABLE supply( goods_id INT, building_id INT, max_supply FLOAT, current_output FLOAT, level INT, PRIMARY KEY (goods_id, building_id));',
    'CREATE TABLE demand( goods_id INT, building_id INT, max_demand FLOAT, current_input FLOAT, level INT, PRIMARY KEY (goods_id, building_id));',
    ...data.goods.map((g) => `INSERT INTO goods(goods_name, code, base_price, current_price, pop_demand) VALUES (${text(g.name)}, ${g.code}, ${g.basePrice}, ${g.currentPrice}, ${g.popDemand});`),
    ...data.buildings.map((b) => `INSERT INTO building(id, name, level) VALUES (${b.id}, ${text(b.name)}, ${b.level});`),
    ...data.supplies.map((s) => `INSERT INTO supply(goods_id, building_id, max_supply, current_output, level) VALUES (${s.goodsCode}, ${s.buildingId}, ${s.maxSupply}, ${s.currentOutput}, ${s.level});`),
    ...data.demands.map((d) => `INSERT INTO demand(goods_id, building_id, max_demand, current_input, level) VALUES (${d.goodsCode}, ${d.buildingId}, ${d.maxDemand}, ${d.currentInput}, ${d.level});`),
  ].join('\n');
}

function buildingCypher(data: BuildingData): string {
  return [
    ...data.goods.map((g) => `CREATE (n: Goods {name:${text(g.name)}, code: ${g.code}, base_price:${g.basePrice}, current_price:${g.currentPrice}, pop_demand:${g.popDemand}});`),
    ...data.buildings.map((b) => `CREATE (n: Building {id: ${b.id}, name:${text(b.name)}, level:${b.level}});`),
    ...data.demands.map(
      (d) => `MATCH (g: Goods{code: ${d.goodsCode}}), (b: Building{id:${d.buildingId}}) CREATE (g)-[r:Demand{max_demand: ${d.maxDemand}, current_input: ${d.currentInput}, level: ${d.level}}]->(b);`,
    ),
    ...data.supplies.map(
      (s) => `MATCH (g: Goods{code: ${s.goodsCode}}), (b: Building{id:${s.buildingId}}) CREATE (b)-[r:Supply{max_supply: ${s.maxSupply}, current_output: ${s.currentOutput},level: ${s.level}}]->(g);`,
    ),
  ].join('\n');
}

// ---------- fixtures (the same worlds as locating.test.ts and building.test.ts) ----------

/** A -> Z (dead end) and A -> H (home of C). C has 10 power in A and 20 in H; O is at home in A. */
function smallWorld(): LocatingData {
  const node = (name: string, localValue: number, totalPower: number, ingoing: number, isInland = false): LocatingData['tradeNodes'][number] => ({
    name,
    localValue,
    isInland,
    totalPower,
    outgoing: 0,
    ingoing,
  });
  const presence = (tradeNode: string, country: string, power: number, isHome: boolean): LocatingData['nodeCountries'][number] => ({
    tradeNode,
    country,
    isHome,
    hasMerchant: false,
    baseTradingPower: power,
    calculatedTradingPower: power,
  });
  return {
    countries: [
      { name: 'C', homeNode: 'H', development: 120 },
      { name: 'O', homeNode: 'A', development: 10 },
    ],
    tradeNodes: [node('A', 10, 80, 0), node('H', 4, 80, 2), node('Z', 1, 0, 0)],
    flows: [
      { source: 'A', dest: 'Z', flow: 0 },
      { source: 'A', dest: 'H', flow: 0 },
    ],
    nodeCountries: [presence('A', 'C', 10, false), presence('A', 'O', 30, true), presence('H', 'C', 20, true), presence('H', 'O', 20, false)],
  };
}

/** widgets (0) made by factory 10 from parts (1); parts from mine 11 (no inputs); building 12 deals only in "other" (2). */
function smallMarket(): BuildingData {
  return {
    goods: [
      { name: 'widgets', code: 0, basePrice: 20, currentPrice: 25, popDemand: 10 },
      { name: 'parts', code: 1, basePrice: 10, currentPrice: 10, popDemand: 0 },
      { name: 'other', code: 2, basePrice: 30, currentPrice: 30, popDemand: 0 },
    ],
    buildings: [
      { id: 10, name: 'factory', level: 1 },
      { id: 11, name: 'mine', level: 1 },
      { id: 12, name: 'unrelated', level: 2 },
    ],
    supplies: [
      { goodsCode: 0, buildingId: 10, maxSupply: 10, currentOutput: 10, level: 1 },
      { goodsCode: 1, buildingId: 11, maxSupply: 20, currentOutput: 20, level: 1 },
      { goodsCode: 2, buildingId: 12, maxSupply: 4, currentOutput: 4, level: 2 },
    ],
    demands: [
      { goodsCode: 1, buildingId: 10, maxDemand: 5, currentInput: 0, level: 1 },
      { goodsCode: 2, buildingId: 12, maxDemand: 2, currentInput: 0, level: 2 },
    ],
  };
}

const locatingFixtures = {
  base: smallWorld(),
  inland: (() => {
    const world = smallWorld();
    (world.tradeNodes[0] as LocatingData['tradeNodes'][number]).isInland = true;
    return world;
  })(),
  /** C has no row in A (no power upstream), and the table lists Z before A: ties go to Z, not to A (the key order). */
  noPresenceReordered: (() => {
    const world = smallWorld();
    world.nodeCountries = world.nodeCountries.filter((row) => !(row.country === 'C' && row.tradeNode === 'A'));
    const [a, h, z] = world.tradeNodes as [LocatingData['tradeNodes'][number], LocatingData['tradeNodes'][number], LocatingData['tradeNodes'][number]];
    world.tradeNodes = [h, z, a];
    return world;
  })(),
};

const buildingFixtures = {
  base: smallMarket(),
  /** Building 13 is a second, identical factory. */
  twinFactories: (() => {
    const market = smallMarket();
    market.buildings.push({ id: 13, name: 'factory', level: 1 });
    market.supplies.push({ goodsCode: 0, buildingId: 13, maxSupply: 10, currentOutput: 10, level: 1 });
    market.demands.push({ goodsCode: 1, buildingId: 13, maxDemand: 5, currentInput: 0, level: 1 });
    return market;
  })(),
};

type LocatingName = keyof typeof locatingFixtures;
type BuildingName = keyof typeof buildingFixtures;

// ---------- import every fixture into both engines, read back through the connectors ----------

async function withConnector<T>(connector: Connector, work: (connector: Connector) => Promise<T>): Promise<T> {
  try {
    return await work(connector);
  } finally {
    await connector.close();
  }
}

async function openImported(engine: EngineName, name: string, sql: string, cypher: string): Promise<Connector> {
  if (engine === 'sqlite') {
    const path = join(suiteDir(), `${name}.sqlite`);
    writeSqliteDatabase(parseSqlDump(sql, name), path);
    return openSqliteConnector({ path });
  }
  const path = join(suiteDir(), `${name}.kuzu`);
  await writeLadybugDatabase(parseCypherDump(cypher, name), path, name);
  return openLadybugConnector({ path, bufferPoolBytes: 64 * 1024 * 1024 });
}

const loadedLocating = new Map<string, LocatingData>();
const loadedBuilding = new Map<string, BuildingData>();

beforeAll(async () => {
  const jobs: Promise<void>[] = [];
  for (const engine of engines) {
    for (const [name, data] of Object.entries(locatingFixtures)) {
      jobs.push(
        openImported(engine, `${engine}-L-${name}`, locatingSql(data), locatingCypher(data)).then((connector) =>
          withConnector(connector, async (c) => {
            loadedLocating.set(`${engine}/${name}`, (await loadLocatingFromConnector(c)).data);
          }),
        ),
      );
    }
    for (const [name, data] of Object.entries(buildingFixtures)) {
      jobs.push(
        openImported(engine, `${engine}-B-${name}`, buildingSql(data), buildingCypher(data)).then((connector) =>
          withConnector(connector, async (c) => {
            loadedBuilding.set(`${engine}/${name}`, (await loadBuildingFromConnector(c)).data);
          }),
        ),
      );
    }
  }
  await Promise.all(jobs);
});

const locating = (engine: EngineName, name: LocatingName): LocatingData => loadedLocating.get(`${engine}/${name}`) as LocatingData;
const building = (engine: EngineName, name: BuildingName): BuildingData => loadedBuilding.get(`${engine}/${name}`) as BuildingData;

describe.each(engines)('tiny databases read through the %s connector', (engine) => {
  it('come back exactly as written, in table order', () => {
    for (const name of Object.keys(locatingFixtures) as LocatingName[]) expect(locating(engine, name)).toEqual(locatingFixtures[name]);
    for (const name of Object.keys(buildingFixtures) as BuildingName[]) expect(building(engine, name)).toEqual(buildingFixtures[name]);
  });

  describe('Locating, compat rules', () => {
    it('counts stored totals and ingoing twice and sends the merchant node\'s whole outflow toward home', () => {
      const result = solveLocating(locating(engine, 'base'), { country: 'C', home: 'H' }, { rules: 'compat' });
      // No merchant: A total 80 + 10 + 30 = 120; C's outflow 10 * 10 / 120 splits over Z and H, * 1.05:
      // H ingoing 2 + 0.4375; H total 80 + 20 + 20 = 120; profit (4 + 2.4375) * 20 / 120.
      const baseline = ((4 + 2.4375) * 20) / 120;
      // Merchant in A: power 1.05 * (10 + 2) = 12.6; A total 122.6; all of the outflow to H.
      const steered = ((4 + 2 + ((10 * 12.6) / 122.6) * 1.05) * 20) / 120;
      expect(result.best).toBe('A');
      expect(result.candidates[0]?.after).toBeCloseTo(steered, 12);
      expect(result.candidates[0]?.before).toBeCloseTo(baseline, 12);
      expect(result.margin).toBeCloseTo(steered - baseline, 12);
      expect(result.tied).toEqual(['A']);
    });

    it('uses 1.05 * (base + 2 + max(50, development)) on an inland node', () => {
      const result = solveLocating(locating(engine, 'inland'), { country: 'C', home: 'H' }, { rules: 'compat' });
      // 1.05 * (10 + 2 + 120) = 138.6; A total 80 + 138.6 + 30 = 248.6.
      expect(result.candidates[0]?.after).toBeCloseTo(((4 + 2 + ((10 * 138.6) / 248.6) * 1.05) * 20) / 120, 12);
    });

    it('lets no merchant act without presence: every option ties and the first row in table order wins', () => {
      const result = solveLocating(locating(engine, 'noPresenceReordered'), { country: 'C', home: 'H' }, { rules: 'compat' });
      expect(result.tied).toEqual(['Z', 'A']);
      expect(result.best).toBe('Z');
      expect(result.margin).toBe(0);
    });
  });

  describe('Locating, stated rules', () => {
    it('simulates from scratch: fresh totals and zero ingoing', () => {
      const result = solveLocating(locating(engine, 'base'), { country: 'C', home: 'H' }, { rules: 'stated' });
      // No merchant: A total 40, outflow 2.5, half to H * 1.05; H total 40: (4 + 1.3125) * 20 / 40 = 2.65625.
      expect(result.candidates[0]?.before).toBeCloseTo(2.65625, 12);
      expect(result.best).toBe('A');
      expect(result.candidates[0]?.after).toBeCloseTo(((4 + ((10 * 12.6) / 42.6) * 1.05) * 20) / 40, 12);
    });

    it('lets a merchant create a presence where the country had none', () => {
      const result = solveLocating(locating(engine, 'noPresenceReordered'), { country: 'C', home: 'H' }, { rules: 'stated' });
      // Merchant in A: power 1.05 * 2 = 2.1, A total 32.1, all of C's outflow to H.
      expect(result.best).toBe('A');
      expect(result.tied).toEqual(['A']);
      expect(result.candidates[0]?.after).toBeCloseTo(((4 + ((10 * 2.1) / 32.1) * 1.05) * 20) / 40, 12);
    });
  });

  describe('Building', () => {
    it('compat: counts stored totals twice, caps input ratios, keeps input-less outputs', () => {
      const result = solveBuilding(building(engine, 'base'), { goods: 'widgets' }, { rules: 'compat' });
      // Factory x6 (max 60, parts need 30, parts demand 5 + 30): from cycle 2 on the mine's
      // stored 20 parts feed it, ratio (30 * 20 / 35) / 30; widgets demand stays pop 10.
      const supply = 60 * (Math.min((30 * 20) / 35, 30) / 30);
      const expanded = 20 * (1 + (0.75 * (10 - supply)) / supply);
      expect(result.candidates.map((c) => [c.candidate, c.after, c.rank])).toEqual([
        ['10', expanded, 1],
        ['11', 20, 2],
        ['12', 20, 2],
      ]);
      expect(result.candidates[0]?.before).toBe(25);
    });

    it('compat: reports identical buildings as tied and keeps the first in table order', () => {
      const result = solveBuilding(building(engine, 'twinFactories'), { goods: 'widgets' }, { rules: 'compat' });
      expect(result.best).toBe('10');
      expect(result.tied).toEqual(['10', '13']);
      expect(result.margin).toBe(0);
    });

    it('stated: uncapped inputs let the input-less mine win', () => {
      const result = solveBuilding(building(engine, 'base'), { goods: 'widgets' }, { rules: 'stated' });
      // Mine x6 keeps its utilization of max 120: parts ratio 24, factory output 240: 20 * (1 + 0.75 * (10 - 240) / 240).
      expect(result.best).toBe('11');
      expect(result.candidates[0]?.after).toBeCloseTo(5.625, 12);
    });
  });
});

describe('has_has_merchant defect in a live database', () => {
  it('SQLite: a column still spelled has_has_merchant is read as has_merchant', async () => {
    const path = join(suiteDir(), 'defect.sqlite');
    writeSqliteDatabase(parseSqlDump(locatingSql(smallWorld()), 'defect'), path);
    const database = new Database(path);
    database.exec('ALTER TABLE node_country RENAME COLUMN has_merchant TO has_has_merchant');
    database.close();
    const data = await withConnector(openSqliteConnector({ path }), async (c) => (await loadLocatingFromConnector(c)).data);
    expect(data).toEqual(smallWorld());
  });

  it('SQLite: both spellings are merged row by row, and a disagreement is named', async () => {
    const path = join(suiteDir(), 'both.sqlite');
    writeSqliteDatabase(parseSqlDump(locatingSql(smallWorld()), 'both'), path);
    const database = new Database(path);
    database.exec('ALTER TABLE node_country ADD COLUMN has_has_merchant BOOLEAN');
    database.exec("UPDATE node_country SET has_has_merchant = has_merchant, has_merchant = NULL WHERE trade_node = 'A'");
    database.close();
    const merged = await withConnector(openSqliteConnector({ path }), async (c) => (await loadLocatingFromConnector(c)).data);
    expect(merged).toEqual(smallWorld());

    const conflicting = new Database(path);
    conflicting.exec("UPDATE node_country SET has_merchant = 0, has_has_merchant = 1 WHERE trade_node = 'H' AND country_name = 'C'");
    conflicting.close();
    await expect(withConnector(openSqliteConnector({ path }), (c) => loadLocatingFromConnector(c))).rejects.toThrow(
      /node_country row 3: columns has_merchant and has_has_merchant disagree/,
    );
  });

  it('Kùzu: relationships mixing both spellings are read with coalesce()', async () => {
    // Bypass the dump parser's repair to get both properties into the database.
    const graph: GraphDump = parseCypherDump(locatingCypher(smallWorld()), 'mixed');
    graph.relationships.forEach((relationship, index) => {
      if (relationship.type !== 'NodeCountry' || index % 2 === 0) return;
      const { has_merchant: flag, ...rest } = relationship.properties;
      relationship.properties = { ...rest, has_has_merchant: flag ?? null };
    });
    const path = join(suiteDir(), 'mixed.kuzu');
    await writeLadybugDatabase(graph, path, 'mixed');
    const data = await withConnector(await openLadybugConnector({ path, bufferPoolBytes: 64 * 1024 * 1024 }), async (c) => (await loadLocatingFromConnector(c)).data);
    expect(data).toEqual(smallWorld());
  });
});

describe('graph dumps LadybugDB cannot hold', () => {
  it('an empty string is refused by the importer, and dqa solve falls back to parsing that dump in memory', async () => {
    const cypher = `${locatingCypher(smallWorld())}\nCREATE (n:Note {text: ""});`;
    await expect(writeLadybugDatabase(parseCypherDump(cypher, 'empty'), join(suiteDir(), 'empty.kuzu'), 'empty')).rejects.toThrow(
      'empty: node #6, text: empty strings cannot be imported into LadybugDB (its CSV reader turns them into NULL)',
    );
    const folder = join(suiteDir(), 'fallback');
    mkdirSync(join(folder, 'db'), { recursive: true });
    writeFileSync(join(folder, 'db', 'world.cql'), cypher);
    const progress: string[] = [];
    const databases = importingDatabases({ scenario: 'locating', db: 'gdb', baseDir: folder, progress: (line) => progress.push(line) });
    try {
      const loaded = await databases.load('db/world.cql');
      expect(loaded.via).toBe('graph dump parsed in memory (db/world.cql)');
      expect(progress.join('\n')).toMatch(/db\/world\.cql: reading through LadybugDB failed \(.*empty strings cannot be imported into LadybugDB.*\); parsing the dump in memory instead/);
    } finally {
      await databases.close();
    }
  });
});

describe('connector loader errors', () => {
  it('names a missing table and a missing column', async () => {
    const path = join(suiteDir(), 'broken.sqlite');
    const database = new Database(path);
    database.exec('CREATE TABLE goods(goods_name TEXT, code INT, base_price REAL, current_price REAL); CREATE TABLE building(id INT, name TEXT, level INT);');
    database.close();
    await expect(withConnector(openSqliteConnector({ path }), (c) => loadLocatingFromConnector(c, 'broken.sqlite'))).rejects.toThrow(
      'broken.sqlite: missing table country (found: building, goods)',
    );
    const withTables = new Database(path);
    withTables.exec('CREATE TABLE supply(goods_id INT, building_id INT, max_supply REAL, current_output REAL, level INT); CREATE TABLE demand(goods_id INT, building_id INT, max_demand REAL, current_input REAL, level INT);');
    withTables.close();
    await expect(withConnector(openSqliteConnector({ path }), (c) => loadBuildingFromConnector(c, 'broken.sqlite'))).rejects.toThrow(
      'broken.sqlite: table goods has no column pop_demand',
    );
  });

  it('refuses a result cut at the row cap instead of simulating on part of a table', async () => {
    const truncating: Connector = {
      engine: 'sqlite',
      dialect: 'sql',
      schema: async () => ({ kind: 'relational', tables: ['goods', 'building', 'supply', 'demand'].map((name) => ({ name, kind: 'table' as const, columns: [], rowCount: null })) }),
      query: async () => ({ columns: [{ name: 'x', type: '' }], rows: [[1]], rowCount: 1, truncated: true, elapsedMs: 0 }),
      close: async () => undefined,
    };
    await expect(loadBuildingFromConnector(truncating, 'huge')).rejects.toThrow(/huge: table goods: more than 500000 rows; refusing to simulate on a partial read/);
  });
});
