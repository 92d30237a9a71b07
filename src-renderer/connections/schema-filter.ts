import type { SchemaInfo } from '../../src-main/contract';

/**
 * The schema narrowed to what a filter text names: a table (label, relationship type) whose
 * name matches keeps everything; one where only some columns (properties) match keeps those and
 * is opened, so the match is in view. Case-insensitive; an empty filter changes nothing.
 * `opened` holds the tree keys to show open (a table's name; `label:` / `type:` + name in graphs).
 */
export function filterSchema(schema: SchemaInfo, text: string): { schema: SchemaInfo; opened: Set<string> } {
  const needle = text.trim().toLowerCase();
  const opened = new Set<string>();
  if (!needle) return { schema, opened };
  const matches = (name: string): boolean => name.toLowerCase().includes(needle);

  const narrow = <T extends { name: string }, F extends { name: string }>(items: readonly T[], fields: (item: T) => readonly F[], withFields: (item: T, kept: F[]) => T, key: (item: T) => string): T[] =>
    items.flatMap((item) => {
      if (matches(item.name)) return [item];
      const kept = fields(item).filter((field) => matches(field.name));
      if (kept.length === 0) return [];
      opened.add(key(item));
      return [withFields(item, kept)];
    });

  if (schema.kind === 'relational') {
    const tables = narrow(schema.tables, (table) => table.columns, (table, columns) => ({ ...table, columns }), (table) => table.name);
    return { schema: { ...schema, tables }, opened };
  }
  const labels = narrow(schema.labels, (label) => label.properties, (label, properties) => ({ ...label, properties }), (label) => `label:${label.name}`);
  const relationshipTypes = narrow(schema.relationshipTypes, (type) => type.properties, (type, properties) => ({ ...type, properties }), (type) => `type:${type.name}`);
  return { schema: { ...schema, labels, relationshipTypes }, opened };
}
