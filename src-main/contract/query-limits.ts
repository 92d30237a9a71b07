/**
 * A query's settings' bounds and defaults, apart from the notebook's schemas so that `dwb
 * query` can read them without loading zod.
 */

/** Upper bounds of a query's settings, documented in docs/data-sources.md. */
export const querySettingsLimits = { maxRows: 1_000_000, timeoutMs: 24 * 3600_000 } as const;
/** The shortest timeout a query may have, in milliseconds. */
export const minQueryTimeoutMs = 100;
/** A new query cell's settings (and `dwb query`'s without --max-rows and --timeout-ms). */
export const defaultQuerySettings: { maxRows: number; timeoutMs: number } = { maxRows: 1000, timeoutMs: 30_000 };
