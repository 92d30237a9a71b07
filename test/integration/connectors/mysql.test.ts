import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Connection } from 'mysql2';
import mysql, { type Connection as PromiseConnection } from 'mysql2/promise';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { openMysqlConnector } from '../../../src-main/connectors/mysql';
import { testConnection } from '../../../src-main/connectors/test-connection';
import { WorkbenchError } from '../../../src-main/contract/errors';
import { toWorkbenchError } from '../../../src-main/connectors/mysql/errors';
import { connectReadOnly, readOnlyConnectionOptions, runInReadOnlyTransaction, type ServerFlavor } from '../../../src-main/connectors/mysql/read-only-session';
import { startMariadb, whyMariadbUnavailable, type TestServer } from '../../servers';
import { describeOrNotRun } from '../../servers/not-run';
import { digestRows, runConnectorContract, type WriteAttempt } from './contract';
import { relationalFixtureSql } from './fixture-data';

// World-writable, so INTO OUTFILE from the server (running as "mysql") would succeed if allowed.
const scratch = mkdtempSync(join(tmpdir(), 'dwb-contract-mysql-'));
chmodSync(scratch, 0o777);
const outFile = join(scratch, 'out.csv');
const dumpFile = join(scratch, 'dump.bin');
const commentFile = join(scratch, 'comment.csv');

const writeAttempts: WriteAttempt[] = [
  { name: 'INSERT', text: "INSERT INTO nodes VALUES (99, 'Evil', 'x')" },
  { name: 'UPDATE', text: "UPDATE nodes SET name = 'Evil'" },
  { name: 'DELETE', text: 'DELETE FROM trades' },
  { name: 'DROP TABLE', text: 'DROP TABLE trades' },
  { name: 'CREATE TABLE', text: 'CREATE TABLE evil (id int)' },
  { name: 'CREATE TEMPORARY TABLE', text: 'CREATE TEMPORARY TABLE evil (id int)' },
  { name: 'ALTER TABLE', text: 'ALTER TABLE nodes ADD COLUMN evil int' },
  { name: 'TRUNCATE', text: 'TRUNCATE trades' },
  { name: 'REPLACE', text: "REPLACE INTO nodes VALUES (1, 'Evil', 'x')" },
  { name: 'upsert (INSERT … ON DUPLICATE KEY UPDATE)', text: "INSERT INTO nodes VALUES (1, 'Evil', 'x') ON DUPLICATE KEY UPDATE name = 'Evil'" },
  { name: 'CREATE INDEX', text: 'CREATE INDEX evil_idx ON nodes (name)' },
  { name: 'RENAME TABLE', text: 'RENAME TABLE nodes TO evil' },
  { name: 'CREATE USER', text: "CREATE USER 'evil'@'%'" },
  { name: 'GRANT', text: "GRANT ALL ON *.* TO 'wb'@'127.0.0.1'" },
  { name: 'LOAD DATA INFILE', text: "LOAD DATA INFILE '/etc/hostname' INTO TABLE nodes" },
  { name: 'LOAD DATA LOCAL INFILE', text: "LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE nodes" },
  { name: 'SELECT … INTO OUTFILE', text: `SELECT * FROM nodes INTO OUTFILE '${outFile}'` },
  { name: 'SELECT … INTO DUMPFILE', text: `SELECT name FROM nodes LIMIT 1 INTO DUMPFILE '${dumpFile}'` },
  { name: 'INTO OUTFILE inside an executable comment', text: `SELECT * FROM nodes /*!50000 INTO OUTFILE '${commentFile}' */` },
  { name: 'multi-statement', text: 'SELECT 1; DROP TABLE trades' },
  { name: 'multi-statement after a string', text: "SELECT ';'; DELETE FROM trades" },
  { name: 'block comment then DROP', text: '/* harmless */ DROP TABLE trades' },
  { name: 'line comment then DELETE', text: '-- just a comment\nDELETE FROM trades' },
  { name: 'hash comment then DELETE', text: '# just a comment\nDELETE FROM trades' },
  { name: 'DROP inside an executable comment', text: '/*!50000 DROP TABLE trades */' },
  { name: 'CTE-wrapped DELETE', text: 'WITH gone AS (DELETE FROM trades RETURNING *) SELECT * FROM gone', codes: ['read-only', 'syntax'] },
  { name: 'SELECT NEXTVAL()', text: 'SELECT NEXTVAL(trade_seq)' },
  { name: 'SELECT SETVAL()', text: 'SELECT SETVAL(trade_seq, 100)' },
  { name: 'SELECT … FOR UPDATE', text: 'SELECT * FROM nodes FOR UPDATE' },
  { name: 'SELECT of a function that deletes', text: 'SELECT wipe_trades()' },
  { name: 'CALL of a procedure that deletes', text: 'CALL wipe_trades_proc()' },
  { name: 'SET SESSION read-write, then DROP', before: 'SET SESSION tx_read_only = 0', text: 'DROP TABLE trades' },
  { name: 'SET GLOBAL', text: 'SET GLOBAL max_connections = 99' },
  { name: 'DO GET_LOCK()', text: "DO GET_LOCK('evil', 1)" },
  { name: 'SELECT GET_LOCK()', text: "SELECT GET_LOCK('evil', 1)" },
  { name: 'SELECT LOAD_FILE()', text: "SELECT LOAD_FILE('/etc/hostname')" },
  { name: 'FLUSH TABLES', text: 'FLUSH TABLES' },
  { name: 'LOCK TABLES', text: 'LOCK TABLES nodes WRITE' },
  { name: 'HANDLER', text: 'HANDLER nodes OPEN' },
  { name: 'PREPARE of a DELETE', text: "PREPARE evil FROM 'DELETE FROM trades'" },
  { name: 'XA transaction', text: "XA START 'evil'" },
];

