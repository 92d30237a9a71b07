import lbug, { type Connection, type LbugValue, type QueryResult as LbugResult } from '@ladybugdb/core';

import type { CellValue, QueryResult, ResultColumn, SchemaInfo } from '../../contract/data';
import { WorkbenchError } from '../../contract/errors';
import { toLadybugCell } from './cell-values';
import { toWorkbenchError } from './errors';
import { explainTextFor } from '../shared/cypher-text';
import { checkLadybugPlan } from './plan-check';
import { readLadybugSchema } from './schema';

/** Schema reads get a bound too, so a huge database cannot hang the schema browser. */
const schemaTimeoutMs = 60_000;

interface Rows {
  names: string[];
  types: string[];
  rows: LbugValue[][];
}

/**
 * Opens the database read-only: LadybugDB then refuses every change to the graph and its schema.
 * The objects are never closed explicitly: this process only ever ends by exiting or being
 * killed, which releases everything anyway (and Kùzu's binding, which LadybugDB's continues,
 * could crash when the garbage collector finalised an explicitly closed Database).
 */
export async function openReadOnlyLadybug(path: string, bufferPoolBytes: number): Promise<Connection> {
  try {
    const database = new lbug.Database(path, bufferPoolBytes, true, true);
    await database.init();
    const connection = new lbug.Connection(database);
    await connection.init();
    return connection;
  } catch (error) {
    throw new WorkbenchError('connection-failed', toWorkbenchError(error).message, { cause: error });
  }
}

/** Prepares one statement (LadybugDB refuses to prepare several) and reads at most `limit` rows. */
async function readRows(connection: Connection, text: string, params: Record<string, LbugValue>, limit: number): Promise<Rows> {
  const prepared = await connection.prepare(text);
  if (!prepared.isSuccess()) throw new Error(prepared.getErrorMessage());
  const outcome = await connection.execute(prepared, params);
  const results: LbugResult[] = Array.isArray(outcome) ? outcome : [outcome];
  const result = results[results.length - 1];
  if (result === undefined) return { names: [], types: [], rows: [] };
  try {
    const names = await result.getColumnNames();
    const types = await result.getColumnDataTypes();
    const rows: LbugValue[][] = [];
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
 * Second protection layer, decided by LadybugDB: the query must prepare as written (syntax
 * errors and write refusals then quote the user's text), the engine must call the prepared
 * statement read-only, and its EXPLAIN plan (nothing executes) must only read (see
 * plan-check.ts: LadybugDB calls COPY TO, ATTACH or INSTALL "read-only" too, as they leave the
 * graph unchanged, so its verdict alone is not enough).
 */
async function vet(connection: Connection, text: string, params: Record<string, LbugValue>): Promise<void> {
  const prepared = await connection.prepare(text);
  if (!prepared.isSuccess()) throw new Error(prepared.getErrorMessage());
  if (!prepared.isReadOnly()) throw new WorkbenchError('read-only', 'LadybugDB: the statement changes the database (only reading queries run)');
  const plan = await readRows(connection, explainTextFor(text), params, 10);
  for (const row of plan.rows) checkLadybugPlan(row.map(String).join('\n'));
}

export async function runVettedQuery(
  connection: Connection,
  text: string,
  options: { params?: Record<string, unknown>; maxRows: number; timeoutMs: number; batches?: LadybugBatches },
): Promise<QueryResult> {
  const started = performance.now();
  const params = (options.params ?? {}) as Record<string, LbugValue>;
  try {
    // LadybugDB's own limit; the parent kills this process if the engine overruns it.
    connection.setQueryTimeout(Math.max(1, Math.round(options.timeoutMs)));
    await vet(connection, text, params);
    if (options.batches) return await streamVettedRows(connection, text, params, options.maxRows, options.batches, started);
    const result = await readRows(connection, text, params, options.maxRows + 1);
    const kept = result.rows.slice(0, options.maxRows);
    return {
      columns: result.names.map((name, index) => ({ name, type: result.types[index] ?? '' })),
      rows: kept.map((row) => row.map((value, index) => toLadybugCell(value, result.types[index] ?? ''))),
      rowCount: kept.length,
      truncated: result.rows.length > options.maxRows,
      elapsedMs: performance.now() - started,
    };
  } catch (error) {
    throw toWorkbenchError(error);
  }
}

/** Streaming: each full batch of cells goes to `onBatch`, and reading waits until it settled. */
export interface LadybugBatches {
  batchSize: number;
  onBatch(columns: ResultColumn[], rows: CellValue[][]): Promise<void>;
}

/** Reads the result batch by batch (the row past the cap marks it truncated and is not sent); the rows went to the batches. */
async function streamVettedRows(
  connection: Connection,
  text: string,
  params: Record<string, LbugValue>,
  maxRows: number,
  batches: LadybugBatches,
  started: number,
): Promise<QueryResult> {
  const prepared = await connection.prepare(text);
  if (!prepared.isSuccess()) throw new Error(prepared.getErrorMessage());
  const outcome = await connection.execute(prepared, params);
  const results: LbugResult[] = Array.isArray(outcome) ? outcome : [outcome];
  const result = results[results.length - 1];
  if (result === undefined) return { columns: [], rows: [], rowCount: 0, truncated: false, elapsedMs: performance.now() - started };
  try {
    const names = await result.getColumnNames();
    const types = await result.getColumnDataTypes();
    const columns = names.map((name, index) => ({ name, type: types[index] ?? '' }));
    const toCells = (row: Record<string, LbugValue>): CellValue[] => names.map((name, index) => toLadybugCell(row[name] ?? null, types[index] ?? ''));
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
    return await readLadybugSchema(async (cypher) => {
      const result = await readRows(connection, cypher, {}, 1_000_000);
      return result.rows.map((row) => Object.fromEntries(result.names.map((name, index) => [name, row[index]])));
    });
  } catch (error) {
    throw toWorkbenchError(error);
  }
}
