import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import mysql from 'mysql2/promise';
import neo4j from 'neo4j-driver';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';

import type { Connector } from '../../src-main/connectors/connector';
import { openMysqlConnector } from '../../src-main/connectors/mysql';
import { openNeo4jConnector } from '../../src-main/connectors/neo4j';
import { openPostgresConnector } from '../../src-main/connectors/postgres';
import { WorkbenchError } from '../../src-main/contract/errors';
import { digestRows } from '../integration/connectors/contract';
import { loadMysqlFixture, loadNeo4jFixture, loadPostgresFixture } from '../integration/connectors/fixture-loaders';
import { startMariadb, startNeo4j, startPostgres, whyMariadbUnavailable, whyNeo4jUnavailable, whyPostgresUnavailable, type TestServer } from '../servers';
import { mariadbAdmin } from '../servers/admin-sql';
import { describeOrNotRun } from '../servers/not-run';
import { generateAttempts, type DialectFamily } from './attack-generator';
import { entriesOf, reportTally, runAttempts } from './attack-runner';
import { expectPlantedWritesRefused, plantedNote } from './obedient-model';

/**
 * Generated write and escape attempts against every server engine, each logged in with every
 * right it can have (PostgreSQL superuser and MariaDB with ALL PRIVILEGES and FILE, both
 * allowed through `allow_privileged`; Neo4j without auth): each attempt must be refused, and a fingerprint of
 * data, schema, roles and server state taken through a separate admin session must not change.
 * Files the attempts aim at live in a world-writable folder that must stay empty.
 */
const scratch = mkdtempSync(join(tmpdir(), 'dwb-security-servers-'));
chmodSync(scratch, 0o777);
const servers: { postgres: TestServer | null; mariadb: TestServer | null; neo4j: TestServer | null } = { postgres: null, mariadb: null, neo4j: null };

beforeAll(async () => {
  const [postgres, mariadb, neo4jServer] = await Promise.all([
    whyPostgresUnavailable() === null ? startPostgres() : null,
    whyMariadbUnavailable() === null ? startMariadb() : null,
    whyNeo4jUnavailable() === null ? startNeo4j() : null,
  ]);
  Object.assign(servers, { postgres, mariadb, neo4j: neo4jServer });
  if (postgres !== null) {
    await loadPostgresFixture(postgres.uri);
    await postgresAdmin(['CREATE EXTENSION IF NOT EXISTS dblink']);
  }
  if (mariadb !== null) await loadMysqlFixture(mariadb.uri);
  if (neo4jServer !== null) await loadNeo4jFixture(neo4jServer.uri, neo4jServer.username, neo4jServer.password);
}, 240_000);

afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server?.stop()));
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

async function attack(
  engine: string,
  family: DialectFamily,
  connector: Connector,
  writes: Record<string, string>,
  fingerprint: () => Promise<string>,
  harmless: Record<string, string> = {},
): Promise<void> {
  const before = await fingerprint();
  let tally;
  try {
    tally = await runAttempts(engine, connector, generateAttempts(family, writes));
  } finally {
    await connector.close();
  }
  const unchanged = (await fingerprint()) === before;
  const created = entriesOf(scratch);
  reportTally(tally, `${unchanged ? 'data unchanged' : 'DATA CHANGED'}, ${created.length} files created${created.length > 0 ? ` (${created.join(', ')})` : ''}`, harmless);
  expect(unchanged).toBe(true);
  expect(created).toEqual([]);
}

async function postgresAdmin(statements: string[]): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: servers.postgres?.adminUri ?? '' });
  await client.connect();
  try {
    const results: unknown[] = [];
    for (const sql of statements) results.push((await client.query({ text: sql, rowMode: 'array' })).rows);
    return results;
  } finally {
    await client.end();
  }
}

/** Data, tables, roles, replication slots and the read-only setting, read by the superuser. */
async function postgresFingerprint(): Promise<string> {
  const [state] = await postgresAdmin([`
    SELECT json_build_object(
      'nodes', (SELECT json_agg(n ORDER BY id) FROM nodes n),
      'trades', (SELECT json_agg(t ORDER BY id) FROM trades t),
      'tables', (SELECT json_agg(table_name ORDER BY table_name) FROM information_schema.tables WHERE table_schema = 'public'),
      'roles', (SELECT json_agg(rolname ORDER BY rolname) FROM pg_roles),
      'slots', (SELECT count(*) FROM pg_replication_slots),
      'settings', (SELECT json_agg(setting) FROM pg_settings WHERE name = 'default_transaction_read_only'))`]);
  return digestRows(state);
}

