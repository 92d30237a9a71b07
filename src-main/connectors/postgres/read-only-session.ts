import pg, { type Client, type ClientConfig } from 'pg';

import { requireUrlScheme, type UrlRule } from '../shared/url-scheme';
import { CappedQuery, type CappedRows, type RowBatches } from './capped-query';
import type { ReadOnlyRun } from '../shared/read-only-run';
import { allowPrivilegedParameter } from '../shared/allow-privileged';

/**
 * Session settings sent in the startup packet. default_transaction_read_only makes every
 * transaction of this session read-only unless it explicitly asks otherwise, which the
 * connector never does; ISO date styles keep date text ISO 8601.
 */
const readOnlyStartupOptions = '-c default_transaction_read_only=on -c DateStyle=ISO -c IntervalStyle=iso_8601';

/**
 * Client settings for a read-only session. An `options` parameter in the URL is kept but ours
 * come last, so a URL cannot switch the session back to read-write. The workbench's own
 * `allow_privileged` parameter is not sent to the server.
 */
export function readOnlyClientConfig(url: string, connectTimeoutMs: number): ClientConfig {
  const parsed = new URL(url);
  const userOptions = parsed.searchParams.get('options');
  parsed.searchParams.delete('options');
  parsed.searchParams.delete(allowPrivilegedParameter);
  return {
    connectionString: parsed.toString(),
    options: userOptions === null ? readOnlyStartupOptions : `${userOptions} ${readOnlyStartupOptions}`,
    application_name: 'decision-workbench',
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
  };
}

/**
 * Opens a session and makes read-only its characteristic a second time with SET SESSION, for
 * poolers that drop startup options. Errors on the idle connection are swallowed here and
 * surface as a failed next query, which reconnects.
 */
export async function connectReadOnly(config: ClientConfig, onBroken: () => void): Promise<Client> {
  const client = new pg.Client(config);
  client.on('error', onBroken);
  client.on('end', onBroken);
  try {
    await client.connect();
    await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
  } catch (error) {
    // A failed start (e.g. the server asked for a password the URL lacks) can leave the socket
    // open, which would keep a CLI process alive after it has reported the error.
    await client.end().catch(() => undefined);
    throw error;
  }
  return client;
}

/**
 * Runs one statement inside BEGIN TRANSACTION READ ONLY … ROLLBACK with a statement_timeout
 * local to that transaction. The server refuses any write in it (SQLSTATE 25006), and the
 * ROLLBACK discards anything transactional a function might have done anyway.
 */
export async function runInReadOnlyTransaction(client: Client, run: ReadOnlyRun & { batches?: RowBatches }): Promise<CappedRows> {
  const timeout = Math.max(1, Math.round(run.timeoutMs));
  await client.query(`BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${timeout}`);
  try {
    if (run.shouldStop?.() === true) return { fields: [], rows: [] };
    return await client.query(new CappedQuery(run.text, run.values, run.rowLimit, run.batches)).done;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
  }
}

/**
 * The server process serving `client`, known once connected. node-postgres sets `processID`
 * from the server's BackendKeyData message; @types/pg does not declare it.
 */
export function backendProcessId(client: Client): number | null {
  const { processID } = client as Client & { processID?: number | null };
  return typeof processID === 'number' ? processID : null;
}

/**
 * Asks the server to cancel whatever `processId` is running, from a second short-lived session
 * (itself read-only). pg_cancel_backend only signals; the query fails with SQLSTATE 57014.
 */
export async function cancelBackend(config: ClientConfig, processId: number): Promise<void> {
  const client = new pg.Client({ ...config, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT pg_cancel_backend($1)', [processId]);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export const postgresUrlRule: UrlRule = {
  engine: 'PostgreSQL',
  schemes: ['postgres:', 'postgresql:'],
  example: 'postgres://user:password@host:port/database',
};

export function requirePostgresUrl(url: string): void {
  requireUrlScheme(url, postgresUrlRule);
}
