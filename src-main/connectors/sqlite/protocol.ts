/** Messages the SQLite connector sends to its worker thread. */
export type SqliteRequest =
  | { type: 'schema' }
  | { type: 'query'; text: string; params?: Record<string, unknown>; maxRows: number };
