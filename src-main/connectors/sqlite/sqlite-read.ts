import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { openSqliteFile } from '../../native/better-sqlite3';
import { WorkbenchError } from '../../contract/errors';
import type { CellValue, QueryResult, ResultColumn, SchemaInfo, TableInfo } from '../../contract/data';
import { checkSqliteStatementStart } from './statement-start';
import { binaryCell } from '../shared/binary-cell';
import { addItAs, requireRegularFile, sniffFileKind } from '../shared/file-kind';

type SqliteHandle = Database.Database;

/**
 * Opens a database file so that SQLite itself refuses every change: the handle is opened
 * read-only and `query_only` is set; statements are further required to be read-only and to
 * return rows, as SQLite's own compiler reports them, which also shuts out ATTACH and pragma
 * writes. None of this inspects the query text.
 */
export function openReadOnlySqlite(path: string): SqliteHandle {
  requireRegularFile(path, 'a SQLite file');
  let database: SqliteHandle;
  try {
    database = openSqliteFile(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new WorkbenchError(existsSync(path) ? 'connection-failed' : 'not-found', `Cannot open SQLite database ${path}: ${messageOf(error)}`);
  }
  try {
    database.pragma('query_only = ON');
    // Reading the schema forces SQLite to check the header, so a non-database file fails here.
    database.prepare('SELECT count(*) FROM sqlite_schema').get();
  } catch (error) {
    database.close();
    throw notReadable(path, error);
  }
  return database;
}

/** Why a file that opened could not be read: not a database at all (saying what it looks like), or SQLite's reason. */
function notReadable(path: string, error: unknown): WorkbenchError {
  if ((error as { code?: unknown }).code !== 'SQLITE_NOTADB') {
    return new WorkbenchError('connection-failed', `${path} is not a readable SQLite database: ${messageOf(error)}`);
  }
  const hint = addItAs(sniffFileKind(path));
  return new WorkbenchError('invalid-request', `${path} is not a SQLite database file${hint === '' ? '' : `; ${hint}`}`);
}

export function runReadOnlyQuery(
  database: SqliteHandle,
  text: string,
  options: { params?: Record<string, unknown>; maxRows: number },
): QueryResult {
  const started = performance.now();
  const cursor = openReadOnlyCursor(database, text, options);
  // One more than the cap, so the cursor looks one row past it and knows whether the result was cut.
  const rows = cursor.read(options.maxRows + 1);
  return { columns: cursor.columns, rows, rowCount: rows.length, truncated: cursor.truncated, elapsedMs: performance.now() - started };
}

/** A read-only statement's rows, read a batch at a time up to the row cap (see runReadOnlyQuery's checks). */
export interface SqliteCursor {
  readonly columns: ResultColumn[];
  /** Up to `count` more rows; fewer (possibly none) once the result or the cap is reached. */
  read(count: number): CellValue[][];
  /**
   * Up to `count` more rows as text, each row as SQLite gave it (cells not yet converted: see
   * sqliteCell) turned into its line by `line`, so no array of cells is built per row.
   */
  readLines(count: number, line: (row: readonly unknown[]) => string): { text: string; rows: number };
  /** True once reading found a row past the cap. */
  readonly truncated: boolean;
  /** Ends the statement where it is (a reader that stopped early), so the handle can close. */
  stop(): void;
}

export function openReadOnlyCursor(
  database: SqliteHandle,
  text: string,
  options: { params?: Record<string, unknown>; maxRows: number },
): SqliteCursor {
  const statement = prepare(database, text);
  if (!statement.readonly || !statement.reader) {
    throw new WorkbenchError(
      'read-only',
      statement.readonly
        ? 'Refused: only statements that return rows may run on a read-only connection'
        : 'Refused: this connection is read-only and the statement would change the database',
    );
  }
  statement.raw(true).safeIntegers(true);
  const columns = statement.columns().map((column) => ({ name: column.name, type: column.type ?? '' }));
  let iterator: Iterator<unknown[]> | null = null;
  let left = options.maxRows;
  let truncated = false;
  let done = false;
  /** Hands `take` up to `count` more raw rows, stopping one row past the cap. */
  const each = (count: number, take: (row: unknown[]) => void): void => {
    let taken = 0;
    try {
      iterator ??= (options.params ? statement.iterate(options.params) : statement.iterate()) as Iterator<unknown[]>;
      while (!done && taken < count) {
        const next = iterator.next();
        if (next.done === true) {
          done = true;
        } else if (left === 0) {
          // One row past the cap: the result was cut. Stop the statement here.
          truncated = true;
          done = true;
          iterator.return?.();
        } else {
          left -= 1;
          taken += 1;
          take(next.value);
        }
      }
    } catch (error) {
      done = true;
      throw new WorkbenchError('query-failed', `SQLite: ${messageOf(error)}`);
    }
  };
  return {
    columns,
    get truncated() {
      return truncated;
    },
    read(count) {
      const rows: CellValue[][] = [];
      // Converted in place: better-sqlite3 hands over a fresh array per row, so no second one is built.
      each(count, (row) => {
        for (let index = 0; index < row.length; index += 1) row[index] = sqliteCell(row[index]);
        rows.push(row as CellValue[]);
      });
      return rows;
    },
    readLines(count, line) {
      let text = '';
      let rows = 0;
      each(count, (row) => {
        text += line(row);
        rows += 1;
      });
      return { text, rows };
    },
    stop() {
      if (!done) iterator?.return?.();
      done = true;
    },
  };
}

export function readSqliteSchema(database: SqliteHandle): SchemaInfo {
  const objects = database
    .prepare("SELECT name, type FROM sqlite_schema WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string; type: 'table' | 'view' }[];
  const tables: TableInfo[] = objects.map(({ name, type }) => {
    const quoted = quoteIdentifier(name);
    const references = new Map<string, string>();
    for (const key of database.pragma(`foreign_key_list(${quoted})`) as { from: string; table: string; to: string | null }[]) {
      references.set(key.from, `${key.table}.${key.to ?? ''}`);
    }
    const columns = (database.pragma(`table_info(${quoted})`) as { name: string; type: string; notnull: number; pk: number }[]).map(
      (column) => ({
        name: column.name,
        type: column.type,
        nullable: column.notnull === 0 && column.pk === 0,
        primaryKey: column.pk,
        ...(references.has(column.name) ? { references: references.get(column.name) } : {}),
      }),
    );
    return { name, kind: type, columns, rowCount: countRows(database, quoted) };
  });
  return { kind: 'relational', tables };
}

function countRows(database: SqliteHandle, quotedName: string): number | null {
  try {
    const row = database.prepare(`SELECT count(*) AS n FROM ${quotedName}`).get() as { n: number };
    return row.n;
  } catch {
    return null; // a view over a missing table still belongs in the schema browser
  }
}

function prepare(database: SqliteHandle, text: string): Database.Statement {
  if (text.trim() === '') throw new WorkbenchError('syntax', 'The query is empty');
  checkSqliteStatementStart(text);
  try {
    return database.prepare(text);
  } catch (error) {
    const message = messageOf(error);
    if (message.includes('more than one statement')) {
      throw new WorkbenchError('read-only', 'Refused: run one statement at a time (the text holds more than one)');
    }
    // SQLite reports unknown names while compiling, like syntax errors; they are not typos of SQL.
    const code = /^no such (table|column|function|collation|module|window function)\b/i.test(message) ? 'unknown-object' : 'syntax';
    throw new WorkbenchError(code, `SQLite: ${message}`);
  }
}

/** Made once: this runs for every integer cell of a result (a million-row export included). */
const smallestSafeInteger = BigInt(Number.MIN_SAFE_INTEGER);
const largestSafeInteger = BigInt(Number.MAX_SAFE_INTEGER);

/** A value as SQLite gave it (raw, safe integers) as the cell every reader of a result sees. */
export function sqliteCell(value: unknown): CellValue {
  if (value === null || typeof value === 'string') return value;
  // ±Infinity (1e300*1e10) as its name, as every engine gives it: JSON would send it as null.
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return value >= smallestSafeInteger && value <= largestSafeInteger ? Number(value) : value.toString();
  if (Buffer.isBuffer(value)) return binaryCell(value);
  return String(value);
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
