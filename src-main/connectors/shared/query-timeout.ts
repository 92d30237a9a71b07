import { WorkbenchError } from '../../contract/errors';

/**
 * The failure of a query stopped at its time limit, worded the same wherever it is stopped (the
 * worker host, `dwb query`'s in-process SQLite read). A module of its own so that a reader
 * which needs only the wording does not load the worker host and, with it, child_process.
 */
export function queryTimedOut(timeoutMs: number): WorkbenchError {
  return new WorkbenchError('timeout', `Query timed out after ${formatSeconds(timeoutMs)}`);
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
