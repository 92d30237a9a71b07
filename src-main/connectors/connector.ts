import type { Dialect, Engine, QueryResult, SchemaInfo } from '../contract/data';

export interface QueryOptions {
  /** Rows to keep; the connector stops reading after one more to know the result was cut. */
  maxRows: number;
  /** Wall-clock limit; the query is abandoned (and its worker or session ended) past it. */
  timeoutMs: number;
  /** Named parameters, bound by the engine (never spliced into the text). */
  params?: Record<string, unknown>;
  signal?: AbortSignal;
}

/**
 * One open database. Every connector is read-only by construction: the engine itself refuses
 * writes (read-only opens, read-only transactions or sessions), so a query text can never
 * change data whatever it says. Failures are WorkbenchErrors with a specific code.
 */
export interface Connector {
  readonly engine: Engine;
  readonly dialect: Dialect;
  /**
   * Loud warnings about how this connection was made (e.g. a privileged PostgreSQL login
   * allowed by explicit opt-in); shown with a connection test and on the CLI's stderr.
   */
  readonly warnings?: readonly string[];
  schema(): Promise<SchemaInfo>;
  query(text: string, options: QueryOptions): Promise<QueryResult>;
  close(): Promise<void>;
}

export const defaultQueryOptions = { maxRows: 1000, timeoutMs: 30_000 } as const satisfies QueryOptions;
