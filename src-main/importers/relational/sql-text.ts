import type { DumpValue } from '../../dqa/sql-dump';
import { batches, type PlannedTable } from './table-plan';

/** How a SQL dialect quotes names and numbers its placeholders. */
export interface SqlDialect {
  quote(name: string): string;
  /** The placeholder for the value at 0-based position `index` of a statement. */
  placeholder(index: number): string;
}

export const doubleQuoted = (name: string): string => `"${name.replace(/"/g, '""')}"`;
export const backquoted = (name: string): string => `\`${name.replace(/`/g, '``')}\``;

/** A table's name, qualified by its schema (database) when one is given. */
function tableName(table: PlannedTable, dialect: SqlDialect, schema: string | undefined): string {
  return schema === undefined ? dialect.quote(table.name) : `${dialect.quote(schema)}.${dialect.quote(table.name)}`;
}

export function createTableSql(table: PlannedTable, dialect: SqlDialect, schema?: string): string {
  const columns = table.columns.map((column) => `${dialect.quote(column.name)} ${column.type}`);
  if (table.primaryKey.length > 0) columns.push(`PRIMARY KEY (${table.primaryKey.map(dialect.quote).join(', ')})`);
  return `CREATE TABLE ${tableName(table, dialect, schema)} (${columns.join(', ')})`;
}

/**
 * Multi-row INSERTs with bound values (never spliced into the text), rows in dump order. With
 * `schema` the table name is qualified, so a cached prepared statement never points at the
 * database an earlier dump was written to.
 */
export function insertStatements(table: PlannedTable, dialect: SqlDialect, schema?: string): { text: string; values: DumpValue[] }[] {
  const width = table.columns.length;
  const head = `INSERT INTO ${tableName(table, dialect, schema)} (${table.columns.map((column) => dialect.quote(column.name)).join(', ')}) VALUES `;
  return batches(table.rows, width).map((rows) => {
    let next = 0;
    const tuples = rows.map(() => `(${Array.from({ length: width }, () => dialect.placeholder(next++)).join(', ')})`);
    return { text: head + tuples.join(', '), values: rows.flat() };
  });
}
