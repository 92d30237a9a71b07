import { WorkbenchError, type ErrorCode } from '../../contract/errors';

/** The error object of Trino's protocol (QueryError), as much of it as the connector reads. */
export interface TrinoQueryError {
  message: string;
  errorName?: string;
  errorType?: string;
  errorLocation?: { lineNumber: number; columnNumber: number };
}

/** A failed query as Trino reported it, kept so its error name decides the code. */
export class TrinoServerError extends Error {
  constructor(readonly detail: TrinoQueryError) {
    super(detail.message);
    this.name = 'TrinoServerError';
  }
}

/**
 * Trino's error names decide the code: READ_ONLY_VIOLATION is the read-only transaction refusing
 * a write and PERMISSION_DENIED the server's access control refusing one; the *_NOT_FOUND names
 * are what the query names and the server lacks. Anything that is not Trino's own answer (no
 * server, refused connection, bad HTTP status) is a connection failure.
 */
export function toWorkbenchError(error: unknown): WorkbenchError {
  if (error instanceof WorkbenchError) return error;
  if (error instanceof TrinoServerError) {
    const name = error.detail.errorName ?? '';
    return new WorkbenchError(codeForErrorName(name), `Trino: ${error.detail.message}${name === '' ? '' : ` (${name})`}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return new WorkbenchError('connection-failed', `Trino: ${message}${cause}`, { cause: error, retryable: true });
}

const unknownObjectNames = new Set([
  'TABLE_NOT_FOUND',
  'COLUMN_NOT_FOUND',
  'SCHEMA_NOT_FOUND',
  'CATALOG_NOT_FOUND',
  'FUNCTION_NOT_FOUND',
  'MISSING_TABLE',
  'MISSING_COLUMN_NAME',
  'MISSING_SCHEMA_NAME',
  'MISSING_CATALOG_NAME',
]);

function codeForErrorName(name: string): ErrorCode {
  if (name === 'READ_ONLY_VIOLATION' || name === 'PERMISSION_DENIED') return 'read-only';
  if (name === 'SYNTAX_ERROR') return 'syntax';
  if (unknownObjectNames.has(name)) return 'unknown-object';
  if (name === 'USER_CANCELED') return 'cancelled';
  if (name === 'EXCEEDED_TIME_LIMIT') return 'timeout';
  return 'query-failed';
}