const unavailable = whyMariadbUnavailable();
let server: TestServer | null = null;
let admin: PromiseConnection | null = null;

async function fingerprint(): Promise<string> {
  if (admin === null) throw new Error('no admin connection');
  try {
    const snapshot: unknown[] = [];
    for (const sql of [
      'SHOW TABLES',
      "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'wbtest' ORDER BY 1, ORDINAL_POSITION",
      "SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'wbtest' ORDER BY 1, 2, 3",
      'SELECT * FROM nodes ORDER BY id',
      'SELECT * FROM trades ORDER BY id',
      'SELECT next_not_cached_value FROM trade_seq',
      'SELECT user, host FROM mysql.user ORDER BY 1, 2',
      "SHOW GRANTS FOR 'wb'@'127.0.0.1'",
      'SELECT @@GLOBAL.max_connections',
    ]) {
      const [rows] = await admin.query({ sql, rowsAsArray: true });
      snapshot.push(rows);
    }
    return digestRows(snapshot);
  } catch (error) {
    return `fingerprint failed: ${String(error)}`;
  }
}

beforeAll(async () => {
  if (unavailable !== null) return;
  server = await startMariadb();
  if (server === null) throw new Error('MariaDB vanished between the check and the start');
  console.log(`[servers] MariaDB started in ${server.startupMs} ms`);
  admin = await mysql.createConnection({ uri: server.adminUri ?? '', dateStrings: true });
  for (const sql of relationalFixtureSql({ decimal: 'DECIMAL(10,2)', date: 'DATE', text: 'VARCHAR(40)' })) await admin.query(sql);
  await admin.query('CREATE SEQUENCE trade_seq');
  await admin.query('CREATE FUNCTION wipe_trades() RETURNS INT MODIFIES SQL DATA BEGIN DELETE FROM trades; RETURN 1; END');
  await admin.query('CREATE PROCEDURE wipe_trades_proc() MODIFIES SQL DATA DELETE FROM trades');
}, 180_000);

afterAll(async () => {
  await admin?.end();
  await server?.stop();
}, 60_000);

/** The ALL PRIVILEGES login with `allow_privileged=1`: the worst case the read-only layers must survive. */
function privilegedUrl(): string {
  const url = new URL(server?.adminUri ?? '');
  url.searchParams.set('allow_privileged', '1');
  return url.toString();
}

runConnectorContract('MySQL/MariaDB connector (ALL PRIVILEGES login with FILE, allowed explicitly)', {
  unavailable,
  writeAttempts,
  forbiddenPaths: [outFile, dumpFile, commentFile],
  async setup() {
    if (server === null) throw new Error('MariaDB server not started');
    const connector = await openMysqlConnector({ url: privilegedUrl() });
    return {
      connector,
      selectNodes: 'SELECT id, name, region FROM nodes ORDER BY id',
      nodesInRegion: 'SELECT name FROM nodes WHERE region = $region ORDER BY id',
      manyRows: 'SELECT seq FROM seq_1_to_100000',
      slowQuery: 'SELECT SLEEP(60)',
      syntaxError: { text: 'SELEC id FROM nodes', messageIncludes: 'You have an error in your SQL syntax' },
      unknownNames: [
        { text: 'SELECT * FROM trade', messageIncludes: ['trade', 'did you mean "trades"?'] },
        { text: 'SELECT nme FROM nodes', messageIncludes: ['nme', 'did you mean "name"?'] },
      ],
      fingerprint,
      dispose: () => connector.close(),
    };
  },
});

