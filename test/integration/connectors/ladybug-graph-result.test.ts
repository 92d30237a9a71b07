import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openLadybugConnector } from '../../../src-main/connectors/ladybug';
import type { Connector } from '../../../src-main/connectors/connector';
import { expandNeighboursQuery, graphOfResults } from '../../../src-main/contract/graph-result';
import { toCsv } from '../../../src-renderer/grid/csv';
import { runLadybugStatements } from './fixture-loaders';

/** The graph view reads what the real Kùzu connector writes: nodes, relationships, paths, and a node's neighbours. */
const root = mkdtempSync(join(tmpdir(), 'dwb-kuzu-graph-'));
const path = join(root, 'ports.kuzu');
let connector: Connector;

beforeAll(async () => {
  runLadybugStatements(path, [
    'CREATE NODE TABLE City(name STRING PRIMARY KEY, population INT64)',
    'CREATE NODE TABLE Port(code STRING PRIMARY KEY, depth DOUBLE)',
    'CREATE REL TABLE SHIPS(FROM Port TO City, tons INT64)',
    'CREATE REL TABLE ROAD(FROM City TO City, km INT64)',
    "CREATE (:City {name: 'Lisbon', population: 545000}), (:City {name: 'Porto', population: 232000}), (:City {name: 'Faro', population: 67000})",
    "CREATE (:Port {code: 'LIS', depth: 14.5})",
    "MATCH (a:City {name: 'Lisbon'}), (b:City {name: 'Porto'}) CREATE (a)-[:ROAD {km: 313}]->(b)",
    "MATCH (a:City {name: 'Lisbon'}), (b:City {name: 'Faro'}) CREATE (a)-[:ROAD {km: 278}]->(b)",
    "MATCH (p:Port {code: 'LIS'}), (c:City {name: 'Lisbon'}) CREATE (p)-[:SHIPS {tons: 9000}]->(c)",
  ]);
  connector = await openLadybugConnector({ path, bufferPoolBytes: 64 * 1024 * 1024 });
});

afterAll(async () => {
  await connector?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('graph elements from LadybugDB results', () => {
  it('reads the nodes and relationships a MATCH returns, each once, with labels and properties', async () => {
    const result = await connector.query("MATCH (a:City {name: 'Lisbon'})-[r:ROAD]->(b) RETURN a, r, b ORDER BY b.name", { maxRows: 100, timeoutMs: 30_000 });
    const graph = graphOfResults([result]);
    expect(graph?.nodes.map((node) => [node.labels, node.properties])).toEqual([
      [['City'], { name: 'Lisbon', population: 545000 }],
      [['City'], { name: 'Faro', population: 67000 }],
      [['City'], { name: 'Porto', population: 232000 }],
    ]);
    const lisbon = graph?.nodes[0]?.id ?? '';
    expect(graph?.relationships.map((relationship) => [relationship.type, relationship.start === lisbon, relationship.properties])).toEqual([
      ['ROAD', true, { km: 278 }],
      ['ROAD', true, { km: 313 }],
    ]);
    // The table and its CSV keep each element as readable JSON text.
    expect(toCsv({ columns: result.columns, rows: result.rows.slice(0, 1) })).toContain('""name"":""Lisbon""');
  });

  it('reads the nodes and relationships of a recursive path', async () => {
    const result = await connector.query("MATCH p = (:Port {code: 'LIS'})-[*1..2]->(:City {name: 'Porto'}) RETURN p", { maxRows: 10, timeoutMs: 30_000 });
    const graph = graphOfResults([result]);
    expect(graph?.nodes.map((node) => node.labels[0])).toEqual(['Port', 'City', 'City']);
    expect(graph?.relationships.map((relationship) => relationship.type)).toEqual(['SHIPS', 'ROAD']);
  });

  it("runs the expand query read-only and returns the node's neighbours, which merge into the graph", async () => {
    const first = await connector.query("MATCH (c:City {name: 'Lisbon'}) RETURN c", { maxRows: 10, timeoutMs: 30_000 });
    const lisbon = graphOfResults([first])?.nodes[0];
    const query = expandNeighboursQuery('kuzu', lisbon?.id ?? '');
    expect(query).not.toBeNull();
    const neighbours = await connector.query(query ?? '', { maxRows: 100, timeoutMs: 30_000 });
    const merged = graphOfResults([first, neighbours]);
    expect(merged?.nodes.map((node) => node.properties.name ?? node.properties.code).sort()).toEqual(['Faro', 'LIS', 'Lisbon', 'Porto']);
    expect(merged?.relationships).toHaveLength(3);
  });
});
