import type { CellValue, ResultColumn } from '../../contract/data';

/** Messages the SQLite connector sends to its worker process. */
export type SqliteRequest =
  | { type: 'schema' }
  | { type: 'query'; text: string; params?: Record<string, unknown>; maxRows: number }
  /**
   * A streamed query: the worker answers with `SqliteBatch` messages, each sent only after the
   * parent asked for it with `SqliteNext` (so a slow consumer holds the worker, not memory), then
   * with the usual reply whose value is `SqliteStreamEnd`.
   */
  | { type: 'stream'; text: string; params?: Record<string, unknown>; maxRows: number; batchSize: number };

/** Asks for the next batch of the streamed query `id`. */
export interface SqliteNext {
  type: 'next';
  id: number;
}

export interface SqliteBatch {
  id: number;
  batch: { columns: ResultColumn[]; rows: CellValue[][] };
}

export interface SqliteStreamEnd {
  columns: ResultColumn[];
  truncated: boolean;
  elapsedMs: number;
}
