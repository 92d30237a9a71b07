import { describe, expect, it } from 'vitest';
import { parseCypherDump } from '../../../src-main/dqa/cypher-dump';
import { dqaRoot, readBuildingQuestions, readDumpText, readLocatingQuestions } from '../../../src-main/dqa/dataset';
import { buildingFromGraph, buildingFromTables, dumpKindOf, loadBuildingDump, loadLocatingDump, locatingFromGraph, locatingFromTables } from '../../../src-main/dqa/load';
import { parseSqlDump } from '../../../src-main/dqa/sql-dump';

const locatingSql = `
CREATE TABLE country( country_name VARCHAR(30), home_node VARCHAR(30), development FLOAT, PRIMARY KEY (country_name));
CREATE TABLE trade_node( trade_node VARCHAR(30), local_value FLOAT, is_inland BOOLEAN, total_power FLOAT, outgoing FLOAT, ingoing FLOAT, PRIMARY KEY (trade_node));
CREATE TABLE flow( source VARCHAR(30), dest VARCHAR(30), flow FLOAT, PRIMARY KEY (source, dest));
CREATE TABLE node_country( trade_node VARCHAR(30), country_name VARCHAR(30), is_home BOOLEAN, has_has_merchant BOOLEAN, base_trading_power FLOAT, calculated_trading_power FLOAT, PRIMARY KEY (trade_node, country_name));
INSERT INTO country(country_name,home_node,development) VALUES ("SWE", "baltic_sea", 107.373);
INSERT INTO trade_node(trade_node, local_value, is_inland, total_power, outgoing, ingoing) VALUES ("krakow", 1.5, TRUE, 20, 0.25, 0);
INSERT INTO trade_node(trade_node, local_value, is_inland, total_power, outgoing, ingoing) VALUES ("baltic_sea", 2, FALSE, 10, 0, 0.2625);
INSERT INTO flow(source, dest, flow) VALUES ("krakow", "baltic_sea", 0.25);
INSERT INTO node_country(trade_node,country_name, is_home, has_has_merchant, base_trading_power, calculated_trading_power) VALUES ("krakow", "SWE", FALSE, FALSE, 3.5, 3.5);
`;

const locatingCql = `
CREATE (krakow:Trade_node {name:"krakow", local_value:1.5, is_inland:true, total_power:20, outgoing:0.25, ingoing:0});
CREATE (baltic_sea:Trade_node {name:"baltic_sea", local_value:2, is_inland:false, total_power:10, outgoing:0.0, ingoing:0.2625});
CREATE (SWE:Country {name:"SWE", home_node:"baltic_sea", development:107.373});
MATCH (krakow:Trade_node {name:"krakow"}), (baltic_sea:Trade_node {name:"baltic_sea"}) CREATE (krakow)-[r:source{flow:0.25}]->(baltic_sea);
MATCH (krakow:Trade_node {name:"krakow"}), (SWE:Country {name:"SWE"}) CREATE (SWE)-[r:NodeCountry{is_home: false, has_has_merchant: "False",base_trading_power: 3.5,calculated_trading_power: 3.5}]->(krakow);
`;

const expectedLocating = {
  // The graph dump lists trade nodes before countries; loaders keep each kind in its own file order.
  countries: [{ name: 'SWE', homeNode: 'baltic_sea', development: 107.373 }],
  tradeNodes: [
    { name: 'krakow', localValue: 1.5, isInland: true, totalPower: 20, outgoing: 0.25, ingoing: 0 },
    { name: 'baltic_sea', localValue: 2, isInland: false, totalPower: 10, outgoing: 0, ingoing: 0.2625 },
  ],
  flows: [{ source: 'krakow', dest: 'baltic_sea', flow: 0.25 }],
  nodeCountries: [{ tradeNode: 'krakow', country: 'SWE', isHome: false, hasMerchant: false, baseTradingPower: 3.5, calculatedTradingPower: 3.5 }],
};

const buildingSql = `
CREATE TABLE goods( goods_name VARCHAR(30), code INT, base_price FLOAT, current_price FLOAT, pop_demand FLOAT, PRIMARY KEY (code));
CREATE TABLE building( id INT, name VARCHAR(80), level INT, PRIMARY KEY (id));
CREATE TABLE supply( goods_id INT, building_id INT, max_supply FLOAT, current_output FLOAT, level INT, PRIMARY KEY (goods_id, building_id));
CREATE TABLE demand( goods_id INT, building_id INT, max_demand FLOAT, current_input FLOAT, level INT, PRIMARY KEY (goods_id, building_id));
INSERT INTO goods(goods_name,code,base_price, current_price, pop_demand) VALUES ("wood", 10, 20, 12.5, 25.25);
INSERT INTO goods(goods_name,code,base_price, current_price, pop_demand) VALUES ("tools", 33, 40, 25.0, 0);
INSERT INTO building(id, name, level) VALUES (1880, "building_tooling_workshopslevel", 1);
INSERT INTO supply(goods_id, building_id, max_supply, current_output, level) VALUES (33, 1880, 60.0, 60.0, 1);
INSERT INTO demand(goods_id, building_id, max_demand, current_input, level) VALUES (10, 1880, 30.0, 60.5, 1);
`;

