import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg, { type Client } from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { openPostgresConnector } from '../../../src-main/connectors/postgres';
import { testConnection } from '../../../src-main/connectors/test-connection';
import { WorkbenchError } from '../../../src-main/contract/errors';
import { toWorkbenchError } from '../../../src-main/connectors/postgres/errors';
import { connectReadOnly, readOnlyClientConfig, runInReadOnlyTransaction } from '../../../src-main/connectors/postgres/read-only-session';
import { startPostgres, whyPostgresUnavailable, type TestServer } from '../../servers';
import { describeOrNotRun } from '../../servers/not-run';
import { digestRows, runConnectorContract, type WriteAttempt } from './contract';
import { relationalFixtureSql } from './fixture-data';

// Files the attempts aim at live in a world-writable scratch directory, so that a COPY … TO the
// server (running as "postgres") would really succeed if nothing refused it.
const scratch = mkdtempSync(join(tmpdir(), 'dwb-contract-pg-'));
chmodSync(scratch, 0o777);
const outFile = join(scratch, 'out.csv');
const programFile = join(scratch, 'program-ran');

const writeAttempts: WriteAttempt[] = [
  { name: 'INSERT', text: "INSERT INTO nodes VALUES (99, 'Evil', 'x')" },
  { name: 'UPDATE', text: "UPDATE nodes SET name = 'Evil'" },
  { name: 'DELETE', text: 'DELETE FROM trades' },
  { name: 'DROP TABLE', text: 'DROP TABLE trades' },
  { name: 'CREATE TABLE', text: 'CREATE TABLE evil (id int)' },
  { name: 'CREATE TEMP TABLE', text: 'CREATE TEMP TABLE evil (id int)' },
  { name: 'ALTER TABLE', text: 'ALTER TABLE nodes ADD COLUMN evil int' },
  { name: 'TRUNCATE', text: 'TRUNCATE trades' },
  { name: 'MERGE', text: "MERGE INTO nodes n USING (SELECT 1 AS id) s ON n.id = s.id WHEN MATCHED THEN UPDATE SET name = 'Evil'" },
  { name: 'CREATE INDEX', text: 'CREATE INDEX evil_idx ON nodes (name)' },
  { name: 'CREATE ROLE', text: 'CREATE ROLE evil' },
  { name: 'GRANT', text: 'GRANT ALL ON nodes TO PUBLIC' },
  { name: 'COPY … TO file', text: `COPY nodes TO '${outFile}'` },
  { name: 'COPY … TO PROGRAM', text: `COPY (SELECT 1) TO PROGRAM 'touch ${programFile}'` },
  // Found by the security suite: PostgreSQL ends a -- comment at a carriage return, the guard's
  // lexer read on to the newline and saw only the SELECT after it.
  { name: 'COPY … TO file after a -- comment ended by a carriage return', text: `-- a\rCOPY nodes TO '${outFile}' /* \nSELECT 1 -- */` },
  { name: 'COPY … FROM file', text: "COPY nodes FROM '/etc/hostname'" },
  { name: 'multi-statement', text: 'SELECT 1; DROP TABLE trades' },
  { name: 'multi-statement after a string', text: "SELECT ';'; DELETE FROM trades" },
  { name: 'block comment then DROP', text: '/* harmless */ DROP TABLE trades' },
  { name: 'line comment then DELETE', text: '-- just a comment\nDELETE FROM trades' },
  { name: 'CTE-wrapped DELETE', text: 'WITH gone AS (DELETE FROM trades RETURNING *) SELECT count(*) FROM gone' },
  { name: 'CTE-wrapped INSERT', text: "WITH added AS (INSERT INTO nodes VALUES (99, 'Evil', 'x') RETURNING *) SELECT * FROM added" },
  { name: 'EXPLAIN ANALYZE DELETE', text: 'EXPLAIN ANALYZE DELETE FROM trades' },
  { name: 'SELECT nextval()', text: "SELECT nextval('trade_seq')" },
  { name: 'SELECT setval()', text: "SELECT setval('trade_seq', 100)" },
  { name: 'SELECT … FOR UPDATE', text: 'SELECT * FROM nodes FOR UPDATE' },
  { name: 'SELECT … INTO a new table', text: 'SELECT * INTO evil FROM nodes' },
  { name: 'SELECT of a function that deletes', text: 'SELECT wipe_trades()' },
  { name: 'CALL of a procedure that deletes', text: 'CALL wipe_trades_proc()' },
  { name: 'DO block', text: 'DO $$ BEGIN DELETE FROM trades; END $$' },
  { name: 'PREPARE of a DELETE', text: 'PREPARE evil AS DELETE FROM trades' },
  { name: 'LOCK TABLE', text: 'LOCK TABLE nodes IN ACCESS EXCLUSIVE MODE' },
  { name: 'SET session read-write, then INSERT', before: 'SET default_transaction_read_only = off', text: "INSERT INTO nodes VALUES (99, 'Evil', 'x')" },
  { name: 'SET TRANSACTION READ WRITE, then INSERT', before: 'SET TRANSACTION READ WRITE', text: "INSERT INTO nodes VALUES (99, 'Evil', 'x')" },
  { name: 'set_config() read-write', text: "SELECT set_config('default_transaction_read_only', 'off', false)" },
  { name: 'lo_import() of a server file', text: "SELECT lo_import('/etc/hostname')" },
  { name: 'lo_export() to a server file', text: `SELECT lo_export(1, '${outFile}')` },
  // Issue 26, item 5: these ran inside the read-only transaction, undone only by the rollback.
  { name: 'lo_from_bytea()', text: "SELECT lo_from_bytea(0, 'evil')" },
  { name: 'lo_create()', text: 'SELECT lo_create(0)' },
  { name: 'lo_creat()', text: 'SELECT lo_creat(-1)' },
  { name: 'lo_create() quoted and schema-qualified', text: 'SELECT pg_catalog."lo_create"(0)' },
  { name: 'lo_put() into a new object', text: "SELECT lo_put(lo_create(0), 0, 'evil')" },
  { name: 'lo_unlink()', text: 'SELECT lo_unlink(1)' },
  { name: 'pg_terminate_backend()', text: 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity' },
  { name: 'ANALYZE', text: 'ANALYZE nodes' },
  { name: 'REFRESH/VACUUM-like maintenance (REINDEX)', text: 'REINDEX TABLE nodes' },
  { name: 'LOAD of a library', text: "LOAD 'auto_explain'" },
];

const unavailable = whyPostgresUnavailable();
let server: TestServer | null = null;
let admin: Client | null = null;

async function fingerprint(): Promise<string> {
  if (admin === null) throw new Error('no admin connection');
  try {
    const { rows } = await admin.query(`
      SELECT json_build_object(
        'tables', (SELECT json_agg(table_name ORDER BY table_name) FROM information_schema.tables WHERE table_schema = 'public'),
        'columns', (SELECT json_agg(table_name || '.' || column_name ORDER BY table_name, ordinal_position) FROM information_schema.columns WHERE table_schema = 'public'),
        'indexes', (SELECT json_agg(indexname ORDER BY indexname) FROM pg_indexes WHERE schemaname = 'public'),
        'nodes', (SELECT json_agg(n ORDER BY id) FROM nodes n),
        'trades', (SELECT json_agg(t ORDER BY id) FROM trades t),
        'sequence', (SELECT last_value || ':' || is_called FROM trade_seq),
        'roles', (SELECT json_agg(rolname ORDER BY rolname) FROM pg_roles),
        'largeObjects', (SELECT count(*) FROM pg_largeobject_metadata),
        'grants', (SELECT json_agg(relacl::text) FROM pg_class WHERE relname IN ('nodes', 'trades'))) AS snapshot`);
    return digestRows(rows);
  } catch (error) {
    return `fingerprint failed: ${String(error)}`;
  }
}

// One server for the whole file: the contract suite and the engine-layer tests below share it.
beforeAll(async () => {
  if (unavailable !== null) return;
  server = await startPostgres();
  if (server === null) throw new Error('PostgreSQL vanished between the check and the start');
  console.log(`[servers] PostgreSQL started in ${server.startupMs} ms`);
  admin = new pg.Client({ connectionString: server.uri });
  await admin.connect();
  // dblink is how the attack of issue 17 committed a DELETE from inside a read-only transaction.
  await runAsSuperuser(['CREATE EXTENSION IF NOT EXISTS dblink']);
  for (const sql of relationalFixtureSql({ decimal: 'NUMERIC(10,2)', date: 'DATE', text: 'VARCHAR(40)' })) await admin.query(sql);
  await admin.query('CREATE SEQUENCE trade_seq');
  await admin.query('CREATE FUNCTION wipe_trades() RETURNS bigint LANGUAGE sql AS $$ WITH gone AS (DELETE FROM trades RETURNING 1) SELECT count(*) FROM gone $$');
  await admin.query('CREATE PROCEDURE wipe_trades_proc() LANGUAGE sql AS $$ DELETE FROM trades $$');
}, 180_000);

afterAll(async () => {
  await admin?.end();
  await server?.stop();
}, 60_000);

/** Runs statements as the cluster's superuser in the test database; returns the last one's rows. */
async function runAsSuperuser(statements: string[]): Promise<unknown[][]> {
  const client = new pg.Client({ connectionString: server?.adminUri ?? '' });
  await client.connect();
  try {
    let rows: unknown[][] = [];
    for (const sql of statements) rows = (await client.query({ text: sql, rowMode: 'array' })).rows as unknown[][];
    return rows;
  } finally {
    await client.end();
  }
}

/** The superuser URL with `allow_privileged=1`: the worst case the read-only layers must survive. */
function privilegedUrl(): string {
  const url = new URL(server?.adminUri ?? '');
  url.searchParams.set('allow_privileged', '1');
  return url.toString();
}

runConnectorContract('PostgreSQL connector (superuser login, allowed explicitly)', {
  unavailable,
  writeAttempts,
  forbiddenPaths: [outFile, programFile],
  async setup() {
    if (server === null) throw new Error('PostgreSQL server not started');
    const connector = await openPostgresConnector({ url: privilegedUrl() });
    return {
      connector,
      selectNodes: 'SELECT id, name, region FROM nodes ORDER BY id',
      nodesInRegion: 'SELECT name FROM nodes WHERE region = $region ORDER BY id',
      manyRows: 'SELECT g FROM generate_series(1, 100000) AS g',
      slowQuery: 'SELECT pg_sleep(60)',
      syntaxError: { text: 'SELEC id FROM nodes', messageIncludes: 'syntax error at or near "SELEC"' },
      unknownNames: [
        { text: 'SELECT * FROM trade', messageIncludes: ['trade', 'did you mean "trades"?'] },
        { text: 'SELECT nme FROM nodes', messageIncludes: ['nme', 'did you mean "name"?'] },
      ],
      fingerprint,
      dispose: () => connector.close(),
    };
  },
});

describeOrNotRun('PostgreSQL engine layers on their own', unavailable, () => {
  let client: Client;

  beforeAll(async () => {
    if (server === null) throw new Error('server not started');
    // The superuser: the read-only transaction must hold with every right.
    client = await connectReadOnly(readOnlyClientConfig(server.adminUri ?? '', 5000), () => undefined);
  }, 60_000);

  afterAll(async () => {
    await client?.end();
  });

  const engineOnly = ['INSERT INTO nodes VALUES (98, $$x$$, $$y$$)', 'DELETE FROM trades', 'DROP TABLE trades', 'CREATE TABLE evil (id int)', 'TRUNCATE trades', "SELECT nextval('trade_seq')", 'SELECT wipe_trades()', "COPY nodes FROM '/etc/hostname'", 'CREATE INDEX evil ON nodes (name)'];

  it.each(engineOnly)('read-only transaction refuses %s without the statement guard', async (sql) => {
    const error = await runInReadOnlyTransaction(client, { text: sql, values: [], rowLimit: 10, timeoutMs: 5000 }).then(() => null, toWorkbenchError);
    expect(error?.code).toBe('read-only');
    expect(error?.message).toMatch(/read-only transaction/);
  });

  it('the extended protocol refuses two statements in one query', async () => {
    const error = await runInReadOnlyTransaction(client, { text: 'SELECT 1; DELETE FROM trades', values: [], rowLimit: 10, timeoutMs: 5000 }).then(() => null, toWorkbenchError);
    expect(error?.message).toMatch(/cannot insert multiple commands into a prepared statement/);
  });

  it('the session is read-only even outside an explicit transaction', async () => {
    const error = await client.query('DELETE FROM trades').then(() => null, toWorkbenchError);
    expect(error?.code).toBe('read-only');
  });

  it('names a table in another schema by its schema, and says the schema apart for the browser to group by', async () => {
    // As the fixture's owner, whom the connector logs in as, so the new table is its to read.
    const owner = admin;
    if (owner === null) throw new Error('server not started');
    await owner.query('CREATE SCHEMA archive');
    await owner.query('CREATE TABLE archive.old_trades (id int PRIMARY KEY)');
    const connector = await openPostgresConnector({ url: server?.uri ?? '' });
    try {
      const schema = await connector.schema();
      if (schema.kind !== 'relational') throw new Error('expected a relational schema');
      const archived = schema.tables.find((table) => table.name === 'archive.old_trades');
      expect(archived?.namespace).toBe('archive');
      expect(archived?.rowCount).toBe(0);
      const nodes = schema.tables.find((table) => table.name === 'nodes');
      expect(nodes).toBeDefined();
      expect(nodes && 'namespace' in nodes).toBe(false);
    } finally {
      await connector.close();
      await owner.query('DROP SCHEMA archive CASCADE');
    }
  });

  it('returns JSON-safe cells for awkward types', async () => {
    const connector = await openPostgresConnector({ url: server?.uri ?? '' });
    try {
      const result = await connector.query(
        "SELECT 9007199254740993::int8 AS big, 42::int8 AS small, 123456789012345678.5::numeric AS exact, 1.50::numeric AS price, " +
          "'2024-01-02 03:04:05.123456+02'::timestamptz AS at, '2024-01-02'::date AS day, '\\x0102'::bytea AS bytes, " +
          "'{\"a\": [1, 2]}'::jsonb AS doc, ARRAY[1, 2] AS list, 'NaN'::float8 AS nan, NULL::text AS nothing, true AS yes",
        { maxRows: 10, timeoutMs: 5000 },
      );
      const [row] = result.rows;
      expect(row?.slice(0, 4)).toEqual(['9007199254740993', 42, '123456789012345678.5', 1.5]);
      expect(row?.[4]).toMatch(/^2024-01-0\dT\d\d:04:05\.123456[+-]\d\d:\d\d$/);
      expect(row?.slice(5)).toEqual(['2024-01-02', '0x0102', '{"a": [1, 2]}', '{1,2}', 'NaN', null, true]);
      expect(result.columns.map((column) => column.type)).toEqual([
        'bigint', 'bigint', 'numeric', 'numeric', 'timestamp with time zone', 'date', 'bytea', 'jsonb', 'integer[]', 'double precision', 'text', 'boolean',
      ]);
    } finally {
      await connector.close();
    }
  });

  it('refuses a URL that is not postgres://', async () => {
    await expect(openPostgresConnector({ url: 'mysql://x@127.0.0.1/db' })).rejects.toMatchObject({ code: 'invalid-uri' });
  });
});

// Issue 17: with a superuser login the function deny-list (text) was the only barrier, and it
// read names differently from PostgreSQL.
describeOrNotRun('PostgreSQL login privileges', unavailable, () => {
  const limits = { maxRows: 10, timeoutMs: 5000 };

  it('refuses a superuser login by default, saying how to make a read-only role', async () => {
    const error = await openPostgresConnector({ url: server?.adminUri ?? '' }).then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkbenchError);
    expect((error as WorkbenchError).code).toBe('read-only');
    expect((error as WorkbenchError).message).toContain('refusing to connect as "wb" (SUPERUSER, REPLICATION, BYPASSRLS)');
    expect((error as WorkbenchError).message).toContain('GRANT pg_read_all_data TO dwb_reader');
    expect((error as WorkbenchError).message).toContain('allow_privileged=1');
  });

  it.each([
    ['REPLICATION', 'LOGIN REPLICATION', ''],
    ['BYPASSRLS', 'LOGIN BYPASSRLS', ''],
    ['member of pg_read_server_files', 'LOGIN', 'GRANT pg_read_server_files TO %'],
    ['member of pg_write_server_files', 'LOGIN', 'GRANT pg_write_server_files TO %'],
    ['member of pg_execute_server_program', 'LOGIN', 'GRANT pg_execute_server_program TO %'],
    ['member of pg_signal_backend', 'LOGIN', 'GRANT pg_signal_backend TO %'],
  ])('refuses a login that is %s', async (danger, attributes, grant) => {
    const role = `risky_${danger.replace(/\W+/g, '_').toLowerCase()}`;
    await runAsSuperuser([`CREATE ROLE ${role} ${attributes} PASSWORD 'pw'`, ...(grant === '' ? [] : [grant.replace('%', role)])]);
    const url = new URL(server?.uri ?? '');
    url.username = role;
    url.password = 'pw';
    await expect(openPostgresConnector({ url: url.toString() })).rejects.toMatchObject({ code: 'read-only', message: expect.stringContaining(danger) as string });
  });

  // Issue 26, item 5: only the login's own attributes and its (inherited) pg_* memberships were
  // read, so a member of a superuser role, which becomes a superuser with one SET ROLE, connected.
  it.each([
    ['a NOINHERIT member of a superuser role', 'member of risky_admins_1 (SUPERUSER; SET ROLE risky_admins_1 gives it)', [
      'CREATE ROLE risky_admins_1 NOLOGIN SUPERUSER', "CREATE ROLE risky_noinherit LOGIN NOINHERIT PASSWORD 'pw'", 'GRANT risky_admins_1 TO risky_noinherit',
    ]],
    ['an INHERIT member of a superuser role', 'member of risky_admins_2 (SUPERUSER', [
      'CREATE ROLE risky_admins_2 NOLOGIN SUPERUSER', "CREATE ROLE risky_inherit LOGIN INHERIT PASSWORD 'pw'", 'GRANT risky_admins_2 TO risky_inherit',
    ]],
    ['a member of a superuser role through two NOINHERIT roles', 'member of risky_admins_3 (SUPERUSER', [
      'CREATE ROLE risky_admins_3 NOLOGIN SUPERUSER', 'CREATE ROLE risky_team NOLOGIN NOINHERIT', 'CREATE ROLE risky_group NOLOGIN NOINHERIT',
      'GRANT risky_admins_3 TO risky_team', 'GRANT risky_team TO risky_group', "CREATE ROLE risky_chain LOGIN NOINHERIT PASSWORD 'pw'", 'GRANT risky_group TO risky_chain',
    ]],
    ['a member of a REPLICATION role', 'member of risky_replicators (REPLICATION', [
      'CREATE ROLE risky_replicators NOLOGIN REPLICATION', "CREATE ROLE risky_repl_member LOGIN PASSWORD 'pw'", 'GRANT risky_replicators TO risky_repl_member',
    ]],
    ['a member of a CREATEROLE role', 'member of risky_role_makers (CREATEROLE', [
      'CREATE ROLE risky_role_makers NOLOGIN CREATEROLE', "CREATE ROLE risky_maker_member LOGIN NOINHERIT PASSWORD 'pw'", 'GRANT risky_role_makers TO risky_maker_member',
    ]],
    ['CREATEROLE', 'CREATEROLE', ["CREATE ROLE risky_createrole LOGIN CREATEROLE PASSWORD 'pw'"]],
    ['granted EXECUTE on lo_export (writes server files)', 'may EXECUTE lo_export(oid, text)', [
      "CREATE ROLE risky_lo_export LOGIN PASSWORD 'pw'", 'GRANT EXECUTE ON FUNCTION lo_export(oid, text) TO risky_lo_export',
    ]],
  ])('refuses a login that is %s', async (_case, danger, statements) => {
    await runAsSuperuser(statements);
    const role = /CREATE ROLE (\w+) LOGIN/.exec(statements.join(' '))?.[1] ?? '';
    const url = new URL(server?.uri ?? '');
    url.username = role;
    url.password = 'pw';
    await expect(openPostgresConnector({ url: url.toString() })).rejects.toMatchObject({ code: 'read-only', message: expect.stringContaining(danger) as string });
    url.searchParams.set('allow_privileged', '1');
    const allowed = await openPostgresConnector({ url: url.toString() });
    try {
      expect(allowed.warnings).toEqual([expect.stringContaining(danger)]);
    } finally {
      await allowed.close();
    }
  });

  it('the NOINHERIT member of a superuser role really becomes a superuser with one SET ROLE (why it is refused)', async () => {
    await runAsSuperuser(['CREATE ROLE risky_admins_4 NOLOGIN SUPERUSER', "CREATE ROLE risky_setrole LOGIN NOINHERIT PASSWORD 'pw'", 'GRANT risky_admins_4 TO risky_setrole']);
    const url = new URL(server?.uri ?? '');
    url.username = 'risky_setrole';
    url.password = 'pw';
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      expect((await client.query("SELECT current_setting('is_superuser') AS su")).rows[0]).toEqual({ su: 'off' });
      await client.query('SET ROLE risky_admins_4');
      expect((await client.query("SELECT current_setting('is_superuser') AS su")).rows[0]).toEqual({ su: 'on' });
    } finally {
      await client.end();
    }
  });

  it('refuses large-object functions for an accepted login too; the server would have run lo_create in the read-only transaction', async () => {
    const connector = await openPostgresConnector({ url: server?.uri ?? '' });
    const client = await connectReadOnly(readOnlyClientConfig(server?.uri ?? '', 5000), () => undefined);
    try {
      const before = await fingerprint();
      for (const text of ["SELECT lo_from_bytea(0, 'evil')", 'SELECT lo_create(0)', 'SELECT "lo_creat"(-1)', "SELECT lo_put(lo_create(0), 0, 'x')"]) {
        await expect(connector.query(text, limits), text).rejects.toMatchObject({ code: 'read-only', message: expect.stringContaining('runs no large-object functions') as string });
      }
      // What the guard stands in for: inside a READ ONLY transaction the server creates the object (the rollback removes it).
      const created = await runInReadOnlyTransaction(client, { text: 'SELECT lo_create(0)', values: [], rowLimit: 10, timeoutMs: 5000 });
      expect(Number(created.rows[0]?.[0])).toBeGreaterThan(0);
      expect(await fingerprint()).toBe(before);
    } finally {
      await client.end();
      await connector.close();
    }
  });

  it('connects a privileged login with allow_privileged=1, warning loudly in the connection test', async () => {
    const url = new URL(privilegedUrl());
    const password = decodeURIComponent(url.password);
    url.password = '';
    const report = await testConnection({ engine: 'postgres', url: url.toString() }, password);
    expect(report.ok).toBe(true);
    expect(report.warnings).toEqual([expect.stringMatching(/^WARNING: connected as privileged PostgreSQL role "wb" \(SUPERUSER, REPLICATION, BYPASSRLS\)/)]);
    expect(report.message).toMatch(/^WARNING: .* — Connected: \d+ tables/);
  });

  it('accepts the read-only role README describes, without a warning, and the server refuses what the guard might miss', async () => {
    await runAsSuperuser([
      "CREATE ROLE dwb_reader LOGIN PASSWORD 'reader-pw' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS",
      'GRANT pg_read_all_data TO dwb_reader',
    ]);
    const url = new URL(server?.uri ?? '');
    url.username = 'dwb_reader';
    url.password = 'reader-pw';
    const connector = await openPostgresConnector({ url: url.toString() });
    try {
      expect(connector.warnings ?? []).toEqual([]);
      expect((await connector.query('SELECT count(*) FROM trades', limits)).rows[0]?.[0]).toBeGreaterThan(0);
      const before = await fingerprint();
      // Without the guard (straight into the read-only transaction), the server's privileges refuse these.
      const client = await connectReadOnly(readOnlyClientConfig(url.toString(), 5000), () => undefined);
      try {
        for (const sql of ["SELECT pg_read_file('/etc/hostname')", 'SELECT pg_stat_reset()', "SELECT pg_create_physical_replication_slot('evil_reader')", `SELECT lo_export(1, '${outFile}')`]) {
          const error = await runInReadOnlyTransaction(client, { text: sql, values: [], rowLimit: 10, timeoutMs: 5000 }).then(() => null, toWorkbenchError);
          expect(error?.message, sql).toMatch(/permission denied|must be superuser|REPLICATION|read-only/);
        }
      } finally {
        await client.end();
      }
      expect(await fingerprint()).toBe(before);
    } finally {
      await connector.close();
    }
  });

  it('refuses the issue-17 reproducers even with a superuser login allowed, and nothing happens', async () => {
    const connector = await openPostgresConnector({ url: privilegedUrl() });
    const admin = new URL(server?.adminUri ?? '');
    const dblinkTarget = `host=127.0.0.1 port=${admin.port} dbname=${admin.pathname.slice(1)} user=${admin.username} password=${decodeURIComponent(admin.password)}`;
    const attempts = [
      `SELECT U&"dblink\\005fexec"('${dblinkTarget}', 'DELETE FROM trades')`,
      `SELECT u&"d!0062link_exec" /* c */ UESCAPE '!'('${dblinkTarget}', 'DELETE FROM trades')`,
      `SELECT public."dblink_exec"('${dblinkTarget}', 'DELETE FROM trades')`,
      `SELECT query_to_xml('SELECT dblink_exec(''${dblinkTarget}'', ''DELETE FROM trades'')', true, true, '')`,
      `SELECT * FROM PG_CATALOG.QUERY_TO_XML_AND_XMLSCHEMA('SELECT pg_terminate_backend(pid) FROM pg_stat_activity', true, true, '')`,
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()',
      'SELECT U&"pg_terminate_backend"(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()',
      "SELECT pg_create_physical_replication_slot('evil')",
      "SELECT U&\"pg_create_physical_replication_slot\"('evil')",
      "SELECT pg_read_file('/etc/hostname')",
      "SELECT U&\"pg_read_\\0066ile\"('/etc/hostname')",
      "SELECT pg_ls_dir('.')",
      'SELECT pg_stat_reset()',
      "SELECT pg_stat_reset_shared('bgwriter')",
      "SELECT ts_stat('SELECT to_tsvector(name) FROM nodes WHERE dblink_exec(''x'', ''y'') IS NULL')",
      `SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery FROM dblink_exec(''${dblinkTarget}'', ''DELETE FROM trades'') AS d')`,
    ];
    try {
      const before = await fingerprint();
      const backendsBefore = (await runAsSuperuser(['SELECT count(*) FROM pg_stat_activity WHERE backend_type = \'client backend\'']))[0]?.[0];
      for (const text of attempts) {
        const error = await connector.query(text, limits).then(() => null, (caught: unknown) => caught);
        expect(error, text).toBeInstanceOf(WorkbenchError);
        expect((error as WorkbenchError).code, text).toBe('read-only');
      }
      expect(await fingerprint()).toBe(before);
      expect(await runAsSuperuser(['SELECT count(*) FROM pg_replication_slots'])).toEqual([['0']]);
      expect((await runAsSuperuser(['SELECT count(*) FROM pg_stat_activity WHERE backend_type = \'client backend\'']))[0]?.[0]).toBe(backendsBefore);
    } finally {
      await connector.close();
    }
  });
});

// Scratch files of this file's run; nothing in them is needed afterwards.
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
