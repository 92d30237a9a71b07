import neo4j, { type Driver } from 'neo4j-driver';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { openNeo4jConnector } from '../../../src-main/connectors/neo4j';
import { startNeo4j, whyNeo4jUnavailable, type TestServer } from '../../servers';
import { describeOrNotRun } from '../../servers/not-run';
import { digestRows, runConnectorContract, type WriteAttempt } from './contract';
import { loadNeo4jFixture } from './fixture-loaders';

const writeAttempts: WriteAttempt[] = [
  { name: 'CREATE', text: "CREATE (:Node {id: 99, name: 'Evil'})" },
  { name: 'SET', text: "MATCH (n:Node) SET n.name = 'Evil'" },
  { name: 'REMOVE', text: 'MATCH (n:Node) REMOVE n.region' },
  { name: 'DELETE relationships', text: 'MATCH ()-[r:TRADES]->() DELETE r' },
  { name: 'DETACH DELETE', text: 'MATCH (n) DETACH DELETE n' },
  { name: 'MERGE', text: "MERGE (n:Node {id: 99}) ON CREATE SET n.name = 'Evil'" },
  { name: 'FOREACH … CREATE', text: 'FOREACH (i IN range(1, 3) | CREATE (:Evil {i: i}))' },
  { name: 'write inside CALL subquery', text: 'MATCH (n:Node) CALL { WITH n SET n.evil = true } RETURN count(*)' },
  { name: 'CALL … IN TRANSACTIONS', text: 'MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS RETURN count(*)', codes: ['read-only', 'query-failed'] },
  { name: 'CREATE INDEX', text: 'CREATE INDEX evil FOR (n:Node) ON (n.name)' },
  { name: 'DROP INDEX', text: 'DROP INDEX node_id' },
  { name: 'CREATE CONSTRAINT', text: 'CREATE CONSTRAINT evil FOR (n:Node) REQUIRE n.name IS UNIQUE' },
  { name: 'LOAD CSV … CREATE', text: "LOAD CSV FROM 'file:///etc/hostname' AS row CREATE (:Evil {line: row[0]})" },
  { name: 'LOAD CSV (server file read)', text: "LOAD CSV FROM 'file:///etc/hostname' AS row RETURN row" },
  { name: 'CALL db.createLabel', text: "CALL db.createLabel('Evil')" },
  { name: 'CALL db.createRelationshipType', text: "CALL db.createRelationshipType('EVIL')" },
  { name: 'CALL db.createProperty', text: "CALL db.createProperty('evil')" },
  { name: 'CALL of a procedure not on the allow-list (read-mode db.ping)', text: 'CALL db.ping()' },
  // APOC is not installed on the test server: its procedures do not exist, which Neo4j reports first.
  { name: 'CALL apoc.create.node (APOC absent: unknown procedure)', text: "CALL apoc.create.node(['Evil'], {}) YIELD node RETURN node", codes: ['read-only', 'query-failed'] },
  { name: 'multi-statement', text: 'MATCH (n) RETURN n; MATCH (m) DETACH DELETE m', codes: ['read-only', 'syntax'] },
  { name: 'block comment then DETACH DELETE', text: '/* harmless */ MATCH (n) DETACH DELETE n' },
  { name: 'line comment then DETACH DELETE', text: '// just a comment\nMATCH (n) DETACH DELETE n' },
  { name: 'PROFILE of a write', text: 'PROFILE MATCH (n) DETACH DELETE n' },
  { name: 'write behind a read prefix', text: 'MATCH (n:Node) WITH n LIMIT 1 DETACH DELETE n RETURN 1' },
  { name: 'TERMINATE TRANSACTIONS', text: "TERMINATE TRANSACTIONS 'neo4j-transaction-1'" },
  { name: 'CREATE USER', text: "CREATE USER evil SET PASSWORD 'evil-password'", codes: ['read-only', 'query-failed'] },
];

const unavailable = whyNeo4jUnavailable();
let server: TestServer | null = null;
let admin: Driver | null = null;

async function fingerprint(): Promise<string> {
  if (admin === null) throw new Error('no admin driver');
  const session = admin.session({ defaultAccessMode: neo4j.session.READ });
  try {
    const snapshot: unknown[] = [];
    for (const cypher of [
      'MATCH (n) RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props ORDER BY id',
      'MATCH ()-[r]->() RETURN elementId(r) AS id, type(r) AS type, properties(r) AS props ORDER BY id',
      'SHOW INDEXES YIELD name, labelsOrTypes, properties RETURN name, labelsOrTypes, properties ORDER BY name',
      'SHOW CONSTRAINTS YIELD name RETURN name ORDER BY name',
      'CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey ORDER BY propertyKey',
      'CALL db.labels() YIELD label RETURN label ORDER BY label',
    ]) {
      const result = await session.run(cypher);
      snapshot.push(result.records.map((record) => record.toObject()));
    }
    return digestRows(snapshot);
  } catch (error) {
    return `fingerprint failed: ${String(error)}`;
  } finally {
    await session.close();
  }
}

