import type { SchemaInfo } from '../contract/data';

/**
 * Describes a database to the model within a character budget. Rather than cutting the text
 * off, it drops detail level by level: first column types and keys go, then column lists of
 * the largest tables are shortened, and the summary always says what it left out.
 */
export function summarizeSchema(schema: SchemaInfo, budget = 6000): string {
  const levels = schema.kind === 'relational' ? relationalLevels(schema) : graphLevels(schema);
  for (const level of levels) {
    if (level.length <= budget) return level;
  }
  return levels[levels.length - 1] as string;
}

type Relational = Extract<SchemaInfo, { kind: 'relational' }>;
type Graph = Extract<SchemaInfo, { kind: 'graph' }>;

function relationalLevels(schema: Relational): string[] {
  const rows = (count: number | null): string => (count === null ? '' : ` — ${count} rows`);
  const full = schema.tables.map((table) => {
    const columns = table.columns.map((column) => {
      const marks = [column.primaryKey > 0 ? 'PK' : '', column.references ? `→ ${column.references}` : ''].filter(Boolean).join(' ');
      return `  ${column.name} ${column.type || 'ANY'}${marks ? ` ${marks}` : ''}`;
    });
    return `${table.kind === 'view' ? 'VIEW' : 'TABLE'} ${table.name}${rows(table.rowCount)}\n${columns.join('\n')}`;
  });
  const compact = schema.tables.map((table) => `${table.name}(${table.columns.map((column) => column.name).join(', ')})${rows(table.rowCount)}`);
  const shortened = schema.tables.map((table) => {
    const shown = table.columns.slice(0, 8).map((column) => column.name);
    const hidden = table.columns.length - shown.length;
    return `${table.name}(${shown.join(', ')}${hidden > 0 ? `, … ${hidden} more columns` : ''})${rows(table.rowCount)}`;
  });
  const namesOnly = `${schema.tables.length} tables: ${schema.tables.map((table) => `${table.name}${rows(table.rowCount)}`).join('; ')}. Ask for a table's columns with a query on the catalog when you need them.`;
  return [full.join('\n\n'), compact.join('\n'), shortened.join('\n'), namesOnly];
}

function graphLevels(schema: Graph): string[] {
  const count = (value: number | null): string => (value === null ? '' : ` — ${value}`);
  const properties = (list: { name: string; type: string }[], typed: boolean): string =>
    list.length === 0 ? '' : ` {${list.map((property) => (typed ? `${property.name}: ${property.type}` : property.name)).join(', ')}}`;
  const render = (typed: boolean): string =>
    [
      'Node labels:',
      ...schema.labels.map((label) => `  (:${label.name}${properties(label.properties, typed)})${count(label.count)}`),
      'Relationship types:',
      ...schema.relationshipTypes.map(
        (type) => `  [:${type.name}${properties(type.properties, typed)}]${type.endpoints?.length ? ` ${type.endpoints.join(', ')}` : ''}${count(type.count)}`,
      ),
    ].join('\n');
  const namesOnly = `Labels: ${schema.labels.map((label) => label.name).join(', ')}. Relationship types: ${schema.relationshipTypes.map((type) => type.name).join(', ')}.`;
  return [render(true), render(false), namesOnly];
}
