import type { SchemaInfo } from '../../contract/data';
import { addCatalogColumn, withRowCounts, type CollectedTable } from '../shared/relational-schema';

/** Runs one catalog query of the connector's own in a read-only transaction. */
export type CatalogReader = (sql: string, values: unknown[]) => Promise<unknown[][]>;

/** Tables below this size get an exact COUNT(*); InnoDB's TABLE_ROWS is only an estimate. */
const exactCountMaxBytes = 64 * 1024 * 1024;
const systemSchemas = ['information_schema', 'mysql', 'performance_schema', 'sys'];

/**
 * Tables and views of the URL's database (or of every user schema when the URL names none,
 * then as `schema.table`), with columns, primary-key positions and foreign keys.
 */
export async function readMysqlSchema(read: CatalogReader, countRows: (qualified: string) => Promise<number | null>): Promise<SchemaInfo> {
  const [current] = await read('SELECT DATABASE()', []);
  const database = current?.[0];
  const scope = typeof database === 'string'
    ? { where: 'c.TABLE_SCHEMA = ?', values: [database] }
    : { where: `c.TABLE_SCHEMA NOT IN (${systemSchemas.map(() => '?').join(', ')})`, values: systemSchemas };
  const rows = await read(
    `SELECT c.TABLE_SCHEMA, c.TABLE_NAME, t.TABLE_TYPE, c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE,
            COALESCE(pk.ORDINAL_POSITION, 0),
            (SELECT CONCAT(IF(fk.REFERENCED_TABLE_SCHEMA = c.TABLE_SCHEMA, '', CONCAT(fk.REFERENCED_TABLE_SCHEMA, '.')),
                           fk.REFERENCED_TABLE_NAME, '.', fk.REFERENCED_COLUMN_NAME)
               FROM information_schema.KEY_COLUMN_USAGE fk
              WHERE fk.TABLE_SCHEMA = c.TABLE_SCHEMA AND fk.TABLE_NAME = c.TABLE_NAME AND fk.COLUMN_NAME = c.COLUMN_NAME
                AND fk.REFERENCED_TABLE_NAME IS NOT NULL
              LIMIT 1),
            COALESCE(t.DATA_LENGTH, 0) + COALESCE(t.INDEX_LENGTH, 0)
       FROM information_schema.COLUMNS c
       JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
       LEFT JOIN information_schema.KEY_COLUMN_USAGE pk
         ON pk.TABLE_SCHEMA = c.TABLE_SCHEMA AND pk.TABLE_NAME = c.TABLE_NAME AND pk.COLUMN_NAME = c.COLUMN_NAME
        AND pk.CONSTRAINT_NAME = 'PRIMARY'
      WHERE ${scope.where}
      ORDER BY c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION`,
    scope.values,
  );

  const tables = new Map<string, CollectedTable>();
  for (const row of rows) {
    const [schema, relation, tableType, column, type, isNullable, pkPosition, references, bytes] = row as [
      string, string, string, string, string, string, number | string, string | null, number | string,
    ];
    const isView = tableType === 'VIEW' || tableType === 'SYSTEM VIEW';
    addCatalogColumn(
      tables,
      {
        name: typeof database === 'string' ? relation : `${schema}.${relation}`,
        ...(typeof database === 'string' ? {} : { namespace: schema }),
        kind: isView ? 'view' : 'table',
        qualified: `${quoteIdentifier(schema)}.${quoteIdentifier(relation)}`,
        countable: !isView && Number(bytes) <= exactCountMaxBytes,
      },
      { name: column, type, nullable: isNullable === 'YES', primaryKey: Number(pkPosition), references },
    );
  }

  return withRowCounts(tables.values(), countRows);
}

export function quoteIdentifier(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}