describeOrNotRun('MySQL/MariaDB engine layers on their own', unavailable, () => {
  let session: { connection: Connection; flavor: ServerFlavor };

  beforeAll(async () => {
    if (server === null) throw new Error('server not started');
    // The privileged login: the engine's read-only transaction must refuse writes whatever the rights.
    session = await connectReadOnly(readOnlyConnectionOptions(server.adminUri ?? '', 5000), () => undefined);
  }, 60_000);

  afterAll(() => {
    session?.connection.destroy();
  });

  const engineOnly = [
    "INSERT INTO nodes VALUES (98, 'x', 'y')",
    'DELETE FROM trades',
    'DROP TABLE trades', // DDL commits implicitly, then meets the session's read-only flag
    'CREATE TABLE evil (id int)',
    'TRUNCATE trades',
    'SELECT NEXTVAL(trade_seq)',
    'SELECT wipe_trades()',
    'CALL wipe_trades_proc()',
    "LOAD DATA INFILE '/etc/hostname' INTO TABLE nodes",
    'SELECT * FROM nodes FOR UPDATE',
  ];

  it.each(engineOnly)('read-only transaction refuses %s without the statement guard', async (sql) => {
    const error = await runInReadOnlyTransaction(session.connection, session.flavor, { text: sql, values: [], rowLimit: 10, timeoutMs: 5000 }).then(
      () => null,
      toWorkbenchError,
    );
    expect(error?.code).toBe('read-only');
    expect(error?.message).toMatch(/READ ONLY transaction/);
  });

  it('the protocol refuses two statements in one query', async () => {
    const error = await runInReadOnlyTransaction(session.connection, session.flavor, { text: 'SELECT 1; DELETE FROM trades', values: [], rowLimit: 10, timeoutMs: 5000 }).then(
      () => null,
      toWorkbenchError,
    );
    expect(error?.code).toBe('syntax');
  });

  it('names each table by its database when the URL names none, and says the database apart for the browser to group by', async () => {
    const url = new URL(server?.uri ?? '');
    url.pathname = '/';
    const connector = await openMysqlConnector({ url: url.toString() });
    try {
      const schema = await connector.schema();
      if (schema.kind !== 'relational') throw new Error('expected a relational schema');
      const nodes = schema.tables.find((table) => table.name === 'wbtest.nodes');
      expect(nodes?.namespace).toBe('wbtest');
      expect(nodes?.columns.map((column) => column.name)).toEqual(['id', 'name', 'region']);
    } finally {
      await connector.close();
    }
  });

  it('returns JSON-safe cells for awkward types', async () => {
    const connector = await openMysqlConnector({ url: server?.uri ?? '' });
    try {
      const result = await connector.query(
        "SELECT CAST(9007199254740993 AS SIGNED) AS big, CAST(42 AS SIGNED) AS small, CAST('123456789012345678.5' AS DECIMAL(30,1)) AS exact, " +
          "CAST(1.50 AS DECIMAL(10,2)) AS price, TIMESTAMP('2024-01-02 03:04:05.123456') AS at, DATE('2024-01-02') AS day, X'0102' AS bytes, " +
          "JSON_OBJECT('a', JSON_ARRAY(1, 2)) AS doc, NULL AS nothing",
        { maxRows: 10, timeoutMs: 5000 },
      );
      expect(result.rows[0]).toEqual(['9007199254740993', 42, '123456789012345678.5', 1.5, '2024-01-02T03:04:05.123456', '2024-01-02', '0x0102', '{"a": [1, 2]}', null]);
    } finally {
      await connector.close();
    }
  });

  it('refuses a URL that is not mysql://', async () => {
    await expect(openMysqlConnector({ url: 'postgres://x@127.0.0.1/db' })).rejects.toMatchObject({ code: 'invalid-uri' });
  });
});

