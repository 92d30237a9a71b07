import type { SchemaInfo } from '../../contract/data';
import { withRowCounts, type CollectedTable } from '../shared/relational-schema';
import type { TrinoEndpoint } from './trino-url';

/** Reads rows of a catalog query (the connector's own, in a read-only transaction). */
export type CatalogRead = (text: string) => Promise<unknown[][]>;

/** Catalogs past this many are not browsed, so one huge deployment cannot stall the browser. */
const maxCatalogs = 20;

/** `"name"` with quotes doubled: a Trino identifier whatever it holds. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Every table and view of every catalog the user may see (Trino's own `system` catalog aside),
 * from each catalog's information_schema. Names are as short as the session lets a query write
 * them: bare in the connection's catalog and schema, `schema.table` elsewhere in its catalog,
 * `catalog.schema.table` in other catalogs. Rows are counted for the connection's catalog only:
 * a count in a lake is a scan.
 */
export async function readTrinoSchema(endpoint: TrinoEndpoint, read: CatalogRead, countRows: (qualified: string) => Promise<number | null>): Promise<SchemaInfo> {
  const catalogs = (await read('SHOW CATALOGS')).map((row) => String(row[0])).filter((name) => name !== 'system');
  // The connection's catalog first, so its tables lead the browser and get the counts.
  const ordered = [endpoint.catalog, ...catalogs.filter((name) => name !== endpoint.catalog).sort()].slice(0, maxCatalogs);
  const tables = new Map<string, CollectedTable>();
  for (const catalog of ordered) {
    const info = `${quoteIdentifier(catalog)}.information_schema`;
    const kinds = new Map<string, 'table' | 'view'>();
    for (const [schema, table, type] of await read(`SELECT table_schema, table_name, table_type FROM ${info}.tables WHERE table_schema <> 'information_schema'`)) {
      kinds.set(`${String(schema)}.${String(table)}`, String(type) === 'VIEW' ? 'view' : 'table');
    }
    const columns = await read(
      `SELECT table_schema, table_name, column_name, data_type, is_nullable FROM ${info}.columns WHERE table_schema <> 'information_schema' ORDER BY table_schema, table_name, ordinal_position`,
    );
    for (const [schema, table, column, type, nullable] of columns) {
      const schemaName = String(schema);
      const tableName = String(table);
      const namespace = namespaceOf(endpoint, catalog, schemaName);
      const name = namespace === undefined ? tableName : `${namespace}.${tableName}`;
      let collected = tables.get(name);
      if (collected === undefined) {
        const kind = kinds.get(`${schemaName}.${tableName}`) ?? 'table';
        collected = {
          name,
          ...(namespace === undefined ? {} : { namespace }),
          kind,
          columns: [],
          rowCount: null,
          qualified: [catalog, schemaName, tableName].map(quoteIdentifier).join('.'),
          countable: kind === 'table' && catalog === endpoint.catalog,
        };
        tables.set(name, collected);
      }
      // Trino has no key constraints: no column is part of a primary key or references another.
      collected.columns.push({ name: String(column), type: String(type), nullable: String(nullable) === 'YES', primaryKey: 0 });
    }
  }
  return withRowCounts(tables.values(), countRows);
}

/** `catalog.schema` in another catalog, `schema` elsewhere in the connection's; none in its own schema. */
function namespaceOf(endpoint: TrinoEndpoint, catalog: string, schema: string): string | undefined {
  if (catalog !== endpoint.catalog) return `${catalog}.${schema}`;
  if (schema !== endpoint.schema) return schema;
  return undefined;
}
