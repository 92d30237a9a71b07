import type { Client, ClientConfig, FieldDef } from 'pg';

import type { QueryResult, ResultColumn, SchemaInfo } from '../../contract/data';
import { WorkbenchError } from '../../contract/errors';
import type { Connector, QueryOptions } from '../connector';
import type { CappedRows } from './capped-query';
import { toCell } from './cell-values';
import { toWorkbenchError } from './errors';
import { throwIfAborted } from '../shared/interruption';
import { countOrNull } from '../shared/relational-schema';
import { runInterruptible, serverFirstGraceMs } from '../shared/interruptible-run';
import { bindNamedParameters } from './named-params';
import { privilegedLoginRefusal, privilegedLoginWarning, readLoginPrivileges } from './login-privileges';
import { backendProcessId, cancelBackend, connectReadOnly, runInReadOnlyTransaction } from './read-only-session';
import { readPostgresSchema } from './schema';
import { SerialQueue } from '../shared/serial-queue';
import { rowBatchSize, StreamedResult } from '../shared/row-stream';
import { checkPostgresStatement } from './statement-guard';
import { TypeNames } from './type-names';

const schemaTimeoutMs = 30_000;

/**
 * One read-only PostgreSQL session. Queries run one at a time; each is guarded, bound, run in
 * its own read-only transaction and rolled back. A broken session is replaced on next use.
 */
export class PostgresConnector implements Connector {
  readonly engine = 'postgres' as const;
  readonly dialect = 'sql' as const;
  readonly streamsRows = true;
  private client: Client | null;
  private readonly queue = new SerialQueue();
  private readonly typeNames = new TypeNames();
  private closed = false;

  private constructor(
    private readonly config: ClientConfig,
    client: Client,
    readonly warnings: readonly string[],
  ) {
    this.client = client;
  }

  /** Connects and checks the login's rights: a privileged login is refused unless allowed. */
  static async open(config: ClientConfig, allowPrivilegedLogin: boolean): Promise<PostgresConnector> {
    let connector: PostgresConnector | null = null;
    const client = await connectReadOnly(config, () => connector?.forget(client));
    let warnings: string[] = [];
    try {
      const privileges = await readLoginPrivileges(client);
      if (privileges.dangers.length > 0) {
        if (!allowPrivilegedLogin) throw privilegedLoginRefusal(privileges);
        warnings = [privilegedLoginWarning(privileges)];
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    connector = new PostgresConnector(config, client, warnings);
    return connector;
  }

  async schema(): Promise<SchemaInfo> {
    return this.queue.run(async () => {
      const read = (text: string, values: unknown[]): Promise<CappedRows> => this.runInternal(text, values, schemaTimeoutMs);
      const countRows = (qualified: string): Promise<number | null> =>
        countOrNull(async () => (await this.runInternal(`SELECT count(*) FROM ${qualified}`, [], 5000)).rows[0]?.[0]);
      return readPostgresSchema(read, countRows);
    });
  }

  async query(text: string, options: QueryOptions): Promise<QueryResult> {
    checkPostgresStatement(text);
    const bound = bindNamedParameters(text, options.params);
    return this.queue.run(async () => {
      throwIfAborted(options.signal, 'PostgreSQL');
      const started = performance.now();
      const client = await this.session();
      const processId = backendProcessId(client);
      // Streamed: rows go on batch by batch (the row past the cap never does); the server holds the rest meanwhile.
      const stream = options.onRows ? new StreamedResult(options) : null;
      const columnsOf = (fields: FieldDef[]): ResultColumn[] => fields.map((field) => ({ name: field.name, type: this.typeNames.nameOf(field.dataTypeID) }));
      let seen = 0;
      const take = async (fields: FieldDef[], rows: unknown[][]): Promise<void> => {
        if (stream === null) return;
        seen += rows.length;
        const room = Math.max(0, options.maxRows - stream.rowCount);
        await stream.push(columnsOf(fields), rows.slice(0, room).map((row) => row.map(toCell)));
      };
      const result = await runInterruptible<CappedRows>({
        engine: 'PostgreSQL',
        timeoutMs: options.timeoutMs,
        // statement_timeout stops the query first; the client cancels only if the server did not.
        deadlineMs: options.timeoutMs + serverFirstGraceMs,
        signal: options.signal,
        run: (stopped) =>
          runInReadOnlyTransaction(client, {
            text: bound.text,
            values: bound.values,
            rowLimit: options.maxRows + 1,
            timeoutMs: options.timeoutMs,
            shouldStop: stopped,
            ...(stream ? { batches: { batchSize: rowBatchSize, onBatch: take } } : {}),
          }),
        interrupt: () => (processId === null ? Promise.resolve() : cancelBackend(this.config, processId)),
        abandon: () => this.forget(client),
        toError: toWorkbenchError,
      });

      await this.typeNames.resolve(result.fields.map((field) => field.dataTypeID), (sql, values) => this.runInternal(sql, values, 5000)).catch(() => undefined);
      if (stream !== null) {
        const truncated = seen + result.rows.length > options.maxRows;
        await take(result.fields, result.rows);
        return stream.finish(columnsOf(result.fields), truncated, performance.now() - started);
      }
      const truncated = result.rows.length > options.maxRows;
      const rows = result.rows.slice(0, options.maxRows).map((row) => row.map(toCell));
      return {
        columns: result.fields.map((field) => ({ name: field.name, type: this.typeNames.nameOf(field.dataTypeID) })),
        rows,
        rowCount: rows.length,
        truncated,
        elapsedMs: performance.now() - started,
      };
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.run(async () => {
      const client = this.client;
      this.client = null;
      await client?.end().catch(() => undefined);
    });
  }

  /** Catalog queries of the connector itself: same read-only transaction, no text guard. */
  private async runInternal(text: string, values: unknown[], timeoutMs: number): Promise<CappedRows> {
    const client = await this.session();
    try {
      return await runInReadOnlyTransaction(client, { text, values, rowLimit: 1_000_000, timeoutMs });
    } catch (error) {
      throw toWorkbenchError(error);
    }
  }

  private async session(): Promise<Client> {
    if (this.closed) throw new WorkbenchError('connection-failed', 'PostgreSQL: connector is closed');
    if (this.client !== null) return this.client;
    try {
      const client: Client = await connectReadOnly(this.config, () => this.forget(client));
      this.client = client;
      return client;
    } catch (error) {
      throw toWorkbenchError(error);
    }
  }

  /** The session died (server restart, network): drop it so the next call reconnects. */
  private forget(client: Client): void {
    if (this.client === client) this.client = null;
    void client.end().catch(() => undefined);
  }
}

