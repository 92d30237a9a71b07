import kuzu, { type Connection, type KuzuValue, type QueryResult as KuzuResult } from 'kuzu';

import type { CellValue, QueryResult, ResultColumn, SchemaInfo } from '../../contract/data';
import { WorkbenchError } from '../../contract/errors';
import { toKuzuCell } from './cell-values';
import { toWorkbenchError } from './errors';
import { explainTextFor } from '../shared/cypher-text';
import { checkKuzuPlan } from './plan-check';
import { readKuzuSchema } from './schema';

/** Schema reads get a bound too, so a huge database cannot hang the schema browser. */
const schemaTimeoutMs = 60_000;

interface Rows {
  names: string[];
  types: string[];
  rows: KuzuValue[][];
}

/**
 * Opens the database read-only: Kùzu then refuses every change to the graph and its schema.
 * The objects are never closed explicitly: Kùzu 0.11's Node binding can crash the process when
 * the garbage collector later finalises an explicitly closed Database, and this process only
 * ever ends by exiting or being killed, which releases everything anyway.
 */
export async function openReadOnlyKuzu(path: string, bufferPoolBytes: number): Promise<Connection> {
  try {
    const database = new kuzu.Database(path, bufferPoolBytes, true, true);
    await database.init();
    const connection = new kuzu.Connection(database);
    await connection.init();
    return connection;
  } catch (error) {
    throw new WorkbenchError('connection-failed', toWorkbenchError(error).message, { cause: error });
  }
}

/** Prepares one statement (Kùzu refuses to prepare several) and reads at most `limit` rows. */
async function readRows(connection: Connection, text: string, params: Record<string, KuzuValue>, limit: number): Promise<Rows> {
  const prepared = await connection.prepare(text);
  if (!prepared.isSuccess()) throw new Error(prepared.getErrorMessage());
  const outcome = await connection.execute(prepared, params);
  const results: KuzuResult[] = Array.isArray(outcome) ? outcome : [outcome];
  const result = results[results.length - 1];
  if (result === undefined) return { names: [], types: [], rows: [] };
  try {
    const names = await result.getColumnNames();
    const types = await result.getColumnDataTypes();
    const rows: KuzuValue[][] = [];
    while (rows.length < limit && result.hasNext()) {
      const row = await result.getNext();
      if (row === null) break;
      rows.push(names.map((name) => row[name] ?? null));
    }
    return { names, types, rows };
  } finally {
    for (const each of results) each.close();
  }
}

/**
 * Second protection layer, decided by Kùzu: the query must prepare as written (syntax errors
 * and write refusals then quote the user's text), and its EXPLAIN plan (nothing executes) must
 * only read (see plan-check.ts).
 */
async function vet(connection: Connection, text: string, params: Record<string, KuzuValue>): Promise<void> {
  const prepared = await connection.prepare(text);
  if (!prepared.isSuccess()) throw new Error(prepared.getErrorMessage());
  const plan = await readRows(connection, explainTextFor(text), params, 10);
  for (const row of plan.rows) checkKuzuPlan(row.map(String).join('\n'));
}

export async function runVettedQuery(
  connection: Connection,
  text: string,
  options: { params?: Record<string, unknown>; maxRows: number; timeoutMs: number; batches?: KuzuBatches },
): Promise<QueryResult> {
  const started = performance.now();
  const params = (options.params ?? {}) as Record<string, KuzuValue>;
  try {
    // Kùzu's own limit; the parent kills this process if Kùzu overruns it.
    connection.setQueryTimeout(Math.max(1, Math.round(options.timeoutMs)));
    await vet(connection, text, params);
    if (options.batches) return await streamVettedRows(connection, text, params, options.maxRows, options.batches, started);
    const result = await readRows(connection, text, params, options.maxRows + 1);
    const kept = result.rows.slice(0, options.maxRows);
    return {
      columns: result.names.map((name, index) => ({ name, type: result.types[index] ?? '' })),
      rows: kept.map((row) => row.map((value, index) => toKuzuCell(value, result.types[index] ?? ''))),
      rowCount: kept.length,
      truncated: result.rows.length > options.maxRows,
      elapsedMs: performance.now() - started,
    };
  } catch (error) {
    throw toWorkbenchError(error);
  }
}

/** Streaming: each full batch of cells goes to `onBatch`, and reading waits until it settled. */
export interface KuzuBatches {
  batchSize: number;
  onBatch(columns: ResultColumn[], rows: CellValue[][]): Promise<void>;
}

/** Reads the result batch by batch (the row past the cap marks it truncated and is not sent); the rows went to the batches. */
async function streamVettedRows(
  connection: Connection,
  text: string,
  params: Record<string, KuzuValue>,
  maxRows: number,
  batches: KuzuBatches,
  started: number,
): Promise<QueryResult> {
  const prepared = await connection.prepare(text);
  if (!prepared.isSuccess()) throw new Error(prepared.getErrorMessage());
  const outcome = await connection.execute(prepared, params);
  const results: KuzuResult[] = Array.isArray(outcome) ? outcome : [outcome];
  const result = results[results.length - 1];
  if (result === undefined) return { columns: [], rows: [], rowCount: 0, truncated: false, elapsedMs: performance.now() - started };
  try {
    const names = await result.getColumnNames();
    const types = await result.getColumnDataTypes();
    const columns = names.map((name, index) => ({ name, type: types[index] ?? '' }));
    const toCells = (row: Record<string, KuzuValue>): CellValue[] => names.map((name, index) => toKuzuCell(row[name] ?? null, types[index] ?? ''));
    let batch: CellValue[][] = [];
    let rowCount = 0;
    let truncated = false;
    while (result.hasNext()) {
      const row = await result.getNext();
      if (row === null) break;
      if (rowCount === maxRows) {
        truncated = true;
        break;
      }
      rowCount += 1;
      batch.push(toCells(row));
      if (batch.length === batches.batchSize) {
        await batches.onBatch(columns, batch);
        batch = [];
      }
    }
    if (batch.length > 0) await batches.onBatch(columns, batch);
    return { columns, rows: [], rowCount, truncated, elapsedMs: performance.now() - started };
  } finally {
    for (const each of results) each.close();
  }
}

export async function readSchema(connection: Connection): Promise<SchemaInfo> {
  try {
    connection.setQueryTimeout(schemaTimeoutMs);
    return await readKuzuSchema(async (cypher) => {
      const result = await readRows(connection, cypher, {}, 1_000_000);
      return result.rows.map((row) => Object.fromEntries(result.names.map((name, index) => [name, row[index]])));
    });
  } catch (error) {
    throw toWorkbenchError(error);
  }
}
