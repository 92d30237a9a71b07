import type { CellValue, ResultColumn } from '../contract/data';
import { delimitedLine, type DelimitedTextOptions } from '../contract/delimited-text';

/** The formats `dwb query` streams, one batch of rows at a time. */
export const streamFormats = ['csv', 'tsv', 'jsonl'] as const;
export type StreamFormat = (typeof streamFormats)[number];

/** One result's text, a row at a time: the header line (empty for JSON lines) and each row's line. */
export interface RowLineEncoder {
  readonly header: string;
  line(row: readonly unknown[]): string;
}

/**
 * The line encoder of `format` for columns named `names`, reading each cell of a row through
 * `cell` (so a reader can hand over the engine's own row array, converted cell by cell, without
 * building a second array of cells). CSV (RFC 4180 quoting, as papaparse quotes) and TSV lines
 * leave nulls empty; a JSON line is the object `Object.fromEntries(names → cells)` would
 * stringify to, written without building it.
 */
export function rowLineEncoder(format: StreamFormat, names: readonly string[], cell: (value: unknown) => CellValue = (value) => value as CellValue): RowLineEncoder {
  if (format === 'jsonl') return { header: '', line: jsonLineEncoder(names, cell) };
  const options: DelimitedTextOptions = { delimiter: format === 'csv' ? ',' : '\t', newline: '\n' };
  return {
    header: delimitedLine(names, names.length, options),
    line: (row) => delimitedLine(row, names.length, options, cell),
  };
}

/**
 * A row as the JSON object keyed by column name: keys in the order a JavaScript object keeps
 * them (integer-like names first), a repeated name holding its last column's cell, a missing
 * cell null — exactly what stringifying `Object.fromEntries` of the pairs gives.
 */
function jsonLineEncoder(names: readonly string[], cell: (value: unknown) => CellValue): (row: readonly unknown[]) => string {
  const lastIndexOf = Object.fromEntries(names.map((name, index) => [name, index])) as Record<string, number>;
  const keys = Object.keys(lastIndexOf);
  const prefixes = keys.map((key, position) => `${position === 0 ? '{' : ','}${JSON.stringify(key)}:`);
  const indexes = keys.map((key) => lastIndexOf[key] as number);
  if (keys.length === 0) return () => '{}\n';
  return (row) => {
    let line = '';
    for (let position = 0; position < indexes.length; position += 1) {
      const index = indexes[position] as number;
      line += prefixes[position] + JSON.stringify(index < row.length ? (cell(row[index]) ?? null) : null);
    }
    return `${line}}\n`;
  };
}

/**
 * Turns each batch of rows into the text to write: CSV and TSV with a header line first, JSON
 * lines one object per row (see rowLineEncoder).
 */
export function rowWriter(format: StreamFormat): (columns: ResultColumn[], rows: CellValue[][]) => string {
  let headerWritten = false;
  let encoder: { names: string; value: RowLineEncoder } | null = null;
  return (columns, rows) => {
    const names = columns.map((column) => column.name);
    const key = JSON.stringify(names);
    if (encoder?.names !== key) encoder = { names: key, value: rowLineEncoder(format, names) };
    const header = !headerWritten && format !== 'jsonl';
    headerWritten = true;
    let text = header ? encoder.value.header : '';
    for (const row of rows) text += encoder.value.line(row);
    return text;
  };
}
