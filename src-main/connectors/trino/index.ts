import { WorkbenchError } from '../../contract/errors';
import type { Connector } from '../connector';
import { openFailure } from '../shared/open-failure';
import { toWorkbenchError } from './errors';
import { TrinoConnector } from './trino-connector';
import { parseTrinoUrl } from './trino-url';

export interface TrinoConnectorOptions {
  /** `trino://USER@HOST[:PORT]/CATALOG[/SCHEMA][?ssl=true]`, no password. */
  url: string;
  /** From the secret store or the CLI's password file; sent as HTTP Basic, over HTTPS only. */
  password?: string | null;
}

/**
 * Opens a read-only Trino connector and checks the coordinator answers (`SELECT 1` in a
 * read-only transaction). Protection layers, outermost first:
 * 1. statement check: one SELECT/WITH/VALUES/TABLE/SHOW/DESCRIBE/EXPLAIN statement, no EXPLAIN ANALYZE;
 * 2. Trino's IO plan of a query must write no table (plan-check.ts);
 * 3. every query in START TRANSACTION READ ONLY … ROLLBACK: Trino refuses any write;
 * 4. the deployment's access control (a read-only user): Trino refuses the write again.
 */
export async function openTrinoConnector(options: TrinoConnectorOptions): Promise<Connector> {
  const endpoint = parseTrinoUrl(options.url);
  const password = options.password ?? null;
  try {
    if (password !== null && endpoint.baseUrl.startsWith('http:')) {
      // A WorkbenchError as it is: the message names Trino already, and nothing was sent.
      throw new WorkbenchError('connection-failed', 'Trino accepts a password only over HTTPS: add ?ssl=true to the URL');
    }
    const connector = new TrinoConnector(endpoint, password);
    await connector.query('SELECT 1', { maxRows: 1, timeoutMs: 10_000 });
    return connector;
  } catch (error) {
    throw openFailure(toWorkbenchError(error), error);
  }
}
