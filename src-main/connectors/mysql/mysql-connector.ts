import type { Connection, ConnectionOptions, FieldPacket } from 'mysql2';

import type { QueryResult, ResultColumn, SchemaInfo } from '../../contract/data';
import { WorkbenchError } from '../../contract/errors';
import type { Connector, QueryOptions } from '../connector';
import { mysqlTypeName, toMysqlCell } from './cell-values';
import { toWorkbenchError } from './errors';
import { throwIfAborted } from '../shared/interruption';
import { countOrNull } from '../shared/relational-schema';
import { runInterruptible } from '../shared/interruptible-run';
import { bindNamedParameters } from './named-params';
import { privilegedMysqlLoginRefusal, privilegedMysqlLoginWarning, readMysqlLoginPrivileges } from './login-privileges';
import { connectReadOnly, killQuery, runInReadOnlyTransaction, type ServerFlavor, type ServerRows } from './read-only-session';
import { readMysqlSchema } from './schema';
import { SerialQueue } from '../shared/serial-queue';
import { rowBatchSize, StreamedResult } from '../shared/row-stream';
import { checkMysqlStatement } from './statement-guard';

/**
 * The client's own deadline fires first and KILLs the query; the server's statement limit is
 * set this much later as a backstop for a client that died. The client must decide because
 * MariaDB stops SLEEP() and BENCHMARK() at max_statement_time but returns a normal-looking row.
 */
const serverLimitGraceMs = 2000;
const schemaTimeoutMs = 30_000;

interface Session {
  connection: Connection;
  flavor: ServerFlavor;
}

/**
 * One read-only MySQL/MariaDB session. Queries run one at a time; each is guarded, bound,
 * run in its own read-only transaction and rolled back. A broken session is replaced on next use.
 */
export class MysqlConnector implements Connector {
  readonly engine = 'mysql' as const;
  readonly dialect = 'sql' as const;
  readonly streamsRows = true;
  private current: Session | null;
  private readonly queue = new SerialQueue();
  private closed = false;

  private constructor(
    private readonly options: ConnectionOptions,
    session: Session,
    readonly warnings: readonly string[],
  ) {
    this.current = session;
  }

  /** Connects and checks the login's rights: a privileged login is refused unless allowed. */
  static async open(options: ConnectionOptions, allowPrivilegedLogin: boolean): Promise<MysqlConnector> {
    let connector: MysqlConnector | null = null;
    const session: Session = await connectReadOnly(options, () => connector?.forget(session.connection));
    let warnings: string[] = [];
    try {
      const privileges = await readMysqlLoginPrivileges(session.connection);
      if (privileges.dangers.length > 0) {
        if (!allowPrivilegedLogin) throw privilegedMysqlLoginRefusal(privileges);
        warnings = [privilegedMysqlLoginWarning(privileges)];
      }
    } catch (error) {
      session.connection.destroy();
      throw error;
    }
    connector = new MysqlConnector(options, session, warnings);
    return connector;
  }

  async schema(): Promise<SchemaInfo> {
    return this.queue.run(async () => {
      const read = async (sql: string, values: unknown[]): Promise<unknown[][]> => (await this.runInternal(sql, values, schemaTimeoutMs)).rows;
      const countRows = (qualified: string): Promise<number | null> =>
        countOrNull(async () => (await this.runInternal(`SELECT COUNT(*) FROM ${qualified}`, [], 5000)).rows[0]?.[0]);
      return readMysqlSchema(read, countRows);
    });
  }

  async query(text: string, options: QueryOptions): Promise<QueryResult> {
    checkMysqlStatement(text);
    const bound = bindNamedParameters(text, options.params);
    return this.queue.run(async () => {
      throwIfAborted(options.signal, 'MySQL');
      const started = performance.now();
      const session = await this.session();
      const threadId = session.connection.threadId;
      // Streamed: rows go on batch by batch (the row past the cap never does) while the connection waits.
      const stream = options.onRows ? new StreamedResult(options) : null;
      let seen = 0;
      const columnsOf = (fields: FieldPacket[]): ResultColumn[] => fields.map((field) => ({ name: field.name, type: mysqlTypeName(field) }));
      const take = async (fields: FieldPacket[], rows: unknown[][]): Promise<void> => {
        if (stream === null) return;
        seen += rows.length;
        const types = fields.map(mysqlTypeName);
        const room = Math.max(0, options.maxRows - stream.rowCount);
        await stream.push(columnsOf(fields), rows.slice(0, room).map((row) => row.map((value, index) => toMysqlCell(value, types[index] ?? ''))));
      };
      const result = await runInterruptible<ServerRows>({
        engine: 'MySQL',
        timeoutMs: options.timeoutMs,
        // The client decides (see serverLimitGraceMs), so it steps in at the limit itself.
        deadlineMs: options.timeoutMs,
        signal: options.signal,
        run: (stopped) =>
          runInReadOnlyTransaction(session.connection, session.flavor, {
            text: bound.text,
            values: bound.values,
            rowLimit: options.maxRows + 1,
            timeoutMs: options.timeoutMs + serverLimitGraceMs,
            shouldStop: stopped,
            ...(stream ? { batches: { batchSize: rowBatchSize, onBatch: take } } : {}),
          }),
        interrupt: () => killQuery(this.options, threadId),
        abandon: () => this.forget(session.connection),
        toError: toWorkbenchError,
      });

      if (stream !== null) {
        const truncated = seen + result.rows.length > options.maxRows;
        await take(result.fields, result.rows);
        return stream.finish(columnsOf(result.fields), truncated, performance.now() - started);
      }
      const types = result.fields.map(mysqlTypeName);
      const rows = result.rows.slice(0, options.maxRows).map((row) => row.map((value, index) => toMysqlCell(value, types[index] ?? '')));
      return {
        columns: result.fields.map((field, index) => ({ name: field.name, type: types[index] ?? '' })),
        rows,
        rowCount: rows.length,
        truncated: result.rows.length > options.maxRows,
        elapsedMs: performance.now() - started,
      };
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.run(async () => {
      const session = this.current;
      this.current = null;
      if (session !== null) await new Promise<void>((resolve) => session.connection.end(() => resolve()));
    });
  }

  private async runInternal(sql: string, values: unknown[], timeoutMs: number): Promise<ServerRows> {
    const session = await this.session();
    try {
      return await runInReadOnlyTransaction(session.connection, session.flavor, { text: sql, values, rowLimit: 1_000_000, timeoutMs });
    } catch (error) {
      throw toWorkbenchError(error);
    }
  }

  private async session(): Promise<Session> {
    if (this.closed) throw new WorkbenchError('connection-failed', 'MySQL: connector is closed');
    if (this.current !== null) return this.current;
    try {
      const session: Session = await connectReadOnly(this.options, () => this.forget(session.connection));
      this.current = session;
      return session;
    } catch (error) {
      throw toWorkbenchError(error);
    }
  }

  /** The session died (server restart, network): drop it so the next call reconnects. */
  private forget(connection: Connection): void {
    if (this.current?.connection === connection) this.current = null;
    connection.destroy();
  }
}
