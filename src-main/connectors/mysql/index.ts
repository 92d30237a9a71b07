import type { Connector } from '../connector';
import { openFailure } from '../shared/open-failure';
import { toWorkbenchError } from './errors';
import { MysqlConnector } from './mysql-connector';
import { readOnlyConnectionOptions, requireMysqlUrl } from './read-only-session';

export interface MysqlConnectorOptions {
  /** `mysql://user:password@host:port/database` (or mariadb://); the database part is optional. */
  url: string;
  /** How long to wait for the server to accept the connection. Default 10 s. */
  connectTimeoutMs?: number;
}

/**
 * Opens a read-only MySQL or MariaDB connector. Protection layers, outermost first:
 * 1. statement guard: only SELECT/WITH/SHOW/DESCRIBE/EXPLAIN/VALUES/TABLE, no INTO OUTFILE/DUMPFILE,
 *    no file or lock functions;
 * 2. protocol: multi-statements and LOCAL INFILE disabled in the client flags;
 * 3. session transactions READ ONLY (re-asserted before every query; covers implicit-commit DDL);
 * 4. each query in START TRANSACTION READ ONLY … ROLLBACK, with the server's statement time limit.
 */
export async function openMysqlConnector(options: MysqlConnectorOptions): Promise<Connector> {
  requireMysqlUrl(options.url);
  try {
    return await MysqlConnector.open(readOnlyConnectionOptions(options.url, options.connectTimeoutMs ?? 10_000));
  } catch (error) {
    throw openFailure(toWorkbenchError(error), error);
  }
}
