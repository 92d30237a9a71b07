import { createConnection, type Connection, type ConnectionOptions, type FieldPacket } from 'mysql2';

import { requireUrlScheme, type UrlRule } from '../shared/url-scheme';
import type { ReadOnlyRun } from '../shared/read-only-run';
import { allowPrivilegedParameter } from '../shared/allow-privileged';

/** The two dialects differ in the names of the read-only flag and the statement time limit. */
export interface ServerFlavor {
  isMariadb: boolean;
  /** `tx_read_only` on MariaDB before 11.1 and MySQL 5.7; `transaction_read_only` after. */
  readOnlyVariable: 'tx_read_only' | 'transaction_read_only';
}

export interface ServerRows {
  fields: FieldPacket[];
  rows: unknown[][];
}

/**
 * Reading in batches: every `batchSize` rows go to `onBatch` and the connection is paused until
 * it settles, so the server's rows wait in its socket, not in memory. The rest stay in the result.
 */
export interface RowBatches {
  batchSize: number;
  onBatch(fields: FieldPacket[], rows: unknown[][]): Promise<void>;
}

/**
 * Connection settings for a read-only session. Multiple statements and LOCAL INFILE are
 * switched off at the protocol level (the client does not even advertise them); values come
 * back exact (big numbers and DECIMALs as strings, dates and JSON as the server's text).
 */
export function readOnlyConnectionOptions(url: string, connectTimeoutMs: number): ConnectionOptions {
  const parsed = new URL(url);
  parsed.protocol = 'mysql:';
  // The workbench's own parameter; mysql2 would take it for a driver option.
  parsed.searchParams.delete(allowPrivilegedParameter);
  return {
    uri: parsed.toString(),
    multipleStatements: false,
    flags: ['-MULTI_STATEMENTS', '-LOCAL_FILES'],
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: false,
    dateStrings: true,
    jsonStrings: true,
    connectTimeout: connectTimeoutMs,
    // Prepared statements are per query text; keep the server-side cache small.
    maxPreparedStatements: 64,
  };
}

/** Runs one statement of the connector's own (never user text) and returns its rows. */
export function runOwnStatement(connection: Connection, sql: string): Promise<unknown[][]> {
  return new Promise((resolve, reject) => {
    connection.query({ sql, rowsAsArray: true }, (error, rows) => {
      if (error !== null) reject(error);
      else resolve(Array.isArray(rows) ? (rows as unknown[][]) : []);
    });
  });
}

/**
 * Opens a session, learns which server it talks to, and sets the session's transactions
 * read-only. Statements that implicitly commit (DDL) leave the START TRANSACTION READ ONLY
 * transaction, but then run under this session setting and are still refused.
 */
export async function connectReadOnly(options: ConnectionOptions, onBroken: () => void): Promise<{ connection: Connection; flavor: ServerFlavor }> {
  const connection = createConnection(options);
  connection.on('error', onBroken);
  connection.on('end', onBroken);
  try {
    const [versionRow] = await runOwnStatement(connection, 'SELECT VERSION()');
    const version = String(versionRow?.[0] ?? '');
    const readOnlyVariable = await hasVariable(connection, 'transaction_read_only') ? 'transaction_read_only' : 'tx_read_only';
    await runOwnStatement(connection, 'SET SESSION TRANSACTION READ ONLY');
    return { connection, flavor: { isMariadb: /mariadb/i.test(version), readOnlyVariable } };
  } catch (error) {
    connection.destroy();
    throw error;
  }
}

