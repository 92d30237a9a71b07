import type { CellValue } from './data';

/**
 * Rows as delimited text (CSV, TSV): the one writer behind `dwb query --format csv|tsv`, the
 * streamed CSV exports and the notebook's "Export shown rows" and Copy. Quoted exactly as
 * papaparse's `unparse` quotes (a property test checks both give the same bytes): a field is put
 * in double quotes, its quotes doubled, when it holds a quote, CR, LF, a byte order mark or the
 * delimiter, or starts or ends with a space; null is an empty field. Every line, the last one
 * too, ends with the newline, so a last row of one empty cell is still a line. Written by hand
 * because papaparse's per-field checks (a replace, then five searches) were most of the CPU time
 * of streaming a million rows.
 */
export interface DelimitedTextOptions {
  delimiter: ',' | '\t';
  newline: '\n' | '\r\n';
  /** Text cells matching it are written with an apostrophe first, quoted (spreadsheet formula injection). */
  formulaStart?: RegExp;
}

const needsQuotesFor = {
  ',': /["\r\n\uFEFF,]|^ | $/,
  '\t': /["\r\n\uFEFF\t]|^ | $/,
} as const;

/**
 * A finite number's text, as String() writes it, made without V8's number-to-string cache:
 * String() keeps each result in that cache, so a stream of a million numbers keeps thousands
 * of short-lived strings reachable at every young-generation collection; they are promoted and
 * the heap grows by tens of megabytes (issue 29, measured with --trace-gc-nvp). JSON.stringify
 * writes the same digits straight into its result and caches nothing.
 */
export function numberText(value: number): string {
  return Number.isFinite(value) ? JSON.stringify(value) : String(value);
}

/** One field as papaparse's `unparse` writes it. */
export function delimitedField(value: CellValue | undefined, options: DelimitedTextOptions): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return numberText(value);
  if (typeof value !== 'string') return String(value);
  if (options.formulaStart?.test(value)) return `"'${value.replaceAll('"', '""')}"`;
  return needsQuotesFor[options.delimiter].test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** The lines of `rows`, each `names.length` fields wide and ended by the newline; a header line of `names` first when `header`. */
export function delimitedLines(names: readonly string[], rows: readonly (readonly CellValue[])[], options: DelimitedTextOptions & { header: boolean }): string {
  let text = options.header ? delimitedLine(names, names.length, options) : '';
  for (const row of rows) text += delimitedLine(row, names.length, options);
  return text;
}

/**
 * One line of `width` fields ended by the newline, each cell read through `cell` (so a caller
 * can pass an engine's raw row and convert each value as it is written).
 */
export function delimitedLine(
  cells: readonly unknown[],
  width: number,
  options: DelimitedTextOptions,
  cell: (value: unknown) => CellValue | undefined = (value) => value as CellValue | undefined,
): string {
  let line = '';
  for (let index = 0; index < width; index += 1) {
    if (index > 0) line += options.delimiter;
    line += delimitedField(index < cells.length ? cell(cells[index]) : undefined, options);
  }
  return line + options.newline;
}
