import type { Connector } from '../connector';
import { openFailure } from '../shared/open-failure';
import { toWorkbenchError } from './errors';
import { PostgresConnector } from './postgres-connector';
import { allowsPrivilegedLogin } from '../shared/allow-privileged';
import { readOnlyClientConfig, requirePostgresUrl } from './read-only-session';

export interface PostgresConnectorOptions {
  /** `postgres://user:password@host:port/database` (or postgresql://), libpq URL parameters allowed. */
  url: string;
  /** How long to wait for the server to accept the connection. Default 10 s. */
  connectTimeoutMs?: number;
  /**
   * Connect even when the login is a superuser or has rights beyond reading (server files,
   * programs, signals, replication); the connector then carries a loud warning. Also set by
   * `allow_privileged=1` in the URL. Default false: such a login is refused.
   */
  allowPrivilegedLogin?: boolean;
}

/**
 * Opens a read-only PostgreSQL connector. Protection layers, outermost first:
 * 0. the login role: one with rights beyond reading (superuser, server file/program/signal
 *    roles, replication, bypassrls) is refused unless explicitly allowed (login-privileges.ts);
 * 1. statement guard: only SELECT/WITH/VALUES/TABLE/SHOW/EXPLAIN, no side-effect functions;
 * 2. extended protocol: the server accepts exactly one statement per query;
 * 3. session default_transaction_read_only=on (startup option and SET SESSION CHARACTERISTICS);
 * 4. each query in BEGIN TRANSACTION READ ONLY … ROLLBACK, with a local statement_timeout.
 */
export async function openPostgresConnector(options: PostgresConnectorOptions): Promise<Connector> {
  requirePostgresUrl(options.url);
  const config = readOnlyClientConfig(options.url, options.connectTimeoutMs ?? 10_000);
  try {
    return await PostgresConnector.open(config, options.allowPrivilegedLogin ?? allowsPrivilegedLogin(options.url));
  } catch (error) {
    throw openFailure(toWorkbenchError(error), error);
  }
}
