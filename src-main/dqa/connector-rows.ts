/**
 * Whole-table reads through a Connector for the DQA loaders. A simulator needs every row, so a
 * result cut at the row cap is an error, never silently partial data.
 */
import type { CellValue } from '../contract/data';
import type { Connector } from '../connectors/connector';
import { DqaDataError } from './load-values';

/**
 * Far above the largest DQA table (a few thousand node_country rows); a table past it is not a
 * DQA scenario database and is refused rather than loaded in part.
 */
export const LOADER_MAX_ROWS = 500_000;

/** A slow server or a busy disk may need time, but a loader must not hang forever. */
export const LOADER_TIMEOUT_MS = 120_000;

/** One result row keyed by column name (as the query aliased it). */
export type CellRow = Readonly<Record<string, CellValue>>;

export interface ReadRowsResult {
  columns: string[];
  rows: CellRow[];
}

/** Runs `text` and returns every row; `what` names the read in error messages. */
export async function readAllRows(connector: Connector, text: string, what: string, params?: Record<string, unknown>): Promise<ReadRowsResult> {
  const result = await connector.query(text, { maxRows: LOADER_MAX_ROWS, timeoutMs: LOADER_TIMEOUT_MS, ...(params ? { params } : {}) });
  if (result.truncated) {
    throw new DqaDataError(`${what}: more than ${LOADER_MAX_ROWS} rows; refusing to simulate on a partial read`);
  }
  const columns = result.columns.map((column) => column.name);
  const rows = result.rows.map((values) => {
    const row: Record<string, CellValue> = {};
    columns.forEach((name, index) => {
      row[name] = values[index] ?? null;
    });
    return row;
  });
  return { columns, rows };
}
