import type { CellValue, QueryResult } from '../contract/data';

/** What the model sees of a result: enough rows to reason on, within a fixed budget. */
export interface ObservationLimits {
  maxRows: number;
  maxChars: number;
}

export const defaultObservationLimits: ObservationLimits = { maxRows: 60, maxChars: 6000 };

/**
 * A compact text table with the row count and whether rows were cut, e.g.
 *
 *     rows: 3 (complete)
 *     trade_node | local_value
 *     krakow | 2.5
 */
export function formatObservation(result: QueryResult, limits: ObservationLimits = defaultObservationLimits): string {
  const header = result.columns.map((column) => column.name).join(' | ');
  const lines: string[] = [];
  let size = header.length;
  for (const row of result.rows.slice(0, limits.maxRows)) {
    const line = row.map(formatValue).join(' | ');
    if (size + line.length + 1 > limits.maxChars) break;
    lines.push(line);
    size += line.length + 1;
  }
  const shown = lines.length;
  const status = result.truncated
    ? `rows: ${result.rowCount} shown of more (the query hit the row cap of ${result.rowCount}; aggregate or filter to see everything)`
    : `rows: ${result.rowCount} (complete)`;
  const cut = shown < result.rowCount ? `\n… ${result.rowCount - shown} more rows not shown; aggregate, filter or use LIMIT/OFFSET to see them` : '';
  if (result.columns.length === 0) return `${status}\n(no columns)`;
  return `${status}\n${header}\n${lines.join('\n')}${cut}`;
}

function formatValue(value: CellValue): string {
  if (value === null) return 'NULL';
  return String(value).replace(/\s*\n\s*/g, ' ');
}
