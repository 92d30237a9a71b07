/** Messages the Kùzu connector sends to its worker process (see ./worker.ts). */
export type KuzuRequest =
  | { type: 'open' }
  | { type: 'schema' }
  | { type: 'query'; text: string; params?: Record<string, unknown>; maxRows: number; timeoutMs: number };