// Issue 26, item 6: `SELECT 1 INTO @v` failed with "Cannot read properties of undefined (reading 'columnType')".
describeOrNotRun('MySQL/MariaDB SELECT … INTO a variable', unavailable, () => {
  const limits = { maxRows: 10, timeoutMs: 5000 };

  it.each(['SELECT 1 INTO @v', 'SELECT id FROM nodes ORDER BY id LIMIT 1 INTO @v', 'SELECT 1, 2 INTO @a, @b', '/* c */ select 1 into @v', 'SELECT 1 /*!INTO @v */'])(
    'refuses %s as read-only with a clear message, and the variable stays unset',
    async (text) => {
      const connector = await openMysqlConnector({ url: server?.uri ?? '' });
      try {
        const error = await connector.query(text, limits).then(() => null, (caught: unknown) => caught);
        expect(error).toBeInstanceOf(WorkbenchError);
        expect((error as WorkbenchError).code).toBe('read-only');
        expect((error as WorkbenchError).message).toBe(
          'MySQL: SELECT … INTO a variable is not allowed: it assigns session variables instead of returning rows; select the value itself',
        );
        expect((await connector.query('SELECT @v, @a', limits)).rows).toEqual([[null, null]]);
      } finally {
        await connector.close();
      }
    },
  );

  it('a read that only mentions INTO in a string, a comment or a quoted name runs', async () => {
    const connector = await openMysqlConnector({ url: server?.uri ?? '' });
    try {
      expect((await connector.query("SELECT 'INTO @v' AS `into` /* INTO @w */", limits)).rows).toEqual([['INTO @v']]);
    } finally {
      await connector.close();
    }
  });

  it('without the guard the server assigns the variable and the rollback keeps it, with no result set (why it is refused)', async () => {
    const session = await connectReadOnly(readOnlyConnectionOptions(server?.uri ?? '', 5000), () => undefined);
    try {
      const run = { values: [], rowLimit: 10, timeoutMs: 5000 };
      expect(await runInReadOnlyTransaction(session.connection, session.flavor, { ...run, text: 'SELECT 41 + 1 INTO @kept' })).toEqual({ fields: [], rows: [] });
      expect((await runInReadOnlyTransaction(session.connection, session.flavor, { ...run, text: 'SELECT @kept' })).rows).toEqual([[42]]);
    } finally {
      session.connection.destroy();
    }
  });
});

