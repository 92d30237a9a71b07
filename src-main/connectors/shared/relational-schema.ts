import type { SchemaInfo, TableInfo } from '../../contract/data';

/** A table as a schema reader collects it, before its rows are counted. */
export interface CollectedTable extends TableInfo {
  /** Quoted, schema-qualified name for the count query. */
  qualified: string;
  /** Worth an exact count (a table, not too large); views and huge tables stay null. */
  countable: boolean;
}

/** Past this many tables the rest are not counted, so a huge catalog cannot stall the browser. */
const maxTablesCounted = 300;

/**
 * Counts the rows of the countable tables (the first 300 of them) and returns the schema.
 * `countRows` answers null when a count fails; the table is listed anyway.
 */
export async function withRowCounts(tables: Iterable<CollectedTable>, countRows: (qualified: string) => Promise<number | null>): Promise<SchemaInfo> {
  const list = [...tables];
  let counted = 0;
  for (const table of list) {
    if (!table.countable || counted >= maxTablesCounted) continue;
    counted += 1;
    table.rowCount = await countRows(table.qualified);
  }
  return {
    kind: 'relational',
    tables: list.map(({ name, namespace, kind, columns, rowCount }) => ({ name, ...(namespace === undefined ? {} : { namespace }), kind, columns, rowCount })),
  };
}

/** One column as a catalog query reports it; `references` is `table.column` or null. */
export interface CatalogColumn {
  name: string;
  type: string;
  nullable: boolean;
  /** 1-based position in the primary key, 0 when not part of it. */
  primaryKey: number;
  references: string | null;
}

/**
 * Adds a catalog row's column to its table (keyed by display name), creating the table from
 * `table` on its first column. Catalog rows arrive ordered by table, then column position.
 */
export function addCatalogColumn(
  tables: Map<string, CollectedTable>,
  table: Omit<CollectedTable, 'columns' | 'rowCount'>,
  column: CatalogColumn,
): void {
  let collected = tables.get(table.name);
  if (collected === undefined) {
    collected = { ...table, columns: [], rowCount: null };
    tables.set(table.name, collected);
  }
  const { references, ...info } = column;
  collected.columns.push(references === null ? info : { ...info, references });
}

/** The value of a `count(*)` query as a number; null when the count fails (a broken view, a lock) or is empty. */
export async function countOrNull(count: () => Promise<unknown>): Promise<number | null> {
  try {
    const value = await count();
    if (value === null || value === undefined) return null;
    const number = Number(value);
    return Number.isFinite(number) ? number : null;
  } catch {
    return null;
  }
}
