import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Connector, RowBatch } from '../connectors/connector';
import type { CellValue, ResultColumn } from '../contract/data';
import { delimitedLines } from '../contract/delimited-text';

/**
 * Text a spreadsheet would run as a formula (OWASP "CSV injection"). papaparse's own
 * `escapeFormulae: true` pattern ends in `.*$`, which misses a formula followed by a line break.
 */
const formulaStart = /^[=+\-@\t\r]/;

/**
 * CSV as RFC 4180 writes it: CRLF line ends, a field with a comma, quote or line break in
 * double quotes, quotes doubled (delimited-text.ts). A header line first; nulls are
 * empty fields. With `formulaSafe`, text cells that start like a formula get an apostrophe.
 */
export function csvLines(options: { formulaSafe: boolean }): (columns: ResultColumn[], rows: CellValue[][]) => string {
  let headerWritten = false;
  return (columns, rows) => {
    const header = !headerWritten;
    headerWritten = true;
    if (rows.length === 0 && !header) return '';
    return delimitedLines(
      columns.map((column) => column.name),
      rows,
      { delimiter: ',', newline: '\r\n', header, ...(options.formulaSafe ? { formulaStart } : {}) },
    );
  };
}

export interface CsvStreamOptions {
  formulaSafe: boolean;
  maxRows: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** Rows written so far, after each batch. */
  onProgress(rowCount: number): void;
}

/**
 * Runs a query and writes every row it reads to `sink` as CSV, batch by batch: the connector
 * waits while the sink drains, so memory stays bounded by one batch whatever the result's size.
 * A sink that closes early (a download the browser abandoned) cancels the query.
 */
export async function streamQueryAsCsv(connector: Connector, text: string, sink: Writable, options: CsvStreamOptions): Promise<{ rowCount: number; truncated: boolean }> {
  const toCsv = csvLines({ formulaSafe: options.formulaSafe });
  const sinkGone = new AbortController();
  const onClose = (): void => sinkGone.abort();
  sink.once('close', onClose);
  sink.once('error', onClose);
  const signal = AbortSignal.any([options.signal, sinkGone.signal]);
  let written = 0;
  let columns: ResultColumn[] = [];
  const write = async (chunk: string): Promise<void> => {
    if (chunk === '' || sink.write(chunk)) return;
    await once(sink, 'drain', { signal });
  };
  try {
    const onRows = async (batch: RowBatch): Promise<void> => {
      columns = batch.columns;
      await write(toCsv(batch.columns, batch.rows));
      written += batch.rows.length;
      options.onProgress(written);
    };
    const result = await connector.query(text, { maxRows: options.maxRows, timeoutMs: options.timeoutMs, signal, onRows, keepRows: 0 });
    // An empty result still gets its header line, from the columns the end reported.
    if (written === 0) await write(toCsv(columns.length > 0 ? columns : result.columns, []));
    return { rowCount: result.rowCount, truncated: result.truncated };
  } finally {
    sink.removeListener('close', onClose);
    sink.removeListener('error', onClose);
  }
}
