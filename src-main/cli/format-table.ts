import type { CellValue, QueryResult } from '../contract/data';

/** An aligned plain-text table, numbers right-aligned, as a terminal user expects. */
export function formatTable(result: Pick<QueryResult, 'columns' | 'rows'>): string {
  const header = result.columns.map((column) => column.name);
  const body = result.rows.map((row) => row.map(formatValue));
  const widths = header.map((name, index) => Math.max(name.length, ...body.map((row) => (row[index] ?? '').length)));
  const numeric = header.map((_, index) => result.rows.length > 0 && result.rows.every((row) => typeof row[index] === 'number' || row[index] === null));
  const line = (cells: string[]): string =>
    cells
      .map((cell, index) => (numeric[index] ? cell.padStart(widths[index] ?? 0) : cell.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line)].join('\n');
}

export function formatValue(value: CellValue): string {
  if (value === null) return 'NULL';
  return String(value).replace(/\r?\n/g, '\\n');
}
