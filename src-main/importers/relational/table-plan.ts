import type { DumpColumn, DumpTable, DumpValue } from '../../dqa/sql-dump';
import type { DumpSource } from '../dump-files';
import type { CreatedPart, ImportRecord } from '../import-outcome';
import { parseParts } from '../import-outcome';
import { IMPORT_ORDER_COLUMN } from '../../dqa/connector-sql-load';

/** The engines written through SQL text (SQLite files are written by sqlite-import.ts). */
export type SqlEngine = 'duckdb' | 'postgres' | 'mysql' | 'trino';

/**
 * The order column. Simulators depend on table order (ties go to the first row), and only
 * SQLite (rowid order) and DuckDB (insertion order is preserved) give rows back in the order
 * they were inserted; PostgreSQL's heap order is not guaranteed and InnoDB returns rows in
 * primary-key order. There, every table gets `import_order` (0-based position in the dump),
 * the name the connector loaders of src-main/dqa order by: read in table order with
 * `ORDER BY import_order`.
 */
const orderColumn = IMPORT_ORDER_COLUMN;
const enginesWithOrderColumn: ReadonlySet<SqlEngine> = new Set(['postgres', 'mysql', 'trino']);

/** The table each import leaves in its database: the dump's name, digest and what it created. */
export const recordTable = '_dwb_import';

export interface PlannedColumn {
  name: string;
  /** The SQL type for the target engine. */
  type: string;
}

export interface PlannedTable {
  name: string;
  columns: PlannedColumn[];
  primaryKey: string[];
  rows: DumpValue[][];
}

/**
 * Column types for a target engine. FLOAT columns become DOUBLE: MySQL's and DuckDB's FLOAT is
 * single precision and would round the dumps' values (PostgreSQL's is double already), and the
 * engines must hold identical numbers. Integers become BIGINT; text keeps a declared length.
 */
function sqlType(column: DumpColumn, engine: SqlEngine, inPrimaryKey: boolean): string {
  switch (column.type) {
    case 'TEXT': {
      const declared = column.declaredType.toUpperCase();
      // Trino's CHAR(n) pads, so its values would not compare equal to the dump's: VARCHAR there.
      if (engine === 'trino') return /^VARCHAR\(\d+\)$/.test(declared) ? declared : 'VARCHAR';
      if (/^(VAR)?CHAR\(\d+\)$/.test(declared)) return declared;
      // MySQL indexes only a prefix of TEXT; a key column needs a bounded length.
      return engine === 'mysql' && inPrimaryKey ? 'VARCHAR(255)' : 'TEXT';
    }
    case 'INTEGER':
      return 'BIGINT';
    case 'REAL':
      return engine === 'postgres' ? 'DOUBLE PRECISION' : 'DOUBLE';
    case 'BOOLEAN':
      return 'BOOLEAN';
  }
}

/** The dump's tables as the engine will hold them (with `import_order` where order needs it). */
export function planTables(tables: DumpTable[], engine: SqlEngine): PlannedTable[] {
  const withOrder = enginesWithOrderColumn.has(engine);
  return tables.map((table) => {
    const columns = table.columns.map((column) => ({ name: column.name, type: sqlType(column, engine, table.primaryKey.includes(column.name)) }));
    if (!withOrder) return { name: table.name, columns, primaryKey: table.primaryKey, rows: table.rows };
    return {
      name: table.name,
      columns: [...columns, { name: orderColumn, type: 'BIGINT NOT NULL' }],
      primaryKey: table.primaryKey,
      rows: table.rows.map((row, index) => [...row, index]),
    };
  });
}

export function partsOf(tables: DumpTable[]): CreatedPart[] {
  return tables.map((table) => ({ kind: 'table', name: table.name, count: table.rows.length }));
}

/** The record table as a dump table (written like the others). */
export function recordAsTable(dump: DumpSource, parts: CreatedPart[]): DumpTable {
  const text = (name: string): DumpColumn => ({ name, type: 'TEXT', declaredType: 'TEXT' });
  return {
    name: recordTable,
    columns: [text('dump'), text('sha256'), text('parts')],
    primaryKey: [],
    rows: [[dump.name, dump.sha256, JSON.stringify(parts)]],
  };
}

/** Reads the record table's row (sha256, parts) back; null when the row is missing. */
export function recordFromRow(row: { sha256?: unknown; parts?: unknown } | undefined): ImportRecord | null {
  if (row === undefined || typeof row.sha256 !== 'string') return null;
  return { sha256: row.sha256, parts: parseParts(row.parts) };
}

/**
 * The database a dump lands in on a server: the dump's file name as it is (`USA1836`,
 * `locating-1445-15b6e0aa`), so a URI template such as `postgres://host/{dump}` finds it.
 */
export function databaseNameFor(dumpName: string): string {
  return dumpName;
}

/** Rows in batches, so one statement never carries more than `maxValues` bound values. */
export function batches<T>(rows: T[], width: number, maxValues = 10_000): T[][] {
  const size = Math.max(1, Math.floor(maxValues / Math.max(1, width)));
  const result: T[][] = [];
  for (let start = 0; start < rows.length; start += size) result.push(rows.slice(start, start + size));
  return result;
}
