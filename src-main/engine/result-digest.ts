import { createHash } from 'node:crypto';
import type { QueryResult } from '../contract/data';

/** sha256 over the columns and rows of a result, independent of timing fields. */
export function resultDigest(result: Pick<QueryResult, 'columns' | 'rows'>): string {
  return createHash('sha256').update(JSON.stringify({ columns: result.columns, rows: result.rows })).digest('hex');
}