describeOrNotRun('security: PostgreSQL (superuser login, allowed explicitly)', whyPostgresUnavailable(), () => {
  it('refuses every generated write and escape; data, roles, slots and sessions unchanged', async () => {
    const admin = new URL(servers.postgres?.adminUri ?? '');
    const url = new URL(admin);
    url.searchParams.set('allow_privileged', '1');
    const dblink = `host=127.0.0.1 port=${admin.port} dbname=${admin.pathname.slice(1)} user=${admin.username} password=${decodeURIComponent(admin.password)}`;
    const connector = await openPostgresConnector({ url: url.toString() });
    await attack('postgres', 'postgres', connector, {
      INSERT: "INSERT INTO nodes VALUES (99, 'Evil', 'x')",
      UPDATE: "UPDATE nodes SET name = 'Evil'",
      DELETE: 'DELETE FROM trades',
      'DROP TABLE': 'DROP TABLE trades',
      'COPY TO a file': `COPY nodes TO '${join(scratch, 'out.csv')}'`,
      'COPY TO PROGRAM': `COPY (SELECT 1) TO PROGRAM 'touch ${join(scratch, 'ran')}'`,
      'dblink_exec through U& escapes': `SELECT U&"dblink\\005fexec"('${dblink}', 'DELETE FROM trades')`,
      'query_to_xml hiding dblink': `SELECT query_to_xml('SELECT dblink_exec(''${dblink}'', ''DELETE FROM trades'')', true, true, '')`,
      'ts_rewrite hiding dblink': `SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery FROM dblink_exec(''${dblink}'', ''DELETE FROM trades'') AS d')`,
      'pg_terminate_backend': 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()',
      'replication slot': "SELECT pg_create_physical_replication_slot('evil')",
      'pg_stat_reset': 'SELECT pg_stat_reset()',
      'set_config read-write': "SELECT set_config('default_transaction_read_only', 'off', false)",
      'lo_export to a file': `SELECT lo_export(1, '${join(scratch, 'lo.bin')}')`,
    }, postgresFingerprint, {
      EXPLAIN: "PostgreSQL's plain EXPLAIN plans a data change without running it",
      'EXPLAIN after a comment': "PostgreSQL's plain EXPLAIN plans a data change without running it",
    });
  }, 300_000);

  it('a model obeying instructions planted in a table runs each write the notes give; every one is refused and nothing changes', async () => {
    const admin = new URL(servers.postgres?.adminUri ?? '');
    const url = new URL(admin);
    url.searchParams.set('allow_privileged', '1');
    const dblink = `host=127.0.0.1 port=${admin.port} dbname=${admin.pathname.slice(1)} user=${admin.username} password=${decodeURIComponent(admin.password)}`;
    const planted = [
      `SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery FROM dblink_exec(''${dblink}'', ''DELETE FROM trades'') AS d')`,
      `SELECT query_to_xml('SELECT dblink_exec(''${dblink}'', ''DELETE FROM trades'')', true, true, '')`,
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()',
      'DELETE FROM trades',
    ];
    await postgresAdmin(['CREATE TABLE notes (id integer PRIMARY KEY, note text)']);
    const client = new pg.Client({ connectionString: servers.postgres?.adminUri ?? '' });
    await client.connect();
    try {
      for (const [index, statement] of planted.entries()) await client.query('INSERT INTO notes VALUES ($1, $2)', [index, plantedNote(statement)]);
    } finally {
      await client.end();
    }
    await expectPlantedWritesRefused({ engine: 'postgres', open: () => openPostgresConnector({ url: url.toString() }), planted, fingerprint: postgresFingerprint });
  }, 120_000);
});

/**
 * Logins with rights beyond reading, each made on the server and opened without
 * allow_privileged: every one must be refused at connect (read-only), and the suite's ordinary
 * login (PostgreSQL: the database owner; MariaDB: SELECT and SHOW VIEW only) accepted. Prints `security logins ENGINE: N privileged logins, N refused`.
 */
