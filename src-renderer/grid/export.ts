import Papa from 'papaparse';
import type { QueryResult } from '../../src-main/contract';

/** CSV by papaparse (quoting, embedded newlines and delimiters handled by the library). */
export function toCsv(result: Pick<QueryResult, 'columns' | 'rows'>): string {
  return Papa.unparse({ fields: result.columns.map((column) => column.name), data: result.rows }, { newline: '\r\n' });
}

export function toTsv(result: Pick<QueryResult, 'columns' | 'rows'>): string {
  return Papa.unparse({ fields: result.columns.map((column) => column.name), data: result.rows }, { delimiter: '\t', newline: '\n' });
}

export function downloadCsv(result: Pick<QueryResult, 'columns' | 'rows'>, fileName: string): void {
  const url = URL.createObjectURL(new Blob([toCsv(result)], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName.endsWith('.csv') ? fileName : `${fileName}.csv`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
