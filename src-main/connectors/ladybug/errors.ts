import { WorkbenchError, type ErrorCode } from '../../contract/errors';

/** LadybugDB error messages start with their kind ("Parser exception: …"); the kind decides the code. */
const codeByKind: [pattern: RegExp, code: ErrorCode][] = [
  [/^Parser exception/i, 'syntax'],
  [/^Binder exception: (Table .* does not exist|Cannot find property|Function .* does not exist)/i, 'unknown-object'],
  [/read-only database|read only mode/i, 'read-only'],
  [/do not support prepare multiple statements/i, 'read-only'],
  [/^Interrupted/i, 'timeout'],
];

/**
 * LadybugDB ships full-text search, vector indexes and the like as extensions (Kùzu 0.11 had
 * some built in) and names the extension when a query calls one of their functions. The
 * connection refuses INSTALL and LOAD EXTENSION, so such a function can never run here.
 */
const extensionFunction = /^Catalog exception: function (\S+) is not defined\. This function exists in the (\S+) extension/i;

export function toWorkbenchError(error: unknown): WorkbenchError {
  if (error instanceof WorkbenchError) return error;
  const message = (error instanceof Error ? error.message : String(error)).trim();
  const extension = extensionFunction.exec(message);
  if (extension) {
    return new WorkbenchError(
      'read-only',
      `LadybugDB: ${extension[1] ?? ''} belongs to the ${extension[2] ?? ''} extension, and a read-only connection loads no extensions (INSTALL and LOAD EXTENSION are refused)`,
      { cause: error },
    );
  }
  const code = codeByKind.find(([pattern]) => pattern.test(message))?.[1] ?? 'query-failed';
  return new WorkbenchError(code, `LadybugDB: ${message}`, { cause: error });
}
