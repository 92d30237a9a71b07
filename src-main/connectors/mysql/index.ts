import type { Connector } from '../connector';
import { allowsPrivilegedLogin } from '../shared/allow-privileged';
import { openFailure } from '../shared/open-failure';
import { toWorkbenchError } from './errors';
import { MysqlConnector } from './mysql-connector';
import { readOnlyConnectionOptions, requireMysqlUrl } from './read-only-session';

export interface MysqlConnectorOptions {
  /** `mysql://user:password@host:port/database` (or mariadb://); the database part is optional. */
  url: string;
  /** How long to wait for the server to accept the connection. Default 10 s. */
  connectTimeoutMs?: number;
  /**
   * Connect even when the login has rights beyond reading (FILE, SUPER, PROCESS, any write or
   * DDL privilege, GRANT OPTION, also through a role it can SET); the connector then carries a
   * loud warning. Also set by `allow_privileged=1` in the URL. Default false: such a login is refused.
   */
  allowPrivilegedLogin?: boolean;
}

/**
 * Opens a read-only MySQL or MariaDB connector. Protection layers, outermost first:
 * 0. the login: one with rights beyond reading (FILE, SUPER, PROCESS, write and DDL
 *    privileges, GRANT OPTION, directly or through a role) is refused unless explicitly
 *    allowed (login-privileges.ts);
 * 1. statement guard: only SELECT/WITH/SHOW/DESCRIBE/EXPLAIN/VALUES/TABLE, no INTO OUTFILE/DUMPFILE,
 *    no file or lock functions;
 * 2. protocol: multi-statements and LOCAL INFILE disabled in the client flags;
 * 3. session transactions READ ONLY (re-asserted before every query; covers implicit-commit DDL);
 * 4. each query in START TRANSACTION READ ONLY … ROLLBACK, with the server's statement time limit.
 */
export async function openMysqlConnector(options: MysqlConnectorOptions): Promise<Connector> {
  requireMysqlUrl(options.url);
  try {
    return await MysqlConnector.open(
      readOnlyConnectionOptions(options.url, options.connectTimeoutMs ?? 10_000),
      options.allowPrivilegedLogin ?? allowsPrivilegedLogin(options.url),
    );
  } catch (error) {
    throw openFailure(toWorkbenchError(error), error);
  }
}
