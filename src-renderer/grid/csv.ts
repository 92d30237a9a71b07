import Papa from 'papaparse';
import type { QueryResult } from '../../src-main/contract';

type Table = Pick<QueryResult, 'columns' | 'rows'>;

/**
 * CSV by papaparse (quoting, embedded newlines and delimiters handled by the library), every line
 * ended by CRLF as the streamed exports end theirs: papaparse leaves the last line open, and a
 * last row of one empty cell would then read as no row at all.
 */
export function toCsv(result: Table): string {
  const text = Papa.unparse({ fields: result.columns.map((column) => column.name), data: result.rows }, { newline: '\r\n' });
  // A header alone already comes with its line end.
  return result.rows.length === 0 ? text : `${text}\r\n`;
}

/** Tab-separated text, which spreadsheets paste as cells. */
export function toTsv(result: Table): string {
  return Papa.unparse({ fields: result.columns.map((column) => column.name), data: result.rows }, { delimiter: '\t', newline: '\n' });
}
