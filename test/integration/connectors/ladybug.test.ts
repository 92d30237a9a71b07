import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { openLadybugConnector } from '../../../src-main/connectors/ladybug';
import { digestDirectory, runConnectorContract, type WriteAttempt } from './contract';
import { writeLadybugFixture } from './fixture-loaders';

// The database lives alone in its directory so a digest of the directory catches any write.
const root = mkdtempSync(join(tmpdir(), 'dwb-contract-kuzu-'));
const databaseDir = join(root, 'database');
const databasePath = join(databaseDir, 'trades.kuzu');
const scratch = join(root, 'scratch');
const outFile = join(scratch, 'out.csv');
const exportDir = join(scratch, 'export');

const writeAttempts: WriteAttempt[] = [
  { name: 'CREATE', text: "CREATE (:Node {id: 99, name: 'Evil', region: 'x'})" },
  { name: 'SET', text: "MATCH (n:Node) SET n.name = 'Evil'" },
  { name: 'REMOVE (SET to NULL)', text: 'MATCH (n:Node) SET n.region = NULL' },
  { name: 'DELETE relationships', text: 'MATCH ()-[r:TRADES]->() DELETE r' },
  { name: 'DETACH DELETE', text: 'MATCH (n) DETACH DELETE n' },
  { name: 'MERGE', text: "MERGE (n:Node {id: 99}) ON CREATE SET n.name = 'Evil'" },
  { name: 'CREATE NODE TABLE', text: 'CREATE NODE TABLE Evil(id INT64 PRIMARY KEY)' },
  { name: 'DROP TABLE', text: 'DROP TABLE TRADES' },
  { name: 'ALTER TABLE', text: 'ALTER TABLE Node ADD evil INT64' },
  { name: 'COPY … FROM a file', text: "COPY Node FROM '/etc/hostname'" },
  { name: 'COPY … TO a file', text: `COPY (MATCH (n:Node) RETURN n.name) TO '${outFile}'` },
  { name: 'COPY … TO the database file itself', text: `COPY (MATCH (n:Node) RETURN n.name) TO '${databasePath}'`, codes: ['read-only', 'query-failed'] },
  { name: 'PROFILE COPY … TO a file', text: `PROFILE COPY (MATCH (n:Node) RETURN n.name) TO '${outFile}'` },
  { name: 'EXPORT DATABASE', text: `EXPORT DATABASE '${exportDir}'` },
  // Issue 17: an invisible character before EXPORT DATABASE passed the first-word guard, and
  // Kùzu creates the export directory while planning the statement.
  ...['\u180E', '\u00A0', '\u2003', '\u200B', '\uFEFF', '\u2028', '\u3000', '\u180E/* x */\u180E'].map((lead) => ({
    name: `EXPORT DATABASE after U+${(lead.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}${lead.length > 1 ? ' and a comment' : ''}`,
    text: `${lead}EXPORT DATABASE '${exportDir}'`,
  })),
  { name: 'EXPLAIN EXPORT DATABASE after U+180E', text: `EXPLAIN \u180EEXPORT DATABASE '${exportDir}'` },
  { name: 'EXPORT DATABASE after a query and a semicolon', text: `MATCH (n) RETURN n; EXPORT DATABASE '${exportDir}'`, codes: ['read-only', 'syntax'] },
  { name: 'EXPORT DATABASE after a line comment ended by a carriage return', text: `// x\rEXPORT DATABASE '${exportDir}'\nMATCH (n) RETURN n` },
  { name: 'EXPORT DATABASE after a nested block comment', text: `/* /* */ MATCH (n) RETURN n */ EXPORT DATABASE '${exportDir}'` },
  { name: 'IMPORT DATABASE', text: `IMPORT DATABASE '${scratch}'`, codes: ['read-only', 'query-failed'] },
  { name: 'ATTACH', text: `ATTACH '${join(scratch, 'other.kuzu')}' AS other (dbtype kuzu)`, codes: ['read-only', 'query-failed'] },
  { name: 'INSTALL extension', text: 'INSTALL json' },
  { name: 'LOAD EXTENSION', text: 'LOAD EXTENSION json' },
  { name: 'LOAD FROM a server file', text: "LOAD FROM '/etc/hostname' (file_format = 'csv') RETURN *" },
  { name: 'CALL of a configuration setter', text: 'CALL threads = 1' },
  { name: 'CALL project_graph', text: "CALL project_graph('evil', ['Node'], ['TRADES'])" },
  { name: 'CALL create_fts_index', text: "CALL create_fts_index('Node', 'evil', ['name'])" },
  { name: 'BEGIN TRANSACTION', text: 'BEGIN TRANSACTION' },
  { name: 'CHECKPOINT', text: 'CHECKPOINT' },
  { name: 'CREATE MACRO', text: 'CREATE MACRO evil(x) AS x + 1' },
  { name: 'CREATE SEQUENCE', text: 'CREATE SEQUENCE evil' },
  { name: 'multi-statement', text: 'MATCH (n) RETURN n; MATCH (m) DETACH DELETE m', codes: ['read-only', 'syntax'] },
  { name: 'block comment then DETACH DELETE', text: '/* harmless */ MATCH (n) DETACH DELETE n' },
  { name: 'line comment then DETACH DELETE', text: '// just a comment\nMATCH (n) DETACH DELETE n' },
];

