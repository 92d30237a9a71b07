import type { SchemaInfo } from '../../contract/data';
import { addCatalogColumn, countOrNull, withRowCounts, type CollectedTable } from '../shared/relational-schema';
import { quoteIdentifier } from './open-database';

/** Runs one catalog query of the connector's own and returns its rows as JSON values. */
export type CatalogReader = (sql: string) => Promise<unknown[][]>;

/**
 * Tables and views of the open database (schema `main` unprefixed, others as `schema.name`),
 * with columns, primary-key positions, single-column foreign keys and exact row counts
 * (count(*) is cheap in DuckDB; views are not counted).
 */
export async function readDuckdbSchema(read: CatalogReader): Promise<SchemaInfo> {
  const columns = await read(`
    SELECT c.schema_name, c.table_name, CASE WHEN v.view_name IS NULL THEN 'table' ELSE 'view' END,
           c.column_name, c.data_type, c.is_nullable
      FROM duckdb_columns() c
      LEFT JOIN duckdb_views() v
        ON v.database_name = c.database_name AND v.schema_name = c.schema_name AND v.view_name = c.table_name
     WHERE c.database_name = current_database() AND NOT c.internal
     ORDER BY c.schema_name, c.table_name, c.column_index`);
  const constraints = await read(`
    SELECT schema_name, table_name, constraint_type, constraint_column_names, referenced_table, referenced_column_names
      FROM duckdb_constraints()
     WHERE database_name = current_database() AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')`);

  const primaryKeys = new Map<string, string[]>();
  const references = new Map<string, string>();
  for (const [schema, table, type, names, referencedTable, referencedNames] of constraints as [string, string, string, string[], string | null, string[]][]) {
    const key = `${schema}.${table}`;
    if (type === 'PRIMARY KEY') primaryKeys.set(key, names);
    else if (names.length === 1 && referencedTable !== null && referencedNames.length === 1) {
      references.set(`${key}.${names[0] ?? ''}`, `${referencedTable}.${referencedNames[0] ?? ''}`);
    }
  }

  const tables = new Map<string, CollectedTable>();
  for (const [schema, relation, kind, column, type, nullable] of columns as [string, string, 'table' | 'view', string, string, boolean][]) {
    const key = `${schema}.${relation}`;
    addCatalogColumn(
      tables,
      {
        name: schema === 'main' ? relation : key,
        kind,
        qualified: `${quoteIdentifier(schema)}.${quoteIdentifier(relation)}`,
        countable: kind === 'table',
      },
      { name: column, type, nullable, primaryKey: (primaryKeys.get(key)?.indexOf(column) ?? -1) + 1, references: references.get(`${key}.${column}`) ?? null },
    );
  }

  return withRowCounts(tables.values(), (qualified) => countOrNull(async () => (await read(`SELECT count(*) FROM ${qualified}`))[0]?.[0]));
}