const buildingCql = `
CREATE (n: Goods {name:"wood", code: 10, base_price:20, current_price:12.5, pop_demand:25.25});
CREATE (n: Goods {name:"tools", code: 33, base_price:40, current_price:25.0, pop_demand:0});
CREATE (n: Building {id: 1880, name:"building_tooling_workshopslevel", level:1});
MATCH (g: Goods{code: 10}), (b: Building{id:1880}) CREATE (g)-[r:Demand{max_demand: 30.0, current_input: 60.5, level: 1}]->(b);
MATCH (g: Goods{code: 33}), (b: Building{id:1880}) CREATE (b)-[r:Supply{max_supply: 60.0, current_output: 60.0,level: 1}]->(g);
`;

const expectedBuilding = {
  goods: [
    { name: 'wood', code: 10, basePrice: 20, currentPrice: 12.5, popDemand: 25.25 },
    { name: 'tools', code: 33, basePrice: 40, currentPrice: 25, popDemand: 0 },
  ],
  buildings: [{ id: 1880, name: 'building_tooling_workshopslevel', level: 1 }],
  supplies: [{ goodsCode: 33, buildingId: 1880, maxSupply: 60, currentOutput: 60, level: 1 }],
  demands: [{ goodsCode: 10, buildingId: 1880, maxDemand: 30, currentInput: 60.5, level: 1 }],
};

describe('loaders on inline dumps', () => {
  it('load the same Locating data from SQL and Cypher (has_has_merchant and "False" included)', () => {
    expect(loadLocatingDump(locatingSql, 'relational', 'l.sql')).toEqual(expectedLocating);
    expect(loadLocatingDump(locatingCql, 'graph', 'l.cql')).toEqual(expectedLocating);
  });

  it('load the same Building data from SQL and Cypher', () => {
    expect(loadBuildingDump(buildingSql, 'relational', 'b.sql')).toEqual(expectedBuilding);
    expect(loadBuildingDump(buildingCql, 'graph', 'b.cql')).toEqual(expectedBuilding);
  });

  it('tell the dump kind from the file name', () => {
    expect(dumpKindOf('db/USA1836.sql')).toBe('relational');
    expect(dumpKindOf('db/USA1836.CQL')).toBe('graph');
    expect(() => dumpKindOf('db/USA1836.json')).toThrow(/expected a \.sql or \.cql file/);
  });

  it('name the table, row and column of a bad value', () => {
    const tables = parseSqlDump(locatingSql.replace('"SWE", FALSE, FALSE', '"SWE", FALSE, "maybe"').replace('has_has_merchant BOOLEAN', 'has_merchant VARCHAR(5)'), 'l.sql');
    expect(() => locatingFromTables(tables, 'l.sql')).toThrow('l.sql: node_country row 1, column has_merchant: expected a boolean, found "maybe"');
    expect(() => locatingFromTables(tables.filter((t) => t.name !== 'flow'), 'l.sql')).toThrow('l.sql: missing table flow');
    const noLevel = parseSqlDump(buildingSql.replace(/level INT, PRIMARY KEY \(id\)/, 'PRIMARY KEY (id)').replace(/, 1\);\nINSERT INTO supply/, ');\nINSERT INTO supply').replace('building(id, name, level)', 'building(id, name)'), 'b.sql');
    expect(() => buildingFromTables(noLevel, 'b.sql')).toThrow('b.sql: table building has no column level (columns: id, name)');
  });

  it('name the graph element of a bad value', () => {
    const graph = parseCypherDump(buildingCql.replace('level:1}', 'level:"high"}'), 'b.cql');
    expect(() => buildingFromGraph(graph, 'b.cql')).toThrow('b.cql: :Building node #3, property level: expected a number, found "high"');
    const noCountry = parseCypherDump(locatingCql.replace(/CREATE \(SWE[^\n]*\n/, '').replace(/MATCH \(krakow:Trade_node \{name:"krakow"\}\), \(SWE[^\n]*\n/, ''), 'l.cql');
    expect(() => locatingFromGraph(noCountry, 'l.cql')).toThrow('l.cql: no :Country nodes');
  });
});

describe('relational and graph dumps of every DQA question load to identical data', () => {
  const root = dqaRoot();
  const pairs = new Map<string, { scenario: 'locating' | 'building'; rdb: string; gdb: string }>();
  for (const q of readLocatingQuestions(root)) pairs.set(`locating|${q.rdb}|${q.gdb}`, { scenario: 'locating', rdb: q.rdb, gdb: q.gdb });
  for (const q of readBuildingQuestions(root)) pairs.set(`building|${q.rdb}|${q.gdb}`, { scenario: 'building', rdb: q.rdb, gdb: q.gdb });
  for (const { scenario, rdb, gdb } of pairs.values()) {
    it(`${scenario}: ${rdb} = ${gdb}`, () => {
      const load = scenario === 'locating' ? loadLocatingDump : loadBuildingDump;
      const relational = load(readDumpText(root, scenario, rdb), 'relational', rdb);
      const graph = load(readDumpText(root, scenario, gdb), 'graph', gdb);
      expect(graph).toEqual(relational);
    });
  }
});
