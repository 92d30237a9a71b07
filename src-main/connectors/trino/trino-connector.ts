import type { CellValue, QueryResult, ResultColumn, SchemaInfo } from '../../contract/data';
import { WorkbenchError } from '../../contract/errors';
import type { Connector, QueryOptions } from '../connector';
import { runInterruptible, serverFirstGraceMs } from '../shared/interruptible-run';
import { throwIfAborted } from '../shared/interruption';
import { countOrNull } from '../shared/relational-schema';
import { StreamedResult } from '../shared/row-stream';
import { bindTrinoParameters } from './bind-parameters';
import { toTrinoCell } from './cell-values';
import { toWorkbenchError } from './errors';
import { checkPlanReadsOnly } from './plan-check';
import { readTrinoSchema } from './schema';
import { checkTrinoStatement } from './statement-guard';
import { runToEnd, TrinoStatement, type TrinoColumn, type TrinoSession } from './trino-http';
import type { TrinoEndpoint } from './trino-url';

const catalogTimeoutMs = 30_000;

/**
 * A read-only Trino connection over Trino's HTTP protocol. Every query, the connector's own
 * catalog reads included, runs in its own `START TRANSACTION READ ONLY` that is rolled back, so
 * Trino itself refuses any write whatever the login may do; the server's access control and
 * the statement and plan checks come on top. HTTP keeps no session, so queries may overlap.
 */
export class TrinoConnector implements Connector {
  readonly engine = 'trino' as const;
  readonly dialect = 'sql' as const;
  readonly streamsRows = true;
  private closed = false;
  /** Statements under way, killed on the coordinator by close(). */
  private readonly running = new Set<TrinoStatement>();

  constructor(
    private readonly endpoint: TrinoEndpoint,
    private readonly password: string | null,
  ) {}

  async schema(): Promise<SchemaInfo> {
    const read = async (text: string): Promise<unknown[][]> => (await this.readAll(text, catalogTimeoutMs)).rows;
    const countRows = (qualified: string): Promise<number | null> => countOrNull(async () => (await read(`SELECT count(*) FROM ${qualified}`))[0]?.[0]);
    return readTrinoSchema(this.endpoint, read, countRows);
  }

  async query(text: string, options: QueryOptions): Promise<QueryResult> {
    const statement = checkTrinoStatement(text);
    const bound = bindTrinoParameters(statement, options.params);
    throwIfAborted(options.signal, 'Trino');
    const started = performance.now();
    const stream = options.onRows ? new StreamedResult(options) : null;
    const kept: CellValue[][] = [];
    let columns: ResultColumn[] = [];
    let truncated = false;
    let current: TrinoStatement | null = null;
    await this.inReadOnlyTransaction(options.timeoutMs, async (session) => {
      if (statement.planned) await checkPlanReadsOnly(session, statement);
      await runInterruptible<void>({
        engine: 'Trino',
        timeoutMs: options.timeoutMs,
        // query_max_run_time stops the query first; the client kills it only if the server did not.
        deadlineMs: options.timeoutMs + serverFirstGraceMs,
        signal: options.signal,
        run: async (stopped) => {
          current = await this.track(TrinoStatement.start(session, bound));
          const query = current;
          let read = 0;
          for (let rows = await query.nextRows(); rows !== null && !stopped(); rows = await query.nextRows()) {
            columns = columnsOf(query.columns ?? []);
            const room = options.maxRows - read;
            if (rows.length > room) truncated = true;
            const cells = rows.slice(0, Math.max(0, room)).map((row) => row.map((value, index) => toTrinoCell(value, query.columns?.[index]?.type ?? '')));
            read += cells.length;
            if (stream !== null) await stream.push(columns, cells);
            else kept.push(...cells);
            // The row past the cap was seen: the rest is not wanted, so the query is ended on the coordinator.
            if (truncated) break;
          }
          columns = columnsOf(query.columns ?? []);
          if (!query.done) await query.cancel();
        },
        interrupt: async () => {
          await current?.cancel();
        },
        abandon: () => undefined,
        toError: toWorkbenchError,
      }).finally(() => {
        if (current !== null) this.running.delete(current);
      });
    });
    const elapsedMs = performance.now() - started;
    if (stream !== null) return stream.finish(columns, truncated, elapsedMs);
    return { columns, rows: kept, rowCount: kept.length, truncated, elapsedMs };
  }

  async close(): Promise<void> {
    this.closed = true;
    const statements = [...this.running];
    this.running.clear();
    await Promise.all(statements.map((statement) => statement.cancel()));
  }

  /** A catalog query of the connector itself: the same read-only transaction, no statement check. */
  private async readAll(text: string, timeoutMs: number): Promise<{ columns: TrinoColumn[]; rows: unknown[][] }> {
    let result: { columns: TrinoColumn[]; rows: unknown[][] } = { columns: [], rows: [] };
    await this.inReadOnlyTransaction(timeoutMs, async (session) => {
      const statement = await this.track(TrinoStatement.start(session, text));
      try {
        const rows: unknown[][] = [];
        for (let page = await statement.nextRows(); page !== null; page = await statement.nextRows()) rows.push(...page);
        result = { columns: statement.columns ?? [], rows };
      } finally {
        this.running.delete(statement);
      }
    });
    return result;
  }

  /**
   * Runs `work` inside `START TRANSACTION READ ONLY`, always rolled back: Trino refuses every
   * write in it (READ_ONLY_VIOLATION) before a connector is asked to write, whoever the user is.
   */
  private async inReadOnlyTransaction(timeoutMs: number, work: (session: TrinoSession) => Promise<void>): Promise<void> {
    if (this.closed) throw new WorkbenchError('connection-failed', 'Trino: connector is closed');
    const properties = { query_max_run_time: `${Math.max(1, Math.ceil(timeoutMs / 1000))}s` };
    let transactionId: string | null;
    try {
      const begin = await runToEnd({ endpoint: this.endpoint, password: this.password, properties }, 'START TRANSACTION READ ONLY');
      transactionId = begin.startedTransactionId;
    } catch (error) {
      throw toWorkbenchError(error);
    }
    if (transactionId === null) throw new WorkbenchError('connection-failed', 'Trino: the coordinator started no transaction (no X-Trino-Started-Transaction-Id)');
    const session: TrinoSession = { endpoint: this.endpoint, password: this.password, transactionId, properties };
    try {
      await work(session);
    } catch (error) {
      throw toWorkbenchError(error);
    } finally {
      await runToEnd(session, 'ROLLBACK').catch(() => undefined);
    }
  }

  private async track(starting: Promise<TrinoStatement>): Promise<TrinoStatement> {
    const statement = await starting;
    this.running.add(statement);
    return statement;
  }
}

function columnsOf(columns: TrinoColumn[]): ResultColumn[] {
  return columns.map((column) => ({ name: column.name, type: column.type }));
}