async function hasVariable(connection: Connection, name: string): Promise<boolean> {
  try {
    await runOwnStatement(connection, `SELECT @@SESSION.${name}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs one statement in START TRANSACTION READ ONLY … ROLLBACK. Before it, one SET re-asserts
 * the session's read-only flag (a statement cannot have switched it off: SET is refused by the
 * guard, but the flag guards DDL, so it is worth the round trip), caps rows server-side with
 * sql_select_limit and sets the server's own statement time limit.
 */
export async function runInReadOnlyTransaction(connection: Connection, flavor: ServerFlavor, run: ReadOnlyRun & { batches?: RowBatches }): Promise<ServerRows> {
  const limit = flavor.isMariadb
    ? `max_statement_time = ${(Math.max(1, run.timeoutMs) / 1000).toFixed(3)}`
    : `max_execution_time = ${Math.max(1, Math.round(run.timeoutMs))}`;
  await runOwnStatement(connection, `SET SESSION ${flavor.readOnlyVariable} = 1, sql_select_limit = ${Math.max(1, Math.floor(run.rowLimit))}, ${limit}`);
  await runOwnStatement(connection, 'START TRANSACTION READ ONLY');
  try {
    if (run.shouldStop?.() === true) return { fields: [], rows: [] };
    return await streamRows(connection, run);
  } finally {
    await runOwnStatement(connection, 'ROLLBACK').catch(() => undefined);
  }
}

/** ER_UNSUPPORTED_PS: the server cannot prepare this statement (a few SHOW and HELP forms). */
const cannotPrepare = 1295;

/**
 * Runs the statement through the binary protocol (a server-side prepared statement) whenever
 * the server can prepare it: there DOUBLE values travel as their IEEE bits, while the text
 * protocol prints them, and MariaDB prints some a unit in the last place off. Only a
 * statement without parameters that cannot be prepared falls back to the text protocol, so
 * values are always bound by the server.
 */
async function streamRows(connection: Connection, run: ReadOnlyRun & { batches?: RowBatches }): Promise<ServerRows> {
  const options = { sql: run.text, rowsAsArray: true };
  try {
    return await readStream(connection, connection.execute(options, run.values), run.rowLimit, run.batches);
  } catch (error) {
    if ((error as { errno?: number }).errno !== cannotPrepare || run.values.length > 0) throw error;
    return readStream(connection, connection.query(options), run.rowLimit, run.batches);
  }
}

/** Reads rows as they arrive and keeps only the first `rowLimit`; extra rows are dropped. */
function readStream(connection: Connection, query: ReturnType<Connection['query']>, rowLimit: number, batches?: RowBatches): Promise<ServerRows> {
  return new Promise((resolve, reject) => {
    const rows: unknown[][] = [];
    let fields: FieldPacket[] = [];
    let failed = false;
    let taken = 0;
    let consumerError: unknown = null;
    query.on('fields', (received: FieldPacket[] | FieldPacket) => {
      // Only the first result set counts; a CALL could return several.
      // A statement without a result set reports no fields at all.
      if (fields.length === 0 && received !== undefined) fields = Array.isArray(received) ? received : [received];
    });
    query.on('result', (row: unknown) => {
      if (!Array.isArray(row) || taken + rows.length >= rowLimit || consumerError !== null) return;
      rows.push(row);
      if (!batches || rows.length < batches.batchSize) return;
      const batch = rows.splice(0);
      taken += batch.length;
      connection.pause();
      batches.onBatch(fields, batch).then(
        () => connection.resume(),
        (error: unknown) => {
          // Drain the rest unread, then fail with the consumer's error.
          consumerError = error;
          connection.resume();
        },
      );
    });
    query.on('error', (error: Error) => {
      failed = true;
      reject(error);
    });
    query.on('end', () => {
      if (failed) return;
      if (consumerError !== null) reject(consumerError);
      else resolve({ fields, rows });
    });
  });
}

/**
 * Stops whatever `threadId` is running with KILL QUERY from a second short-lived session.
 * The statement fails with ER_QUERY_INTERRUPTED; the session itself stays usable.
 */
export async function killQuery(options: ConnectionOptions, threadId: number): Promise<void> {
  const connection = createConnection({ ...options, connectTimeout: 5000 });
  connection.on('error', () => undefined);
  try {
    await runOwnStatement(connection, `KILL QUERY ${Math.floor(threadId)}`);
  } finally {
    connection.destroy();
  }
}

export const mysqlUrlRule: UrlRule = {
  engine: 'MySQL',
  schemes: ['mysql:', 'mariadb:'],
  example: 'mysql://user:password@host:port/database',
};

export function requireMysqlUrl(url: string): void {
  requireUrlScheme(url, mysqlUrlRule);
}
