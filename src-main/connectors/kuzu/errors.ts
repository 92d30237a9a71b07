import { WorkbenchError, type ErrorCode } from '../../contract/errors';

/** Kùzu error messages start with their kind ("Parser exception: …"); the kind decides the code. */
const codeByKind: [pattern: RegExp, code: ErrorCode][] = [
  [/^Parser exception/i, 'syntax'],
  [/^Binder exception: (Table .* does not exist|Cannot find property|Function .* does not exist)/i, 'unknown-object'],
  [/read-only database|read only mode/i, 'read-only'],
  [/do not support prepare multiple statements/i, 'read-only'],
  [/^Interrupted/i, 'timeout'],
];

export function toWorkbenchError(error: unknown): WorkbenchError {
  if (error instanceof WorkbenchError) return error;
  const message = (error instanceof Error ? error.message : String(error)).trim();
  const code = codeByKind.find(([pattern]) => pattern.test(message))?.[1] ?? 'query-failed';
  return new WorkbenchError(code, `Kùzu: ${message}`, { cause: error });
}
