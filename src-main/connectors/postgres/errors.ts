import pg from 'pg';

import { WorkbenchError, type ErrorCode } from '../../contract/errors';

/**
 * Maps a PostgreSQL error to a WorkbenchError, keeping the server's own message. SQLSTATE
 * classes decide the code: 25006 is the read-only transaction refusing a write, 42601 a syntax
 * error, 57014 a cancelled statement, 08/28 connection and authentication failures.
 */
export function toWorkbenchError(error: unknown): WorkbenchError {
  if (error instanceof WorkbenchError) return error;
  if (error instanceof pg.DatabaseError) {
    const code = codeForSqlState(error.code ?? '', error.message);
    const position = error.position !== undefined && code === 'syntax' ? ` (at character ${error.position})` : '';
    // The server's own hint ("Perhaps you meant to reference the column …") is worth keeping.
    const hint = code === 'unknown-object' && error.hint ? ` (${error.hint})` : '';
    return new WorkbenchError(code, `PostgreSQL: ${error.message}${position}${hint}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  // node-postgres says this when the server asks for a password and the connection has none.
  if (/client password must be a string/i.test(message)) {
    return new WorkbenchError(
      'connection-failed',
      'PostgreSQL: the server asks for a password and the connection has none (add it to the connection; on the command line use --password-file F or DWB_DB_PASSWORD)',
      { cause: error },
    );
  }
  // Anything else comes from the socket or the client library: the server is unreachable.
  return new WorkbenchError('connection-failed', `PostgreSQL: ${message}`, { cause: error, retryable: true });
}

function codeForSqlState(sqlState: string, message: string): ErrorCode {
  if (sqlState === '25006') return 'read-only';
  if (sqlState === '42601') return 'syntax';
  // undefined table, column, function, object, schema: the query names what the database lacks.
  if (['42P01', '42703', '42883', '42704', '3F000'].includes(sqlState)) return 'unknown-object';
  if (sqlState === '57014') return message.includes('statement timeout') ? 'timeout' : 'cancelled';
  if (sqlState === '3D000') return 'not-found';
  if (sqlState.startsWith('08') || sqlState.startsWith('28') || sqlState.startsWith('57P')) return 'connection-failed';
  return 'query-failed';
}
