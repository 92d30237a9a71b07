import type { Cell } from '../../src-main/contract';

/** A run's query is named as in its report (q1, q2 …); other cells have no such name. */
export function queryLabelOf(cell: Cell): string | null {
  const data: unknown = (cell as { data?: unknown }).data;
  if (!data || typeof data !== 'object') return null;
  const label = (data as Record<string, unknown>)['queryId'];
  return cell.kind === 'query' && typeof label === 'string' ? label : null;
}
