import type { CellValue, ResultColumn } from '../contract/data';
import { delimitedLines } from '../contract/delimited-text';

/** The formats `dwb query` streams, one batch of rows at a time. */
export const streamFormats = ['csv', 'tsv', 'jsonl'] as const;
export type StreamFormat = (typeof streamFormats)[number];

/**
 * Turns each batch of rows into the text to write: CSV (RFC 4180 quoting, as papaparse quotes) and TSV
 * with a header line first, JSON lines one object per row. Nulls are empty fields in CSV/TSV.
 */
export function rowWriter(format: StreamFormat): (columns: ResultColumn[], rows: CellValue[][]) => string {
  let headerWritten = false;
  return (columns, rows) => {
    const names = columns.map((column) => column.name);
    if (format === 'jsonl') return rows.map((row) => `${JSON.stringify(Object.fromEntries(names.map((name, index) => [name, row[index] ?? null])))}\n`).join('');
    const header = !headerWritten;
    headerWritten = true;
    if (rows.length === 0 && !header) return '';
    return delimitedLines(names, rows, { delimiter: format === 'csv' ? ',' : '\t', newline: '\n', header });
  };
}
