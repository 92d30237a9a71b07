/** A statement with its parameters bound to positions, as the SQL servers take it. */
export interface BoundQuery {
  text: string;
  values: unknown[];
}

/** One statement for a server connector's read-only transaction. */
export interface ReadOnlyRun extends BoundQuery {
  /** Rows to read at most (the row cap plus one, to know the result was cut). */
  rowLimit: number;
  timeoutMs: number;
  /** Checked once the transaction has begun: an interruption that arrived meanwhile skips the statement. */
  shouldStop?: () => boolean;
}