beforeAll(async () => {
  if (unavailable !== null) return;
  server = await startNeo4j();
  if (server === null) throw new Error('Neo4j vanished between the check and the start');
  console.log(`[servers] Neo4j started in ${server.startupMs} ms`);
  admin = neo4j.driver(server.uri, neo4j.auth.basic(server.username, server.password));
  await loadNeo4jFixture(server.uri, server.username, server.password);
  const session = admin.session();
  try {
    await session.run('CREATE INDEX node_id FOR (n:Node) ON (n.id)');
    await session.run('CALL db.awaitIndexes(60)');
  } finally {
    await session.close();
  }
}, 180_000);

afterAll(async () => {
  await admin?.close();
  await server?.stop();
}, 60_000);

runConnectorContract('Neo4j connector', {
  unavailable,
  writeAttempts,
  async setup() {
    if (server === null) throw new Error('Neo4j server not started');
    const connector = await openNeo4jConnector({ url: server.uri, username: server.username, password: server.password });
    return {
      connector,
      selectNodes: 'MATCH (n:Node) RETURN n.id AS id, n.name AS name, n.region AS region ORDER BY n.id',
      nodesInRegion: 'MATCH (n:Node) WHERE n.region = $region RETURN n.name AS name ORDER BY n.id',
      manyRows: 'UNWIND range(1, 100000) AS x RETURN x',
      slowQuery: 'UNWIND range(1, 2000000000) AS x WITH x WHERE x % 7 = 0 RETURN count(x)',
      syntaxError: { text: 'MATCH (n RETURN n', messageIncludes: 'Invalid input' },
      unknownNames: [
        { text: 'MATCH (n:Nod) RETURN n.name', messageIncludes: ['the label Nod does not exist', 'did you mean "Node"?'] },
        { text: "MATCH (n:Node) WHERE n.nme = 'Genoa' RETURN n.id", messageIncludes: ['the property nme does not exist', 'did you mean "name"?'] },
        { text: 'MATCH (:Node)-[t:TRADE]->(:Node) RETURN t.qty', messageIncludes: ['the relationship type TRADE does not exist', 'did you mean "TRADES"?'] },
      ],
      fingerprint,
      dispose: () => connector.close(),
    };
  },
});

describeOrNotRun('Neo4j engine layers on their own', unavailable, () => {
  const engineOnly = [
    "CREATE (:Node {id: 98})",
    "MATCH (n:Node) SET n.name = 'x'",
    'MATCH (n) DETACH DELETE n',
    'MERGE (n:Node {id: 98})',
    'CREATE INDEX evil2 FOR (n:Node) ON (n.region)',
    "CALL db.createLabel('Evil')",
  ];

  it.each(engineOnly)('a READ access-mode transaction refuses %s without the EXPLAIN check', async (cypher) => {
    if (admin === null) throw new Error('no admin driver');
    const session = admin.session({ defaultAccessMode: neo4j.session.READ });
    try {
      const transaction = session.beginTransaction();
      const error = await transaction.run(cypher).then(() => null, (caught: unknown) => caught as { code?: string });
      await transaction.rollback().catch(() => undefined);
      expect(error?.code).toBe('Neo.ClientError.Statement.AccessMode');
    } finally {
      await session.close();
    }
  });

  it('returns JSON-safe cells for graph values and big integers', async () => {
    const connector = await openNeo4jConnector({ url: server?.uri ?? '' });
    try {
      const result = await connector.query(
        "MATCH p = (a:Node {id: 1})-[r:TRADES {id: 1}]->(b) RETURN a, r, p, 9007199254740993 AS big, 42 AS small, date('2024-01-02') AS day, [1, 2] AS list, {k: 1} AS map",
        { maxRows: 10, timeoutMs: 5000 },
      );
      const [a, r, p, big, small, day, list, map] = result.rows[0] ?? [];
      expect(JSON.parse(String(a))).toMatchObject({ labels: ['Node'], properties: { id: 1, name: 'Rotterdam', region: 'north' } });
      expect(JSON.parse(String(r))).toMatchObject({ type: 'TRADES', properties: { qty: 10, price: 12.5 } });
      expect(JSON.parse(String(p)).nodes).toHaveLength(2);
      expect([big, small, day, list, map]).toEqual(['9007199254740993', 42, '2024-01-02', '[1,2]', '{"k":1}']);
      expect(result.columns.map((column) => column.type)).toEqual(['Node', 'Relationship', 'Path', 'Integer', 'Integer', 'Date', 'List', 'Map']);
    } finally {
      await connector.close();
    }
  });

  it('refuses a URL that is not neo4j:// or bolt://', async () => {
    await expect(openNeo4jConnector({ url: 'http://127.0.0.1:7474' })).rejects.toMatchObject({ code: 'invalid-uri' });
  });
});
