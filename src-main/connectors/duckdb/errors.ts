import { WorkbenchError, type ErrorCode } from '../../contract/errors';

/**
 * DuckDB errors carry their class in the message ("Parser Error: …", "Permission Error: …").
 * The class decides the code; the message is kept whole.
 */
const codeByClass: [pattern: RegExp, code: ErrorCode][] = [
  [/Parser Error/, 'syntax'],
  // Unknown tables, columns and functions are not typos of SQL.
  [/^Catalog Error: .* does not exist/, 'unknown-object'],
  [/^Binder Error: Referenced (column|table) .* not found/, 'unknown-object'],
  [/^Permission Error/, 'read-only'],
  [/read-only mode|attached in read-only|Cannot execute statement of type .* in read-only|configuration has been locked/i, 'read-only'],
  [/^INTERRUPT Error|Interrupted/i, 'cancelled'],
  [/^IO Error: .*(does not exist|No such file)/, 'not-found'],
];

export function toWorkbenchError(error: unknown): WorkbenchError {
  if (error instanceof WorkbenchError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = codeByClass.find(([pattern]) => pattern.test(message))?.[1] ?? 'query-failed';
  return new WorkbenchError(code, `DuckDB: ${message}`, { cause: error });
}
