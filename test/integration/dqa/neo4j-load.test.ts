/**
 * The Cypher loader on Neo4j: DQA graph dumps loaded into a real Neo4j with their file order
 * and their spelling defects (one Locating dump mixes has_merchant and has_has_merchant), read
 * back through the Neo4j connector, must give the dump parser's data, in the dump's order
 * (Neo4j: creation order by id()). Not run when the Neo4j test server is not installed (see
 * test/servers/README.md).
 */
import neo4j, { type Driver } from 'neo4j-driver';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openNeo4jConnector } from '../../../src-main/connectors/neo4j';
import { loadBuildingFromConnector, loadLocatingFromConnector } from '../../../src-main/dqa/from-connector';
import { parseCypherDump } from '../../../src-main/dqa/cypher-dump';
import { loadBuildingDump, loadLocatingDump } from '../../../src-main/dqa/load';
import { startNeo4j, whyNeo4jUnavailable, type TestServer } from '../../servers';
import { describeOrNotRun } from '../../servers/not-run';
import { dqaRoot } from '../../support/fixtures';

const unavailable = whyNeo4jUnavailable();
let server: TestServer | null = null;
let admin: Driver | null = null;

function dumpText(scenario: string, file: string): string {
  return readFileSync(join(dqaRoot(), scenario, 'db', file), 'utf8');
}

/**
 * Loads a dump into a fresh database in bulk (one parameterized UNWIND per label and per
 * relationship type, each in file order, so id() order within a label or type is file order).
 * Running the dump's 2,400 literal statements one by one costs Neo4j a query plan each (over a
 * minute); the graph is the same. The parser repairs has_has_merchant, so the relationships
 * that carry the defective spelling in the file get it back here.
 */
async function loadDump(text: string, file: string): Promise<void> {
  if (admin === null) throw new Error('no admin driver');
  const graph = parseCypherDump(text, file);
  const relationshipLines = text.split('\n').filter((line) => /-\[/.test(line));
  expect(relationshipLines).toHaveLength(graph.relationships.length);
  const session = admin.session();
  try {
    await session.run('MATCH (n) DETACH DELETE n');
    const elementIds: string[] = new Array<string>(graph.nodes.length);
    const labels = [...new Set(graph.nodes.map((node) => node.labels[0] ?? ''))];
    for (const label of labels) {
      const members = graph.nodes.flatMap((node, index) => (node.labels[0] === label ? [{ index, props: node.properties }] : []));
      const result = await session.run(`UNWIND $rows AS row CREATE (n:\`${label}\`) SET n = row.props RETURN row.index AS index, elementId(n) AS id`, { rows: members });
      for (const record of result.records) elementIds[Number(record.get('index'))] = String(record.get('id'));
    }
    const types = [...new Set(graph.relationships.map((relationship) => relationship.type))];
    for (const type of types) {
      const rows = graph.relationships.flatMap((relationship, index) => {
        if (relationship.type !== type) return [];
        const props = { ...relationship.properties };
        if ((relationshipLines[index] ?? '').includes('has_has_merchant')) {
          props['has_has_merchant'] = props['has_merchant'] ?? null;
          delete props['has_merchant'];
        }
        return [{ from: elementIds[relationship.from], to: elementIds[relationship.to], props }];
      });
      await session.run(
        `UNWIND $rows AS row MATCH (a) WHERE elementId(a) = row.from MATCH (b) WHERE elementId(b) = row.to CREATE (a)-[r:\`${type}\`]->(b) SET r = row.props`,
        { rows },
      );
    }
  } finally {
    await session.close();
  }
}

async function readBack<T>(read: (connector: Awaited<ReturnType<typeof openNeo4jConnector>>) => Promise<T>): Promise<T> {
  const connector = await openNeo4jConnector({ url: server?.uri ?? '', username: server?.username ?? '', password: server?.password ?? '' });
  try {
    return await read(connector);
  } finally {
    await connector.close();
  }
}

beforeAll(async () => {
  if (unavailable !== null) return;
  server = await startNeo4j();
  if (server === null) throw new Error('Neo4j vanished between the check and the start');
  admin = neo4j.driver(server.uri, neo4j.auth.basic(server.username, server.password));
}, 180_000);

afterAll(async () => {
  await admin?.close();
  await server?.stop();
}, 60_000);

describeOrNotRun('DQA graph dumps in Neo4j, read through the connector', unavailable, () => {
  it('Locating, with the has_has_merchant defect in part of the relationships', async () => {
    const file = 'locating-1445-d7a0d95c.cql';
    const text = dumpText('locating', file);
    // Both spellings occur, so the loader must read coalesce(has_merchant, has_has_merchant).
    const lines = text.split('\n');
    expect(lines.filter((line) => line.includes('has_has_merchant:')).length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.includes(' has_merchant:')).length).toBeGreaterThan(0);
    await loadDump(text, file);
    const loaded = await readBack((connector) => loadLocatingFromConnector(connector, file));
    expect(loaded.warnings).toEqual([]);
    expect(loaded.ordering).toContain('Trade_node by id() (creation order)');
    expect(loaded.data).toEqual(loadLocatingDump(text, 'graph', file));
  }, 120_000);

  it('Building', async () => {
    const file = 'USA1836.cql';
    const text = dumpText('building', file);
    await loadDump(text, file);
    const loaded = await readBack((connector) => loadBuildingFromConnector(connector, file));
    expect(loaded.data).toEqual(loadBuildingDump(text, 'graph', file));
  }, 120_000);
});
