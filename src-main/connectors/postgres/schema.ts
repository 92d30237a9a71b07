import type { SchemaInfo } from '../../contract/data';
import { addCatalogColumn, withRowCounts, type CollectedTable } from '../shared/relational-schema';
import type { CappedRows } from './capped-query';

/** Runs one read-only catalog query; the connector supplies its own read-only transaction. */
export type CatalogReader = (text: string, values: unknown[]) => Promise<CappedRows>;

/** Tables below this size get an exact count(*); larger ones report null rather than stall. */
const exactCountMaxBytes = 64 * 1024 * 1024;

/**
 * Every table, partitioned table, view and foreign table the login can see outside the system
 * schemas, with its columns in order, primary-key positions and single-column foreign keys.
 */
const columnsSql = `
SELECT n.nspname, c.relname, c.relkind, a.attname,
       format_type(a.atttypid, a.atttypmod),
       NOT a.attnotnull,
       COALESCE(array_position(pk.conkey, a.attnum), 0),
       (SELECT CASE WHEN rn.nspname = 'public' THEN '' ELSE rn.nspname || '.' END || rc.relname || '.' || ra.attname
          FROM pg_constraint f
          JOIN pg_class rc ON rc.oid = f.confrelid
          JOIN pg_namespace rn ON rn.oid = rc.relnamespace
          JOIN pg_attribute ra ON ra.attrelid = f.confrelid AND ra.attnum = f.confkey[array_position(f.conkey, a.attnum)]
         WHERE f.conrelid = c.oid AND f.contype = 'f' AND a.attnum = ANY (f.conkey)
         LIMIT 1),
       CASE WHEN c.relkind IN ('r', 'p') AND pg_total_relation_size(c.oid) <= $1 THEN true ELSE false END
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_constraint pk ON pk.conrelid = c.oid AND pk.contype = 'p'
 WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
   AND NOT c.relispartition
   AND n.nspname NOT IN ('pg_catalog', 'information_schema')
   AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'
   AND has_table_privilege(c.oid, 'SELECT')
 ORDER BY n.nspname, c.relname, a.attnum`;

export async function readPostgresSchema(read: CatalogReader, countRows: (qualifiedName: string) => Promise<number | null>): Promise<SchemaInfo> {
  const { rows } = await read(columnsSql, [exactCountMaxBytes]);
  const tables = new Map<string, CollectedTable>();
  for (const row of rows) {
    const [schema, relation, relkind, column, type, nullable, pkPosition, references, countable] = row as [
      string, string, string, string, string, boolean, number, string | null, boolean,
    ];
    addCatalogColumn(
      tables,
      {
        name: schema === 'public' ? relation : `${schema}.${relation}`,
        ...(schema === 'public' ? {} : { namespace: schema }),
        kind: relkind === 'v' || relkind === 'm' ? 'view' : 'table',
        qualified: `${quoteIdentifier(schema)}.${quoteIdentifier(relation)}`,
        countable,
      },
      { name: column, type, nullable, primaryKey: Number(pkPosition), references },
    );
  }

  return withRowCounts(tables.values(), countRows);
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
