import { describe, expect, it } from 'vitest';
import { parseCypherDump, type GraphDump } from '../../../src-main/dqa/cypher-dump';
import { dqaRoot, readBuildingQuestions, readDumpText, readLocatingQuestions, type DqaScenario } from '../../../src-main/dqa/dataset';
import { parseSqlDump, type DumpTable } from '../../../src-main/dqa/sql-dump';

/** What both versions of a dump must agree on: the relational table -> the graph element holding the same rows. */
interface Correspondence {
  table: string;
  graph: { kind: 'node'; label: string } | { kind: 'relationship'; type: string };
}

const correspondences: Record<DqaScenario, Correspondence[]> = {
  locating: [
    { table: 'country', graph: { kind: 'node', label: 'Country' } },
    { table: 'trade_node', graph: { kind: 'node', label: 'Trade_node' } },
    { table: 'flow', graph: { kind: 'relationship', type: 'source' } },
    { table: 'node_country', graph: { kind: 'relationship', type: 'NodeCountry' } },
  ],
  building: [
    { table: 'goods', graph: { kind: 'node', label: 'Goods' } },
    { table: 'building', graph: { kind: 'node', label: 'Building' } },
    { table: 'supply', graph: { kind: 'relationship', type: 'Supply' } },
    { table: 'demand', graph: { kind: 'relationship', type: 'Demand' } },
  ],
};

function graphCount(graph: GraphDump, target: Correspondence['graph']): number {
  return target.kind === 'node'
    ? graph.nodes.filter((n) => n.labels.includes(target.label)).length
    : graph.relationships.filter((r) => r.type === target.type).length;
}

function rowCount(tables: DumpTable[], name: string): number {
  const table = tables.find((t) => t.name === name);
  if (table === undefined) throw new Error(`no table ${name}`);
  return table.rows.length;
}

describe('relational and graph dumps of each question hold the same number of rows', () => {
  const root = dqaRoot();
  const pairs: { scenario: DqaScenario; rdb: string; gdb: string }[] = [];
  const seen = new Set<string>();
  const questions = [
    ...readLocatingQuestions(root).map((q) => ({ scenario: 'locating' as const, rdb: q.rdb, gdb: q.gdb })),
    ...readBuildingQuestions(root).map((q) => ({ scenario: 'building' as const, rdb: q.rdb, gdb: q.gdb })),
  ];
  for (const pair of questions) {
    const key = `${pair.scenario}|${pair.rdb}|${pair.gdb}`;
    if (seen.has(key)) continue;
    seen.add(key);
    pairs.push(pair);
  }

  for (const { scenario, rdb, gdb } of pairs) {
    it(`${scenario}: ${rdb} vs ${gdb}`, () => {
      const tables = parseSqlDump(readDumpText(root, scenario, rdb), rdb);
      const graph = parseCypherDump(readDumpText(root, scenario, gdb), gdb);
      for (const { table, graph: target } of correspondences[scenario]) {
        expect({ table, count: graphCount(graph, target) }).toEqual({ table, count: rowCount(tables, table) });
      }
      // Nothing in the graph dump is left without a relational counterpart.
      const total = correspondences[scenario].reduce((sum, c) => sum + rowCount(tables, c.table), 0);
      expect(graph.nodes.length + graph.relationships.length).toBe(total);
      if (scenario === 'locating') {
        // The 1445 world: 665 countries, 80 trade nodes, 159 flows, 1480 country-node links.
        expect(correspondences.locating.map((c) => rowCount(tables, c.table))).toEqual([665, 80, 159, 1480]);
      }
    });
  }
});
