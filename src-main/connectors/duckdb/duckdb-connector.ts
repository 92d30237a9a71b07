import { type DuckDBConnection, type DuckDBPreparedStatement, type DuckDBValue, type Json } from '@duckdb/node-api';

import type { CellValue, QueryResult, SchemaInfo } from '../../contract/data';
import { WorkbenchError } from '../../contract/errors';
import type { Connector, QueryOptions } from '../connector';
import { duckdbCellConverter, toDuckdbCell } from './cell-values';
import { toWorkbenchError } from './errors';
import { QueryInterruption, throwIfAborted } from '../shared/interruption';
import type { OpenedDatabase } from './open-database';
import { databaseFileGone, fileIdentity, sameFile, type FileIdentity } from '../shared/file-identity';
import { readDuckdbSchema } from './schema';
import { SerialQueue } from '../shared/serial-queue';
import { StreamedResult } from '../shared/row-stream';
import { prepareReadStatement } from './statement-check';

const schemaTimeoutMs = 30_000;

/** One open instance with its connection, and the identity its file had just before it was opened. */
export interface DuckdbSession {
  database: OpenedDatabase;
  connection: DuckDBConnection;
  file: FileIdentity;
}

/** The file a connector reads, and how to open it again once the file at that path changed. */
export interface DuckdbSource {
  path: string;
  /** True for a CSV/Parquet file read into a copy: any change to the file makes the copy stale. */
  copied: boolean;
  open(): Promise<DuckdbSession>;
}

/**
 * A read-only DuckDB connector over one connection. Queries run one at a time; DuckDB has no
 * statement timeout, so the deadline and cancellation both use connection.interrupt().
 * Before each request the file at the source path is compared with the one opened: a replaced
 * file (or, for a copied CSV/Parquet file, a changed one) is opened again, and a deleted one
 * fails the request instead of answering from the old file or copy.
 */
export class DuckdbConnector implements Connector {
  readonly engine = 'duckdb' as const;
  readonly dialect = 'sql' as const;
  readonly streamsRows = true;
  private readonly queue = new SerialQueue();
  private closed = false;

  constructor(
    private session: DuckdbSession | null,
    private readonly source: DuckdbSource,
  ) {}

  async schema(): Promise<SchemaInfo> {
    return this.queue.run(async () => {
      const { connection } = await this.currentSession();
      return readDuckdbSchema(async (sql) => {
        const interruption = new QueryInterruption(schemaTimeoutMs, undefined, () => connection.interrupt());
        try {
          const result = await connection.run(sql);
          return (await result.getRowsJson()) as unknown[][];
        } catch (error) {
          throw interruption.error('DuckDB', schemaTimeoutMs) ?? toWorkbenchError(error);
        } finally {
          interruption.dispose();
        }
      });
    });
  }

  async query(text: string, options: QueryOptions): Promise<QueryResult> {
    return this.queue.run(async () => {
      throwIfAborted(options.signal, 'DuckDB');
      const { connection } = await this.currentSession();
      const started = performance.now();
      const interruption = new QueryInterruption(options.timeoutMs, options.signal, () => connection.interrupt());
      try {
        const prepared = await prepareReadStatement(connection, text);
        try {
          bindParameters(prepared, options.params ?? {});
          // interrupt() only stops a statement that is running: a cancel that fell between the
          // read-only checks and here would be lost, and the query would run on unstopped.
          const stopped = interruption.error('DuckDB', options.timeoutMs);
          if (stopped !== null) throw stopped;
          const result = await prepared.stream();
          const types = result.columnTypes();
          const columns = result.columnNames().map((name, index) => ({ name, type: types[index]?.toString() ?? '' }));
          const toCells = (row: Json[]): CellValue[] =>
            row.map((value, index) => {
              const type = types[index];
              return type === undefined ? null : toDuckdbCell(value, type);
            });
          // Chunks arrive about 2048 rows at a time; reading stops once the cap is passed. A
          // streamed query hands each chunk on and keeps only the preview; otherwise all is kept.
          const stream = new StreamedResult(options.onRows ? options : { keepRows: options.maxRows });
          let left = options.maxRows;
          let truncated = false;
          while (!truncated && interruption.reason === null) {
            const chunk = await result.fetchChunk();
            if (chunk === null || chunk.rowCount === 0) break;
            const rows = chunk.convertRows(duckdbCellConverter) as Json[][];
            if (rows.length > left) truncated = true;
            const taken = rows.slice(0, left);
            left -= taken.length;
            await stream.push(columns, taken.map(toCells));
            // A deadline or cancel that fell while the consumer held the stream ends it here.
            if (interruption.reason !== null) break;
          }
          const interrupted = interruption.error('DuckDB', options.timeoutMs);
          if (interrupted !== null) throw interrupted;
          return stream.finish(columns, truncated, performance.now() - started);
        } finally {
          prepared.destroySync();
        }
      } catch (error) {
        throw interruption.error('DuckDB', options.timeoutMs) ?? toWorkbenchError(error);
      } finally {
        interruption.dispose();
      }
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.run(async () => this.closeSession());
  }

  /** The open session, reopened first when the file at the source path is no longer the one it opened. */
  private async currentSession(): Promise<DuckdbSession> {
    if (this.closed) throw new WorkbenchError('connection-failed', 'DuckDB: connector is closed');
    const current = fileIdentity(this.source.path, { withContentStamp: this.source.copied });
    if (this.session !== null && current !== null && sameFile(current, this.session.file)) return this.session;
    this.closeSession();
    if (current === null) throw databaseFileGone(this.source.path, this.source.copied ? 'file' : 'database file');
    this.session = await this.source.open();
    return this.session;
  }

  private closeSession(): void {
    const session = this.session;
    this.session = null;
    if (session === null) return;
    session.connection.closeSync();
    session.database.instance.closeSync();
    session.database.cleanup();
  }
}

/**
 * Binds the statement's `$name` parameters (only those it uses; DuckDB rejects extra names).
 * Objects and arrays go in as JSON text.
 */
function bindParameters(prepared: DuckDBPreparedStatement, params: Record<string, unknown>): void {
  if (prepared.parameterCount === 0) return;
  const values: Record<string, DuckDBValue> = {};
  for (let index = 1; index <= prepared.parameterCount; index += 1) {
    const name = prepared.parameterName(index);
    if (!Object.hasOwn(params, name)) throw new WorkbenchError('invalid-request', `DuckDB: no value given for parameter $${name}`);
    const value = params[name];
    const scalar = value === null || ['string', 'number', 'boolean', 'bigint'].includes(typeof value);
    values[name] = scalar ? (value as DuckDBValue) : JSON.stringify(value);
  }
  prepared.bind(values);
}
