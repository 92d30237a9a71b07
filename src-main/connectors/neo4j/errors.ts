import { Neo4jError } from 'neo4j-driver';

import { WorkbenchError, type ErrorCode } from '../../contract/errors';

/** Neo4j status codes (or their prefixes) the connector reacts to; the rest is 'query-failed'. */
const codeByStatus: [prefix: string, code: ErrorCode][] = [
  ['Neo.ClientError.Statement.AccessMode', 'read-only'],
  ['Neo.ClientError.Statement.SyntaxError', 'syntax'],
  ['Neo.ClientError.Transaction.TransactionTimedOut', 'timeout'],
  ['Neo.ClientError.Transaction.Terminated', 'cancelled'],
  ['Neo.TransientError.Transaction.Terminated', 'cancelled'],
  ['Neo.ClientError.Transaction.LockClientStopped', 'cancelled'],
  ['Neo.ClientError.Database.DatabaseNotFound', 'not-found'],
  ['Neo.ClientError.Security.Unauthorized', 'connection-failed'],
  ['Neo.ClientError.Security.AuthenticationRateLimit', 'connection-failed'],
  ['ServiceUnavailable', 'connection-failed'],
  ['SessionExpired', 'connection-failed'],
];

/** Maps a driver error to a WorkbenchError, keeping the server's own message. */
export function toWorkbenchError(error: unknown): WorkbenchError {
  if (error instanceof WorkbenchError) return error;
  if (error instanceof Neo4jError) {
    const status = error.code;
    const code = codeByStatus.find(([prefix]) => status.startsWith(prefix))?.[1] ?? 'query-failed';
    const message = error.message.trim();
    return new WorkbenchError(code, `Neo4j: ${message}`, { cause: error, retryable: code === 'timeout' || code === 'connection-failed' });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new WorkbenchError('connection-failed', `Neo4j: ${message}`, { cause: error, retryable: true });
}

/**
 * The driver words "nothing listens there" as a routing-table dump (neo4j://) or a paragraph
 * about encryption settings (bolt://). Said plainly, with the address, and the driver's own
 * cause kept at the end.
 */
export function describeOpenFailure(error: WorkbenchError, url: string): WorkbenchError {
  if (error.code !== 'connection-failed' || !/Could not perform discovery|Failed to connect to server/.test(error.message)) return error;
  const cause = /Caused by: (.*)$/m.exec(error.message)?.[1];
  const detail = cause ?? (/No routing servers available/.test(error.message) ? 'no routing server answered' : 'no answer');
  return new WorkbenchError('connection-failed', `Neo4j: cannot reach ${url}: ${detail}`, { cause: error, retryable: true });
}