/** The fixture database, alone in its directory (see writeLadybugFixture for why it is another process). */
function createFixtureDatabase(): void {
  mkdirSync(databaseDir, { recursive: true });
  mkdirSync(scratch, { recursive: true });
  writeLadybugFixture(databasePath);
}

runConnectorContract('LadybugDB connector', {
  unavailable: null,
  writeAttempts,
  forbiddenPaths: [outFile, exportDir],
  async setup() {
    createFixtureDatabase();
    const connector = await openLadybugConnector({ path: databasePath, bufferPoolBytes: 128 * 1024 * 1024 });
    return {
      connector,
      selectNodes: 'MATCH (n:Node) RETURN n.id AS id, n.name AS name, n.region AS region ORDER BY n.id',
      nodesInRegion: 'MATCH (n:Node) WHERE n.region = $region RETURN n.name AS name ORDER BY n.id',
      manyRows: 'UNWIND range(1, 100000) AS x RETURN x',
      slowQuery: 'UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN sum(x * y)',
      syntaxError: { text: 'MATCH (n RETURN n', messageIncludes: 'Parser exception' },
      unknownNames: [
        { text: 'MATCH (n:Nod) RETURN n.name', messageIncludes: ['Nod', 'did you mean "Node"?'] },
        { text: 'MATCH (n:Node) RETURN n.nme', messageIncludes: ['nme', 'did you mean "name"?'] },
      ],
      fingerprint: async () => digestDirectory(databaseDir),
      dispose: () => connector.close(),
    };
  },
});

/** Runs statements against the database opened read-only in a separate process; returns each error. */
function errorsFromReadOnlyDatabase(statements: string[]): (string | null)[] {
  const script = `
    const lbug = require(${JSON.stringify(require.resolve('@ladybugdb/core'))});
    (async () => {
      const database = new lbug.Database(${JSON.stringify(databasePath)}, 64 * 1024 * 1024, true, true);
      const connection = new lbug.Connection(database);
      const errors = [];
      for (const statement of ${JSON.stringify(statements)}) {
        try { await connection.query(statement); errors.push(null); } catch (error) { errors.push(String(error.message)); }
      }
      process.stdout.write(JSON.stringify(errors));
      process.exit(0);
    })();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as (string | null)[];
}

describe('LadybugDB engine layers on their own', () => {
  it('the read-only database refuses writes without the statement guard and plan check', () => {
    const writes = [
      "CREATE (:Node {id: 98, name: 'x', region: 'y'})",
      "MATCH (n:Node) SET n.name = 'x'",
      'MATCH (n) DETACH DELETE n',
      'MERGE (n:Node {id: 98})',
      'CREATE NODE TABLE Evil(id INT64 PRIMARY KEY)',
      'DROP TABLE TRADES',
      "COPY Node FROM '/etc/hostname'",
    ];
    const before = digestDirectory(databaseDir);
    const errors = errorsFromReadOnlyDatabase(writes);
    expect(errors.map((error) => /read-only database/.test(error ?? ''))).toEqual(writes.map(() => true));
    expect(digestDirectory(databaseDir)).toBe(before);
  });

  it('returns JSON-safe cells for graph values', async () => {
    const connector = await openLadybugConnector({ path: databasePath, bufferPoolBytes: 64 * 1024 * 1024 });
    try {
      const result = await connector.query(
        'MATCH p = (a:Node {id: 1})-[r:TRADES {id: 1}]->(b) RETURN a, r, p, r.tradedOn AS day, [1, 2] AS list, CAST(170141183460469231731687303715884105727 AS INT128) AS huge',
        { maxRows: 10, timeoutMs: 5000 },
      );
      const [a, r, p, day, list, huge] = result.rows[0] ?? [];
      expect(JSON.parse(String(a))).toMatchObject({ label: 'Node', properties: { id: 1, name: 'Rotterdam', region: 'north' } });
      expect(JSON.parse(String(r))).toMatchObject({ type: 'TRADES', properties: { qty: 10, price: 12.5 } });
      expect(JSON.parse(String(p)).nodes).toHaveLength(2);
      expect([day, list, huge]).toEqual(['2024-01-02', '[1,2]', '170141183460469231731687303715884105727']);
    } finally {
      await connector.close();
    }
  });

  it('reports a missing database as not-found', async () => {
    await expect(openLadybugConnector({ path: join(scratch, 'missing.kuzu') })).rejects.toMatchObject({ code: 'not-found' });
  });
});

// Scratch files of this file's run; nothing in them is needed afterwards.
afterAll(() => rmSync(root, { recursive: true, force: true }));