async function expectPrivilegedLoginsRefused(engine: string, logins: { name: string; url: string }[], open: (url: string) => Promise<{ close(): Promise<void> }>, readOnlyUrl: string): Promise<void> {
  const accepted: string[] = [];
  const codes: Record<string, number> = {};
  for (const login of logins) {
    try {
      const connector = await open(login.url);
      await connector.close();
      accepted.push(login.name);
    } catch (error) {
      const code = error instanceof WorkbenchError ? error.code : `not a WorkbenchError: ${String(error)}`;
      codes[code] = (codes[code] ?? 0) + 1;
    }
  }
  const reader = await open(readOnlyUrl);
  await reader.close();
  console.log(`security logins ${engine}: ${logins.length} privileged logins, ${logins.length - accepted.length} refused at connect (${Object.entries(codes).map(([code, count]) => `${code} ${count}`).join(', ')}), the suite's ordinary login accepted`);
  expect(logins.length).toBeGreaterThanOrEqual(8);
  expect(accepted).toEqual([]);
  expect(codes).toEqual({ 'read-only': logins.length });
}

describeOrNotRun('security: PostgreSQL logins one SET ROLE away from a privileged role', whyPostgresUnavailable(), () => {
  it('refuses each at connect, whatever INHERIT says and however deep the grant', async () => {
    const shapes: [string, string[]][] = [
      ['superuser', ['CREATE ROLE sec_su LOGIN SUPERUSER']],
      ['NOINHERIT member of a superuser role', ['CREATE ROLE sec_admins NOLOGIN SUPERUSER', 'CREATE ROLE sec_noinherit LOGIN NOINHERIT', 'GRANT sec_admins TO sec_noinherit']],
      ['member of a superuser role through three roles', ['CREATE ROLE sec_a NOLOGIN NOINHERIT', 'CREATE ROLE sec_b NOLOGIN NOINHERIT', 'CREATE ROLE sec_c NOLOGIN NOINHERIT', 'GRANT sec_admins TO sec_a', 'GRANT sec_a TO sec_b', 'GRANT sec_b TO sec_c', 'CREATE ROLE sec_deep LOGIN NOINHERIT', 'GRANT sec_c TO sec_deep']],
      ['NOINHERIT member of pg_execute_server_program', ['CREATE ROLE sec_program LOGIN NOINHERIT', 'GRANT pg_execute_server_program TO sec_program']],
      ['member of pg_write_server_files through a role', ['CREATE ROLE sec_files NOLOGIN', 'GRANT pg_write_server_files TO sec_files', 'CREATE ROLE sec_files_member LOGIN', 'GRANT sec_files TO sec_files_member']],
      ['member of a BYPASSRLS role', ['CREATE ROLE sec_rls NOLOGIN BYPASSRLS', 'CREATE ROLE sec_rls_member LOGIN NOINHERIT', 'GRANT sec_rls TO sec_rls_member']],
      ['member of a REPLICATION role', ['CREATE ROLE sec_repl NOLOGIN REPLICATION', 'CREATE ROLE sec_repl_member LOGIN', 'GRANT sec_repl TO sec_repl_member']],
      ['CREATEROLE', ['CREATE ROLE sec_createrole LOGIN CREATEROLE']],
      ['granted EXECUTE on lo_export', ['CREATE ROLE sec_lo LOGIN', 'GRANT EXECUTE ON FUNCTION lo_export(oid, text) TO sec_lo']],
      ['granted EXECUTE on pg_read_file', ['CREATE ROLE sec_read LOGIN', 'GRANT EXECUTE ON FUNCTION pg_read_file(text) TO sec_read']],
    ];
    const logins: { name: string; url: string }[] = [];
    for (const [name, statements] of shapes) {
      await postgresAdmin(statements);
      const role = [...statements.join(' ').matchAll(/CREATE ROLE (\w+) LOGIN/g)].at(-1)?.[1] ?? '';
      await postgresAdmin([`ALTER ROLE ${role} PASSWORD 'pw'`]);
      const url = new URL(servers.postgres?.uri ?? '');
      url.username = role;
      url.password = 'pw';
      logins.push({ name, url: url.toString() });
    }
    await expectPrivilegedLoginsRefused('postgres', logins, (url) => openPostgresConnector({ url }), servers.postgres?.uri ?? '');
  }, 120_000);
});

