import type { CellValue, Dialect, Engine, QueryResult, ResultColumn, SchemaInfo } from '../contract/data';

/** Rows read so far, in order, with the result's columns. */
export interface RowBatch {
  columns: ResultColumn[];
  rows: CellValue[][];
}

export interface QueryOptions {
  /** Rows to keep; the connector stops reading after one more to know the result was cut. */
  maxRows: number;
  /** Wall-clock limit; the query is abandoned (and its worker or session ended) past it. */
  timeoutMs: number;
  /** Named parameters, bound by the engine (never spliced into the text). */
  params?: Record<string, unknown>;
  signal?: AbortSignal;
  /**
   * Streams the result: receives each batch of rows as it is read, in order, and reading waits
   * while a returned promise is pending (the consumer's backpressure). With it, the returned
   * result keeps only the first `keepRows` rows (default 0) as a preview, and `rowCount` still
   * counts every row read.
   */
  onRows?: (batch: RowBatch) => void | Promise<void>;
  keepRows?: number;
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
  /**
   * True when `query` honours `onRows` while it reads (bounded memory); openConnector gives the
   * others a wrapper that reads the capped result first and then hands it over in batches.
   */
  readonly streamsRows?: boolean;
  schema(): Promise<SchemaInfo>;
  query(text: string, options: QueryOptions): Promise<QueryResult>;
  close(): Promise<void>;
}

export const defaultQueryOptions = { maxRows: 1000, timeoutMs: 30_000 } as const satisfies QueryOptions;
