import type { QueryResult } from '../../src-main/contract';
import { toCsv } from './csv';

export { toTsv } from './csv';

/** Saves a result as a CSV file through the browser's (or Electron's) download flow. */
export function downloadCsv(result: Pick<QueryResult, 'columns' | 'rows'>, fileName: string): void {
  const url = URL.createObjectURL(new Blob([toCsv(result)], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName.endsWith('.csv') ? fileName : `${fileName}.csv`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
