/**
 * Machine-readable reasons a request can fail. They cross the process border unchanged so
 * the renderer, the CLI and the tests can react to the reason rather than parse messages.
 */
export const errorCodes = [
  'invalid-request',
  'invalid-uri',
  'not-found',
  'read-only',
  'syntax',
  /** The query names a table, column, function or label the database does not have. */
  'unknown-object',
  'query-failed',
  'timeout',
  'cancelled',
  'connection-failed',
  'unsupported',
  'conflict',
  'internal',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

/**
 * A WorkbenchError as it crosses a process border. Its zod schema (for contracts that embed
 * it) is `workbenchErrorSchema` in error-schema.ts: this module stays free of zod, because
 * every CLI command loads it and zod costs ~30 ms of start-up.
 */
export interface SerializedError {
  name: 'WorkbenchError';
  code: ErrorCode;
  message: string;
  /** True when the same request may succeed later (a timeout, a busy server). */
  retryable: boolean;
}

/** Checks a value received from another process (what workbenchErrorSchema accepts). */
function isSerializedError(data: unknown): data is SerializedError {
  if (typeof data !== 'object' || data === null) return false;
  const record = data as Record<string, unknown>;
  return (
    record['name'] === 'WorkbenchError' &&
    typeof record['code'] === 'string' &&
    (errorCodes as readonly string[]).includes(record['code']) &&
    typeof record['message'] === 'string' &&
    typeof record['retryable'] === 'boolean'
  );
}

/** The one error type that crosses the contract: serialized by transports, revived by clients. */
export class WorkbenchError extends Error {
  override readonly name = 'WorkbenchError';
  readonly code: ErrorCode;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? code === 'timeout';
  }

  toJSON(): SerializedError {
    return { name: 'WorkbenchError', code: this.code, message: this.message, retryable: this.retryable };
  }

  static revive(data: unknown): WorkbenchError {
    if (!isSerializedError(data)) return new WorkbenchError('internal', 'Malformed error from the workbench service');
    return new WorkbenchError(data.code, data.message, { retryable: data.retryable });
  }

  /** Wraps anything thrown into a WorkbenchError without hiding its message. */
  static from(error: unknown): WorkbenchError {
    if (error instanceof WorkbenchError) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new WorkbenchError('internal', message, { cause: error });
  }
}

/** The usual reasons a file cannot be read or written, in words; the system's code follows in brackets. */
const fileErrorWords: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  ELOOP: 'the path goes round a loop of symbolic links',
  ENAMETOOLONG: 'the path is too long',
  EMFILE: 'too many open files',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
};

/** Why a file operation failed, for a message: "no such file (ENOENT)", else the error's own text. */
export function fileErrorReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  // Node refuses such a path before asking the system, in words of its own API.
  if (code === 'ERR_INVALID_ARG_VALUE' && error instanceof Error && error.message.includes('null bytes')) return 'the path holds a NUL character, which no file name can';
  const words = typeof code === 'string' ? fileErrorWords[code] : undefined;
  if (words !== undefined) return `${words} (${code})`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The code for a file a request named that could not be read: `not-found` when nothing is there
 * (ENOENT, or ENOTDIR: a part of the path is a file), `invalid-request` for a path that names the
 * wrong thing (a folder, a pipe or device, a file too big, not UTF-8, not permitted).
 */
export function fileErrorCode(error: unknown): ErrorCode {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' ? 'not-found' : 'invalid-request';
}
