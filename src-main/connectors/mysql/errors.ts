import { WorkbenchError, type ErrorCode } from '../../contract/errors';

interface MysqlErrorShape {
  errno?: number;
  code?: string;
  sqlMessage?: string;
  message: string;
}

function isMysqlError(error: unknown): error is MysqlErrorShape {
  return error instanceof Error && ('errno' in error || 'sqlMessage' in error || 'code' in error);
}

/** Server error numbers the connector reacts to; everything else is 'query-failed'. */
const codeByErrno = new Map<number, ErrorCode>([
  [1792, 'read-only'], // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
  [1290, 'read-only'], // ER_OPTION_PREVENTS_STATEMENT (--read-only, --secure-file-priv)
  [1064, 'syntax'], // ER_PARSE_ERROR
  [1149, 'syntax'], // ER_SYNTAX_ERROR
  [1146, 'unknown-object'], // ER_NO_SUCH_TABLE
  [1054, 'unknown-object'], // ER_BAD_FIELD_ERROR (unknown column)
  [1305, 'unknown-object'], // ER_SP_DOES_NOT_EXIST (unknown function)
  [1969, 'timeout'], // ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)
  [3024, 'timeout'], // ER_QUERY_TIMEOUT (MySQL max_execution_time)
  [1317, 'cancelled'], // ER_QUERY_INTERRUPTED (KILL QUERY)
  [1049, 'not-found'], // ER_BAD_DB_ERROR
  [1045, 'connection-failed'], // ER_ACCESS_DENIED_ERROR
  [1040, 'connection-failed'], // ER_CON_COUNT_ERROR
  [1927, 'connection-failed'], // ER_CONNECTION_KILLED
]);

/** Maps a mysql2 error to a WorkbenchError, keeping the server's own message. */
export function toWorkbenchError(error: unknown): WorkbenchError {
  if (error instanceof WorkbenchError) return error;
  if (isMysqlError(error)) {
    const byErrno = error.errno !== undefined ? codeByErrno.get(error.errno) : undefined;
    // Errors without a server errno come from the socket or the driver (ECONNREFUSED, PROTOCOL_…).
    const code = byErrno ?? (error.sqlMessage === undefined ? 'connection-failed' : 'query-failed');
    return new WorkbenchError(code, `MySQL: ${error.sqlMessage ?? error.message}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new WorkbenchError('connection-failed', `MySQL: ${message}`, { cause: error, retryable: true });
}
