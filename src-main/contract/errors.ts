import { z } from 'zod';

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

export const workbenchErrorSchema = z.object({
  name: z.literal('WorkbenchError'),
  code: z.enum(errorCodes),
  message: z.string(),
  /** True when the same request may succeed later (a timeout, a busy server). */
  retryable: z.boolean(),
});
export type SerializedError = z.infer<typeof workbenchErrorSchema>;

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
    const parsed = workbenchErrorSchema.safeParse(data);
    if (!parsed.success) return new WorkbenchError('internal', 'Malformed error from the workbench service');
    return new WorkbenchError(parsed.data.code, parsed.data.message, { retryable: parsed.data.retryable });
  }

  /** Wraps anything thrown into a WorkbenchError without hiding its message. */
  static from(error: unknown): WorkbenchError {
    if (error instanceof WorkbenchError) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new WorkbenchError('internal', message, { cause: error });
  }
}
