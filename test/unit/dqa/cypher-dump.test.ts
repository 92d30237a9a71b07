import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCypherDump } from '../../../src-main/dqa/cypher-dump';
import { dqaRoot, readDumpText } from '../../../src-main/dqa/dataset';

describe('parseCypherDump on inline dumps', () => {
  it('creates nodes with variables, labels and typed properties', () => {
    const graph = parseCypherDump(`
      CREATE (kongo:Trade_node {name:"kongo", local_value:2.875, is_inland:true, ingoing:0, delta:-1.5e-3});
      CREATE (n: Goods {name:"grain", code: 7, note: null});
    `);
    expect(graph.nodes).toEqual([
      { variable: 'kongo', labels: ['Trade_node'], properties: { name: 'kongo', local_value: 2.875, is_inland: true, ingoing: 0, delta: -0.0015 } },
      { variable: 'n', labels: ['Goods'], properties: { name: 'grain', code: 7, note: null } },
    ]);
    expect(graph.relationships).toEqual([]);
  });

  it('resolves MATCH ... CREATE relationships by label and property, whatever the variable names', () => {
    const graph = parseCypherDump(`
      CREATE (n: Goods {name:"wood", code: 10});
      CREATE (n: Building {id: 1880, name:"b"});
      MATCH (g: Goods{code: 10}), (b: Building{id:1880}) CREATE (g)-[r:Demand{max_demand: 30.0, current_input: 60.8}]->(b);
      MATCH (g: Goods{code: 10}), (b: Building{id:1880}) CREATE (b)-[r:Supply{max_supply: 60.0}]->(g);
    `);
    expect(graph.relationships).toEqual([
      { type: 'Demand', from: 0, to: 1, properties: { max_demand: 30, current_input: 60.8 } },
      { type: 'Supply', from: 1, to: 0, properties: { max_supply: 60 } },
    ]);
  });

  it('supports chains, left arrows and several patterns in one CREATE', () => {
    const graph = parseCypherDump(`
      CREATE (a:X {k: 1})-[:R {w: 1}]->(b:X {k: 2})<-[:R]-(c:Y), (d:Y {k: 'single quoted'});
      MATCH (p:X {k: 1}) MATCH (q:Y {k: 'single quoted'}) CREATE (q)-[:S]->(p);
    `);
    expect(graph.nodes.map((n) => n.properties)).toEqual([{ k: 1 }, { k: 2 }, {}, { k: 'single quoted' }]);
    expect(graph.relationships).toEqual([
      { type: 'R', from: 0, to: 1, properties: { w: 1 } },
      { type: 'R', from: 2, to: 1, properties: {} },
      { type: 'S', from: 3, to: 0, properties: {} },
    ]);
  });

  it('matches numbers by value (7 = 7.0) like Cypher does', () => {
    const graph = parseCypherDump('CREATE (:G {code: 7.0});\nMATCH (a:G {code: 7}) CREATE (a)-[:SELF]->(a);');
    expect(graph.relationships).toEqual([{ type: 'SELF', from: 0, to: 0, properties: {} }]);
  });

  it('repairs has_has_merchant property keys (mixed spellings in one dump)', () => {
    const graph = parseCypherDump(`
      CREATE (a:Trade_node {name:"a"}); CREATE (S:Country {name:"S"});
      MATCH (a:Trade_node {name:"a"}), (S:Country {name:"S"}) CREATE (S)-[r:NodeCountry{is_home: false, has_has_merchant: "False"}]->(a);
      MATCH (a:Trade_node {name:"a"}), (S:Country {name:"S"}) CREATE (S)-[r:NodeCountry{is_home: true, has_merchant:  "False"}]->(a);
    `);
    expect(graph.relationships.map((r) => r.properties)).toEqual([
      { is_home: false, has_merchant: 'False' },
      { is_home: true, has_merchant: 'False' },
    ]);
  });

  describe('errors name the source, the line and what went wrong', () => {
    const cases: [string, string, RegExp][] = [
      ['MATCH finds nothing', 'CREATE (a:X {k: 1});\nMATCH (b:X {k: 2}) CREATE (b)-[:R]->(b);', /^g\.cql:2:7: MATCH \(b:X \{k: 2\}\) finds no node/],
      ['ambiguous MATCH', 'CREATE (:X {k: 1});\nCREATE (:X {k: 1});\nMATCH (b:X {k: 1}) CREATE (b)-[:R]->(b);', /^g\.cql:3:7: .*ambiguous: 2 nodes match/],
      ['variable from an earlier statement', 'CREATE (a:X {k: 1});\nCREATE (a)-[:R]->(a);', /^g\.cql:2:8: variable a is not bound in this statement/],
      ['unsupported clause', 'MERGE (a:X {k: 1});', /^g\.cql:1:1: unsupported Cypher clause MERGE/],
      ['WHERE', 'CREATE (:X {k: 1});\nMATCH (a:X {k: 1}) WHERE a.k = 1 CREATE (a)-[:R]->(a);', /unsupported Cypher clause WHERE/],
      ['undirected relationship', 'CREATE (a:X {k: 1})-[:R]-(b:X {k: 2});', /^g\.cql:1:20: a created relationship needs a direction/],
      ['untyped relationship', 'CREATE (a:X {k: 1})-[]->(b:X {k: 2});', /a created relationship needs a type/],
      ['list values', 'CREATE (a:X {k: [1, 2]});', /^g\.cql:1:17: list and map values are not supported \(property k\)/],
      ['missing semicolon', 'CREATE (a:X {k: 1})\nCREATE (b:X {k: 2}) (c)', /^g\.cql:2:21: expected ',', ';' or another clause, found '\('/],
      ['unterminated map', 'CREATE (a:X {k: 1);', /^g\.cql:1:18: expected '\}' or ',' in the property map, found '\)'/],
      ['MATCH without CREATE', 'CREATE (:X {k: 1});\nMATCH (a:X {k: 1});', /statement has MATCH but no CREATE/],
      ['duplicate property', 'CREATE (a:X {k: 1, k: 2});', /duplicate property k/],
    ];
    for (const [title, text, pattern] of cases) {
      it(title, () => {
        expect(() => parseCypherDump(text, 'g.cql')).toThrow(pattern);
      });
    }
  });
});

describe('parseCypherDump on every graph dump of the DQA data', () => {
  const root = dqaRoot();
  for (const scenario of ['locating', 'building'] as const) {
    const files = readdirSync(join(root, scenario, 'db')).filter((name) => name.endsWith('.cql'));
    it(`finds ${scenario} dumps`, () => {
      expect(files.length).toBeGreaterThan(0);
    });
    for (const file of files) {
      it(`${scenario}/${file}`, () => {
        const graph = parseCypherDump(readDumpText(root, scenario, `db/${file}`), file);
        const labels = new Set(graph.nodes.flatMap((n) => n.labels));
        const types = new Set(graph.relationships.map((r) => r.type));
        if (scenario === 'locating') {
          expect([...labels].sort()).toEqual(['Country', 'Trade_node']);
          expect([...types].sort()).toEqual(['NodeCountry', 'source']);
          for (const r of graph.relationships.filter((x) => x.type === 'NodeCountry')) {
            expect(Object.keys(r.properties)).toEqual(['is_home', 'has_merchant', 'base_trading_power', 'calculated_trading_power']);
          }
        } else {
          expect([...labels].sort()).toEqual(['Building', 'Goods']);
          expect([...types].sort()).toEqual(['Demand', 'Supply']);
        }
      });
    }
  }
});