describeOrNotRun('security: MySQL/MariaDB logins with rights beyond reading', whyMariadbUnavailable(), () => {
  it('refuses each at connect, directly granted or through a role', async () => {
    const shapes: [string, string[]][] = [
      ['ALL PRIVILEGES', ['GRANT ALL PRIVILEGES ON *.* TO %']],
      ['FILE', ['GRANT SELECT, FILE ON *.* TO %']],
      ['SUPER', ['GRANT SELECT, SUPER ON *.* TO %']],
      ['PROCESS', ['GRANT SELECT, PROCESS ON *.* TO %']],
      ['INSERT on the database', ['GRANT SELECT, INSERT ON wbtest.* TO %']],
      ['DELETE on one table', ['GRANT SELECT ON wbtest.* TO %', 'GRANT DELETE ON wbtest.trades TO %']],
      ['UPDATE of one column', ['GRANT SELECT ON wbtest.* TO %', 'GRANT UPDATE (name) ON wbtest.nodes TO %']],
      ['CREATE ROUTINE and TRIGGER', ['GRANT SELECT, CREATE ROUTINE, TRIGGER ON wbtest.* TO %']],
      ['SELECT WITH GRANT OPTION', ['GRANT SELECT ON wbtest.* TO % WITH GRANT OPTION']],
      ['a writing role, not enabled', ['CREATE ROLE IF NOT EXISTS sec_writer', 'GRANT INSERT ON wbtest.* TO sec_writer', 'GRANT SELECT ON wbtest.* TO %', 'GRANT sec_writer TO %']],
      ['a default role holding a FILE role', ['CREATE ROLE IF NOT EXISTS sec_file_role', 'GRANT FILE ON *.* TO sec_file_role', 'CREATE ROLE IF NOT EXISTS sec_team', 'GRANT sec_file_role TO sec_team', 'GRANT SELECT ON wbtest.* TO %', 'GRANT sec_team TO %', 'SET DEFAULT ROLE sec_team FOR %']],
    ];
    const logins: { name: string; url: string }[] = [];
    for (const [index, [name, grants]] of shapes.entries()) {
      const user = `sec_login_${index}`;
      const account = `'${user}'@'127.0.0.1'`;
      await mariadbAdmin(servers.mariadb?.uri ?? '', [`CREATE USER ${account} IDENTIFIED BY 'pw'`, ...grants.map((grant) => grant.replace('%', account))]);
      const url = new URL(servers.mariadb?.uri ?? '');
      url.username = user;
      url.password = 'pw';
      logins.push({ name, url: url.toString() });
    }
    await expectPrivilegedLoginsRefused('mysql (MariaDB)', logins, (url) => openMysqlConnector({ url }), servers.mariadb?.uri ?? '');
  }, 120_000);
});

/** Tables, rows, users and a global setting, read through a separate connection. */
async function mysqlFingerprint(): Promise<string> {
  const admin = await mysql.createConnection({ uri: servers.mariadb?.adminUri ?? '', dateStrings: true });
  try {
    const snapshot: unknown[] = [];
    for (const sql of ['SHOW TABLES', 'SELECT * FROM nodes ORDER BY id', 'SELECT * FROM trades ORDER BY id', 'SELECT user, host FROM mysql.user ORDER BY 1, 2', 'SELECT @@GLOBAL.max_connections']) {
      const [rows] = await admin.query({ sql, rowsAsArray: true });
      snapshot.push(rows);
    }
    return digestRows(snapshot);
  } finally {
    await admin.end();
  }
}

/** The ALL PRIVILEGES login (FILE, GRANT OPTION), allowed explicitly: the worst case. */
function privilegedMariadbUrl(): string {
  const url = new URL(servers.mariadb?.adminUri ?? '');
  url.searchParams.set('allow_privileged', '1');
  return url.toString();
}

