import type { TableInfo } from '../../src-main/contract';

/** The tables of one schema or catalog outside the connection's default, in catalog order. */
export interface NamespaceGroup {
  namespace: string;
  tables: TableInfo[];
}

/**
 * Splits a schema's tables into those of the connection's default schema, listed first as they
 * are, and one group per other namespace (schema, or another catalog's `catalog.schema`), in the
 * order the catalog first names them: a warehouse's many catalogs then stay one row each.
 */
export function groupByNamespace(tables: readonly TableInfo[]): { own: TableInfo[]; groups: NamespaceGroup[] } {
  const own: TableInfo[] = [];
  const groups = new Map<string, NamespaceGroup>();
  for (const table of tables) {
    if (table.namespace === undefined) {
      own.push(table);
      continue;
    }
    let group = groups.get(table.namespace);
    if (group === undefined) {
      group = { namespace: table.namespace, tables: [] };
      groups.set(table.namespace, group);
    }
    group.tables.push(table);
  }
  return { own, groups: [...groups.values()] };
}

/** A table's name within its group: the part after `namespace.` (its full name when it has none). */
export function nameInGroup(table: TableInfo): string {
  return table.namespace !== undefined && table.name.startsWith(`${table.namespace}.`) ? table.name.slice(table.namespace.length + 1) : table.name;
}

/** The tree key of a namespace group, apart from table keys (table names). */
export const groupKey = (namespace: string): string => `namespace:${namespace}`;
