/** Messages the Kùzu connector sends to its worker process (see ./worker.ts). */
export type KuzuRequest =
  | { type: 'open' }
  | { type: 'schema' }
  | { type: 'query'; text: string; params?: Record<string, unknown>; maxRows: number; timeoutMs: number }
  /** Streamed: the worker sends `{ id, batch }` messages, each after the parent asked with `{ type: 'next', id }` for the one before. */
  | { type: 'stream'; text: string; params?: Record<string, unknown>; maxRows: number; timeoutMs: number; batchSize: number };

export interface KuzuNext {
  type: 'next';
  id: number;
}