describeOrNotRun('security: MySQL/MariaDB (ALL PRIVILEGES, FILE, allowed explicitly)', whyMariadbUnavailable(), () => {
  it('refuses every generated write and escape; data, users and settings unchanged', async () => {
    const uri = privilegedMariadbUrl();
    const connector = await openMysqlConnector({ url: uri });
    await attack('mysql (MariaDB)', 'mysql', connector, {
      INSERT: "INSERT INTO nodes VALUES (99, 'Evil', 'x')",
      UPDATE: "UPDATE nodes SET name = 'Evil'",
      DELETE: 'DELETE FROM trades',
      'DROP TABLE': 'DROP TABLE trades',
      'CREATE TABLE': 'CREATE TABLE evil (id int)',
      'INTO OUTFILE': `SELECT * FROM nodes INTO OUTFILE '${join(scratch, 'out.csv')}'`,
      'INTO DUMPFILE': `SELECT 'x' INTO DUMPFILE '${join(scratch, 'dump.bin')}'`,
      'LOAD DATA': "LOAD DATA INFILE '/etc/hostname' INTO TABLE nodes",
      'SET GLOBAL': 'SET GLOBAL max_connections = 7',
      'CREATE USER': "CREATE USER 'evil'@'%' IDENTIFIED BY 'x'",
      'GRANT': "GRANT ALL ON *.* TO 'wb'@'%'",
      'REPLACE': "REPLACE INTO nodes VALUES (1, 'Evil', 'x')",
    }, mysqlFingerprint, { '-- CR comment with a SELECT after a newline': 'MariaDB ends -- comments at a newline, so the write is comment text' });
  }, 300_000);

  it('a model obeying instructions planted in a table runs each write the notes give; every one is refused and nothing changes', async () => {
    const uri = privilegedMariadbUrl();
    const planted = [`SELECT * FROM nodes INTO OUTFILE '${join(scratch, 'planted.csv')}'`, 'SET GLOBAL max_connections = 7', '/* tidy up */ DELETE FROM trades'];
    const admin = await mysql.createConnection({ uri: servers.mariadb?.adminUri ?? '' });
    try {
      await admin.query('CREATE TABLE notes (id int PRIMARY KEY, note text)');
      for (const [index, statement] of planted.entries()) await admin.query('INSERT INTO notes VALUES (?, ?)', [index, plantedNote(statement)]);
    } finally {
      await admin.end();
    }
    await expectPlantedWritesRefused({ engine: 'mysql (MariaDB)', open: () => openMysqlConnector({ url: uri }), planted, fingerprint: mysqlFingerprint });
    expect(entriesOf(scratch)).toEqual([]);
  }, 120_000);
});

/** Every node and relationship with its properties, and the indexes and constraints, read in a separate session. */
async function neo4jFingerprint(): Promise<string> {
  const server = servers.neo4j;
  if (server === null) throw new Error('Neo4j not started');
  const driver = neo4j.driver(server.uri, neo4j.auth.basic(server.username, server.password));
  const session = driver.session({ defaultAccessMode: neo4j.session.READ });
  try {
    const snapshot: unknown[] = [];
    for (const cypher of [
      'MATCH (n) RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props ORDER BY id',
      'MATCH ()-[r]->() RETURN elementId(r) AS id, type(r) AS type, properties(r) AS props ORDER BY id',
      'SHOW INDEXES YIELD name RETURN name ORDER BY name',
      'SHOW CONSTRAINTS YIELD name RETURN name ORDER BY name',
      // Token stores: db.createLabel/createRelationshipType/createProperty add names without any node.
      'CALL db.labels() YIELD label RETURN label ORDER BY label',
      'CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType ORDER BY relationshipType',
      'CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey ORDER BY propertyKey',
      // Settings dbms.setConfigValue could change.
      "CALL dbms.listConfig('db.logs.query') YIELD name, value RETURN name, value ORDER BY name",
    ]) {
      snapshot.push((await session.run(cypher)).records.map((record) => record.toObject()));
    }
    // Databases and users live in the system database (USE system … , CREATE DATABASE, CREATE USER).
    const system = driver.session({ database: 'system', defaultAccessMode: neo4j.session.READ });
    try {
      for (const cypher of ['SHOW DATABASES YIELD name RETURN name ORDER BY name', 'SHOW USERS YIELD user RETURN user ORDER BY user']) {
        snapshot.push((await system.run(cypher)).records.map((record) => record.toObject()));
      }
    } finally {
      await system.close();
    }
    return digestRows(snapshot);
  } finally {
    await session.close();
    await driver.close();
  }
}

