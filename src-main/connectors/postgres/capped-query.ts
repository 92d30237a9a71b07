import pg, { type Connection, type FieldDef, type QueryArrayConfig } from 'pg';

import { postgresCellTypes } from './cell-values';

export interface CappedRows {
  fields: FieldDef[];
  rows: unknown[][];
}

interface PgResultShape {
  fields: FieldDef[];
  rows: unknown[][];
}

/** The query options pg reads besides the public ones: rows per Execute, and the protocol to use. */
interface ExtendedQueryConfig extends QueryArrayConfig {
  rows: number;
  queryMode: 'extended';
}

/**
 * pg.Query as node-postgres 8 implements it: the protocol handlers below are internal to pg
 * (stable since 8.0) and left out of @types/pg, which types only the public surface.
 */
interface ProtocolQuery extends pg.Query {
  /** The rows read since the last batch was taken, and the columns. */
  _result: PgResultShape;
  /** The unnamed portal's name ('' unless set). */
  portal?: string;
  handlePortalSuspended(connection: Connection): void;
  handleCommandComplete(message: { text: string }, connection: Connection): void;
  handleEmptyQuery(connection: Connection): void;
  handleError(error: Error, connection: Connection): void;
}
const ProtocolQueryBase = pg.Query as unknown as new (config: ExtendedQueryConfig) => ProtocolQuery;

/**
 * A query that reads at most `cap` rows and then lets the portal go, so a huge result never
 * crosses the wire. It relies on pg's extended-protocol Query: `rows` makes each Execute fetch
 * at most that many rows, and where pg would ask for the next batch we end with Sync instead.
 * (pg-cursor does the same, but is not a dependency.) The extended protocol also makes the
 * server refuse more than one statement per query.
 */
/**
 * Reading in batches: each Execute fetches at most `batchSize` rows, which go to `onBatch`; the
 * next Execute is sent only once `onBatch` has settled, so the server holds the rest (bounded
 * memory, the consumer's backpressure). The rows left at the end stay in `done`.
 */
export interface RowBatches {
  batchSize: number;
  onBatch(fields: FieldDef[], rows: unknown[][]): Promise<void>;
}

export class CappedQuery extends ProtocolQueryBase {
  readonly done: Promise<CappedRows>;
  private syncSent = false;
  private taken = 0;
  private consumerError: unknown = null;

  constructor(text: string, values: unknown[], private readonly cap: number, private readonly batches?: RowBatches) {
    super({ text, values, rowMode: 'array', rows: batches ? Math.min(batches.batchSize, cap) : cap, queryMode: 'extended', types: postgresCellTypes });
    this.done = new Promise<CappedRows>((resolve, reject) => {
      this.once('end', (result: PgResultShape) => {
        if (this.consumerError !== null) reject(this.consumerError);
        else resolve({ fields: result.fields, rows: result.rows });
      });
      this.once('error', reject);
    });
    // A rejection nobody awaited yet must not crash the process; callers await `done`.
    this.done.catch(() => undefined);
  }

  /**
   * A batch is complete. Without batches, or once the cap is reached, stop here rather than
   * fetching more; with batches, hand this one over and then ask for the next.
   */
  override handlePortalSuspended(connection: Connection): void {
    if (!this.batches) return this.sendSync(connection);
    const rows = this._result.rows.splice(0);
    this.taken += rows.length;
    const left = this.cap - this.taken;
    this.batches.onBatch(this._result.fields, rows).then(
      () => {
        if (left <= 0) return this.sendSync(connection);
        // pg's Execute takes the row count as a number; @types/pg declares it a string.
        const protocol = connection as unknown as { execute(config: { portal: string; rows: number }): void; flush(): void };
        protocol.execute({ portal: this.portal ?? '', rows: Math.min(this.batches?.batchSize ?? left, left) });
        protocol.flush();
      },
      (error: unknown) => {
        this.consumerError = error;
        this.sendSync(connection);
      },
    );
  }

  override handleCommandComplete(message: { text: string }, connection: Connection): void {
    // pg sends Sync itself here when `rows` is set; only remember that it did.
    this.syncSent = true;
    super.handleCommandComplete(message, connection);
  }

  override handleEmptyQuery(connection: Connection): void {
    this.syncSent = true;
    super.handleEmptyQuery(connection);
  }

  /** With a row limit pg has not sent Sync yet; without one the server never answers again. */
  override handleError(error: Error, connection: Connection): void {
    this.sendSync(connection);
    super.handleError(error, connection);
  }

  private sendSync(connection: Connection): void {
    if (this.syncSent) return;
    this.syncSent = true;
    connection.sync();
  }
}
