/** Messages the LadybugDB connector sends to its worker process (see ./worker.ts). */
export type LadybugRequest =
  | { type: 'open' }
  | { type: 'schema' }
  | { type: 'query'; text: string; params?: Record<string, unknown>; maxRows: number; timeoutMs: number }
  /** Streamed: the worker sends `{ id, batch }` messages, each after the parent asked with `{ type: 'next', id }` for the one before. */
  | { type: 'stream'; text: string; params?: Record<string, unknown>; maxRows: number; timeoutMs: number; batchSize: number };

export interface LadybugNext {
  type: 'next';
  id: number;
}