describeOrNotRun('security: Neo4j', whyNeo4jUnavailable(), () => {
  it('refuses every generated write and escape; graph, indexes and constraints unchanged', async () => {
    const server = servers.neo4j;
    if (server === null) throw new Error('Neo4j not started');
    const connector = await openNeo4jConnector({ url: server.uri, username: server.username, password: server.password });
    await attack('neo4j', 'cypher', connector, {
      CREATE: "CREATE (:Node {id: 99, name: 'Evil', region: 'x'})",
      SET: "MATCH (n:Node) SET n.name = 'Evil'",
      'DETACH DELETE': 'MATCH (n) DETACH DELETE n',
      MERGE: 'MERGE (n:Node {id: 98})',
      REMOVE: 'MATCH (n:Node) REMOVE n.name',
      'CREATE INDEX': 'CREATE INDEX evil FOR (n:Node) ON (n.region)',
      'CREATE CONSTRAINT': 'CREATE CONSTRAINT evil FOR (n:Node) REQUIRE n.id IS UNIQUE',
      FOREACH: 'FOREACH (x IN [1] | CREATE (:Evil))',
      'CALL subquery': 'CALL { CREATE (:Evil) }',
      'LOAD CSV': "LOAD CSV FROM 'file:///etc/hostname' AS line CREATE (:Evil {line: line})",
      'db.createLabel': "CALL db.createLabel('Evil')",
      'CREATE relationship': 'MATCH (a:Node {id: 1}), (b:Node {id: 2}) CREATE (a)-[:TRADES {id: 99}]->(b)',
      'SET label': 'MATCH (n:Node) SET n:Evil',
      // Issue 26, item 8: Cypher's own ways to write or reach outside the query.
      'SET +=': "MATCH (n:Node) SET n += {name: 'Evil'}",
      'DELETE relationship': 'MATCH ()-[r]->() DELETE r',
      'MERGE … ON MATCH SET': "MERGE (n:Node {id: 1}) ON MATCH SET n.name = 'Evil'",
      'UNWIND … CREATE': 'UNWIND range(1, 3) AS i CREATE (:Evil {i: i})',
      'CALL { … } IN TRANSACTIONS': "MATCH (n:Node) CALL { WITH n SET n.name = 'Evil' } IN TRANSACTIONS OF 1 ROW",
      'scoped CALL () { … }': 'CALL () { CREATE (:Evil) }',
      'CALL subquery after a read': "MATCH (n:Node) WITH n LIMIT 1 CALL { WITH n DETACH DELETE n } RETURN 1",
      'USE the same database': 'USE neo4j CREATE (:Evil)',
      'USE system: CREATE USER': "USE system CREATE USER evil SET PASSWORD 'evil-password-1' CHANGE NOT REQUIRED",
      'CREATE DATABASE': 'CREATE DATABASE evil',
      'DROP INDEX': 'DROP INDEX evil IF EXISTS',
      'LOAD CSV from a URL': "LOAD CSV FROM 'http://127.0.0.1:9/evil.csv' AS line RETURN line",
      'LOAD CSV WITH HEADERS … MERGE': "LOAD CSV WITH HEADERS FROM 'file:///etc/hostname' AS row MERGE (:Evil {v: row})",
      'db.createRelationshipType': "CALL db.createRelationshipType('EVIL')",
      'db.createProperty': "CALL db.createProperty('evil')",
      'db.createLabel with backticked names': "CALL `db`.`createLabel`('Evil')",
      'db.clearQueryCaches': 'CALL db.clearQueryCaches()',
      'dbms.setConfigValue': "CALL dbms.setConfigValue('db.logs.query.enabled', 'OFF')",
      'dbms.killTransaction-like TERMINATE': "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
      'apoc.create.node (if installed)': "CALL apoc.create.node(['Evil'], {})",
      'apoc.cypher.doIt (if installed)': "CALL apoc.cypher.doIt('CREATE (:Evil)', {}) YIELD value RETURN value",
      'tx.setMetaData': "CALL tx.setMetaData({evil: true})",
    }, neo4jFingerprint);
  }, 300_000);

  it('a model obeying instructions planted in the graph runs each write the notes give; every one is refused and nothing changes', async () => {
    const server = servers.neo4j;
    if (server === null) throw new Error('Neo4j not started');
    const planted = [
      'MATCH (n:Node) DETACH DELETE n',
      "LOAD CSV FROM 'file:///etc/hostname' AS line CREATE (:Evil {line: line})",
      "CALL db.createLabel('Evil')",
      'MATCH (n:Node) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS',
      'USE neo4j MATCH (n:Node) DETACH DELETE n',
      "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
      "CYPHER 5 MATCH (n:Node) SET n.name = 'Evil'",
      // Administration commands (USE system CREATE USER …) and Enterprise procedures (dbms.setConfigValue)
      // are in the generated attempts above: this Community server refuses them itself (syntax, unknown procedure).
    ];
    const driver = neo4j.driver(server.uri, neo4j.auth.basic(server.username, server.password));
    try {
      await driver.executeQuery('UNWIND $notes AS note CREATE (:Note {id: note.id, note: note.text})', { notes: planted.map((statement, index) => ({ id: index, text: plantedNote(statement) })) });
    } finally {
      await driver.close();
    }
    await expectPlantedWritesRefused({
      engine: 'neo4j',
      open: () => openNeo4jConnector({ url: server.uri, username: server.username, password: server.password }),
      planted,
      readNotes: 'MATCH (n:Note) RETURN n.note AS note ORDER BY n.id',
      fingerprint: neo4jFingerprint,
    });
  }, 120_000);
});
