import { WorkbenchError } from '../../contract/errors';

/**
 * An error met while opening a connection. Whatever the engine's error mapper would call a
 * failed query is, at this point, a connection that could not be made.
 */
export function openFailure(mapped: WorkbenchError, cause: unknown): WorkbenchError {
  return mapped.code === 'query-failed' ? new WorkbenchError('connection-failed', mapped.message, { cause }) : mapped;
}
