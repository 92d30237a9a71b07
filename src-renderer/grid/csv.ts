import Papa from 'papaparse';
import type { QueryResult } from '../../src-main/contract';

type Table = Pick<QueryResult, 'columns' | 'rows'>;

/** CSV by papaparse (quoting, embedded newlines and delimiters handled by the library). */
export function toCsv(result: Table): string {
  return Papa.unparse({ fields: result.columns.map((column) => column.name), data: result.rows }, { newline: '\r\n' });
}

/** Tab-separated text, which spreadsheets paste as cells. */
export function toTsv(result: Table): string {
  return Papa.unparse({ fields: result.columns.map((column) => column.name), data: result.rows }, { delimiter: '\t', newline: '\n' });
}