// Issue 26, item 5: a login with FILE, SUPER, PROCESS or any write privilege connected as any other.
describeOrNotRun('MySQL/MariaDB login privileges', unavailable, () => {
  const limits = { maxRows: 10, timeoutMs: 5000 };
  const loginUrl = (user: string, allow = false): string => {
    const url = new URL(server?.uri ?? '');
    url.username = user;
    url.password = 'pw';
    if (allow) url.searchParams.set('allow_privileged', '1');
    return url.toString();
  };
  const refusalOf = (url: string): Promise<WorkbenchError | null> =>
    openMysqlConnector({ url }).then(
      async (connector) => {
        await connector.close();
        return null;
      },
      (caught: unknown) => caught as WorkbenchError,
    );

  it('accepts the read-only login (SELECT, SHOW VIEW) without a warning', async () => {
    const connector = await openMysqlConnector({ url: server?.uri ?? '' });
    try {
      expect(connector.warnings).toEqual([]);
      expect((await connector.query('SELECT count(*) FROM trades', limits)).rows[0]?.[0]).toBeGreaterThan(0);
    } finally {
      await connector.close();
    }
  });

  it('refuses the ALL PRIVILEGES login by default, naming its rights and how to make a read-only login, never its password hash', async () => {
    const error = await refusalOf(server?.adminUri ?? '');
    expect(error).toBeInstanceOf(WorkbenchError);
    expect(error?.code).toBe('read-only');
    expect(error?.message).toContain('MySQL: refusing to connect as wb@127.0.0.1 (ALL PRIVILEGES on *.*, GRANT OPTION on *.*)');
    expect(error?.message).toContain("GRANT SELECT, SHOW VIEW ON mydb.* TO 'dwb_reader'@'%'");
    expect(error?.message).toContain('allow_privileged=1');
    expect(error?.message).not.toMatch(/IDENTIFIED BY PASSWORD|\*[0-9A-F]{40}/);
  });

  it.each([
    ['FILE', 'FILE on *.*', ['GRANT FILE ON *.* TO %', 'GRANT SELECT ON wbtest.* TO %']],
    ['SUPER', 'SUPER on *.*', ['GRANT SELECT, SUPER ON *.* TO %']],
    ['PROCESS', 'PROCESS on *.*', ['GRANT PROCESS ON *.* TO %', 'GRANT SELECT ON wbtest.* TO %']],
    ['INSERT on the schema', 'INSERT on `wbtest`.*', ['GRANT SELECT, INSERT ON wbtest.* TO %']],
    ['UPDATE of one column', 'UPDATE on `wbtest`.`nodes`', ['GRANT SELECT (id), UPDATE (name) ON wbtest.nodes TO %']],
    ['DELETE on one table', 'DELETE on `wbtest`.`trades`', ['GRANT SELECT ON wbtest.* TO %', 'GRANT DELETE ON wbtest.trades TO %']],
    ['CREATE, DROP, ALTER and INDEX', 'CREATE on `wbtest`.*, DROP on `wbtest`.*, INDEX on `wbtest`.*, ALTER on `wbtest`.*', ['GRANT SELECT, CREATE, DROP, ALTER, INDEX ON wbtest.* TO %']],
    ['CREATE ROUTINE, EVENT and TRIGGER', 'CREATE ROUTINE on `wbtest`.*', ['GRANT CREATE ROUTINE, EVENT, TRIGGER ON wbtest.* TO %']],
    ['SELECT WITH GRANT OPTION', 'GRANT OPTION on `wbtest`.*', ['GRANT SELECT ON wbtest.* TO % WITH GRANT OPTION']],
    ['granted a writing role it has not enabled (one SET ROLE away)', 'INSERT on `wbtest`.* (through role risky_writer_1)', [
      'CREATE ROLE risky_writer_1', 'GRANT INSERT ON wbtest.* TO risky_writer_1', 'GRANT SELECT ON wbtest.* TO %', 'GRANT risky_writer_1 TO %',
    ]],
    ['given a default role that holds a writing role', 'UPDATE on `wbtest`.* (through role risky_team)', [
      'CREATE ROLE risky_writer_2', 'GRANT UPDATE ON wbtest.* TO risky_writer_2', 'CREATE ROLE risky_team', 'GRANT risky_writer_2 TO risky_team',
      'GRANT SELECT ON wbtest.* TO %', 'GRANT risky_team TO %', 'SET DEFAULT ROLE risky_team FOR %',
    ]],
  ])('refuses a login with %s, and connects it with allow_privileged=1 and a warning', async (shape, danger, grants) => {
    const user = `risky_${shape.replace(/\W+/g, '_').toLowerCase()}`.slice(0, 32);
    const account = `'${user}'@'127.0.0.1'`;
    await admin?.query(`CREATE USER ${account} IDENTIFIED BY 'pw'`);
    for (const grant of grants) await admin?.query(grant.replace('%', account));
    const error = await refusalOf(loginUrl(user));
    expect(error?.code, error?.message).toBe('read-only');
    expect(error?.message).toContain(`refusing to connect as ${user}@127.0.0.1 (`);
    expect(error?.message, error?.message).toContain(danger);
    const connector = await openMysqlConnector({ url: loginUrl(user, true) });
    try {
      expect(connector.warnings).toEqual([expect.stringMatching(new RegExp(`^WARNING: connected as privileged MySQL login ${user}@127\\.0\\.0\\.1 \\(.*${danger.replace(/[.*()`]/g, '\\$&')}`))]);
      expect((await connector.query('SELECT 1', limits)).rows).toEqual([[1]]);
      // Reading a role's grants switches to it for a moment; the session is back on the role it logged in with.
      const raw = await mysql.createConnection({ uri: loginUrl(user) });
      try {
        const [rows] = await raw.query({ sql: 'SELECT CURRENT_ROLE()', rowsAsArray: true });
        expect((await connector.query('SELECT CURRENT_ROLE()', limits)).rows).toEqual(rows);
      } finally {
        await raw.end();
      }
    } finally {
      await connector.close();
    }
  });

  it('says so in the connection test when allowed', async () => {
    const url = new URL(privilegedUrl());
    const password = decodeURIComponent(url.password);
    url.password = '';
    const report = await testConnection({ engine: 'mysql', url: url.toString() }, password);
    expect(report.ok).toBe(true);
    expect(report.warnings).toEqual([expect.stringMatching(/^WARNING: connected as privileged MySQL login wb@127\.0\.0\.1 \(ALL PRIVILEGES on \*\.\*/)]);
  });
});

// Scratch files of this file's run; nothing in them is needed afterwards.
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
