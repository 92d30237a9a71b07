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
export class CappedQuery extends ProtocolQueryBase {
  readonly done: Promise<CappedRows>;
  private syncSent = false;

  constructor(text: string, values: unknown[], cap: number) {
    super({ text, values, rowMode: 'array', rows: cap, queryMode: 'extended', types: postgresCellTypes });
    this.done = new Promise<CappedRows>((resolve, reject) => {
      this.once('end', (result: PgResultShape) => resolve({ fields: result.fields, rows: result.rows }));
      this.once('error', reject);
    });
    // A rejection nobody awaited yet must not crash the process; callers await `done`.
    this.done.catch(() => undefined);
  }

  /** The cap was reached: stop here rather than fetching the next batch. */
  override handlePortalSuspended(connection: Connection): void {
    this.sendSync(connection);
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
