import type { CellValue, Engine, SchemaInfo } from '../contract/data';
import type { Connector } from '../connectors/connector';

/** A few rows of one table, so the model sees what the values look like. */
export interface TableSample {
  columns: string[];
  rows: CellValue[][];
}

/** What besides the schema shapes the summary: sample rows by table, and the question (to focus on the tables it names). */
export interface SummaryExtras {
  samples?: ReadonlyMap<string, TableSample>;
  question?: string;
}

export const sampleRowsPerTable = 3;
/** Tables sampled at most (a large schema is reduced to the tables the question names anyway). */
const maxSampledTables = 40;
/** A sample value longer than this is clipped. */
const sampleValueChars = 40;

/**
 * Describes a database to the model within a character budget. Rather than cutting the text
 * off, it drops detail level by level: first the sample rows go, then — when the question names
 * tables — the other tables are only listed, then column types and keys go, then column lists of
 * the largest tables are shortened, and the summary always says what it left out. A column
 * without a declared type (SQLite) is typed from its sample values.
 */
export function summarizeSchema(schema: SchemaInfo, budget = 6000, extras: SummaryExtras = {}): string {
  const levels = schema.kind === 'relational' ? relationalLevels(schema, extras) : graphLevels(schema);
  for (const level of levels) {
    if (level.length <= budget) return level;
  }
  return levels[levels.length - 1] as string;
}

type Relational = Extract<SchemaInfo, { kind: 'relational' }>;
type Graph = Extract<SchemaInfo, { kind: 'graph' }>;

function relationalLevels(schema: Relational, extras: SummaryExtras): string[] {
  const rows = (count: number | null): string => (count === null ? '' : ` — ${count} rows`);
  const describe = (table: Relational['tables'][number], withSamples: boolean): string => {
    const sample = extras.samples?.get(table.name);
    const columns = table.columns.map((column) => {
      const marks = [column.primaryKey > 0 ? 'PK' : '', column.references ? `→ ${column.references}` : ''].filter(Boolean).join(' ');
      return `  ${column.name} ${column.type || inferredType(sample, column.name)}${marks ? ` ${marks}` : ''}`;
    });
    const sampleLines = withSamples && sample && sample.rows.length > 0 ? [`  sample rows (${sample.columns.join(' | ')}):`, ...sample.rows.map((row) => `    ${row.map(sampleValue).join(' | ')}`)] : [];
    return [`${table.kind === 'view' ? 'VIEW' : 'TABLE'} ${table.name}${rows(table.rowCount)}`, ...columns, ...sampleLines].join('\n');
  };
  const withSamples = schema.tables.map((table) => describe(table, true));
  const full = schema.tables.map((table) => describe(table, false));
  const named = tablesNamed(schema, extras.question ?? '');
  const focused =
    named.length > 0 && named.length < schema.tables.length
      ? [
          ...schema.tables.filter((table) => named.includes(table.name)).map((table) => describe(table, true)),
          `Other tables: ${schema.tables.filter((table) => !named.includes(table.name)).map((table) => `${table.name}${rows(table.rowCount)}`).join('; ')}. Ask for their columns with a query on the catalog when you need them.`,
        ].join('\n\n')
      : null;
  const compact = schema.tables.map((table) => `${table.name}(${table.columns.map((column) => column.name).join(', ')})${rows(table.rowCount)}`);
  const shortened = schema.tables.map((table) => {
    const shown = table.columns.slice(0, 8).map((column) => column.name);
    const hidden = table.columns.length - shown.length;
    return `${table.name}(${shown.join(', ')}${hidden > 0 ? `, … ${hidden} more columns` : ''})${rows(table.rowCount)}`;
  });
  const namesOnly = `${schema.tables.length} tables: ${schema.tables.map((table) => `${table.name}${rows(table.rowCount)}`).join('; ')}. Ask for a table's columns with a query on the catalog when you need them.`;
  return [withSamples.join('\n\n'), full.join('\n\n'), ...(focused ? [focused] : []), compact.join('\n'), shortened.join('\n'), namesOnly];
}

/** A column's type read from its sample values: INTEGER, REAL or TEXT; ANY when no value says. */
function inferredType(sample: TableSample | undefined, column: string): string {
  const index = sample?.columns.indexOf(column) ?? -1;
  const values = index < 0 ? [] : (sample?.rows ?? []).map((row) => row[index]).filter((value) => value !== null && value !== undefined);
  if (values.length === 0) return 'ANY';
  if (values.every((value) => typeof value === 'number' && Number.isInteger(value))) return 'INTEGER';
  if (values.every((value) => typeof value === 'number')) return 'REAL';
  if (values.every((value) => typeof value === 'boolean')) return 'BOOLEAN';
  return 'TEXT';
}

function sampleValue(value: CellValue): string {
  if (value === null) return 'NULL';
  const text = String(value).replace(/\s+/g, ' ');
  return text.length > sampleValueChars ? `${text.slice(0, sampleValueChars)}…` : text;
}

/**
 * The tables the question names: by the table's name, or its name with underscores read as
 * spaces, as a whole word; and the tables those reference, so joins stay possible.
 */
export function tablesNamed(schema: Relational, question: string): string[] {
  const text = question.toLowerCase();
  const mentions = (name: string): boolean =>
    [name.toLowerCase(), name.toLowerCase().replace(/_/g, ' ')].some((form) => new RegExp(`(^|[^a-z0-9_])${escapeRegExp(form)}s?([^a-z0-9_]|$)`).test(text));
  const named = new Set(schema.tables.filter((table) => mentions(table.name)).map((table) => table.name));
  for (const table of schema.tables.filter((candidate) => named.has(candidate.name))) {
    for (const column of table.columns) {
      const referenced = column.references?.split('.')[0];
      if (referenced && schema.tables.some((candidate) => candidate.name === referenced)) named.add(referenced);
    }
  }
  return [...named];
}

/**
 * A few rows of each table (bounded: the tables the question names first, then the others up to
 * a fixed number), for the summary; a table that cannot be read is left out.
 */
export async function sampleTables(connector: Connector, schema: SchemaInfo, question = '', rowsPerTable = sampleRowsPerTable): Promise<Map<string, TableSample>> {
  const samples = new Map<string, TableSample>();
  if (schema.kind !== 'relational') return samples;
  const named = tablesNamed(schema, question);
  const ordered = [...schema.tables.filter((table) => named.includes(table.name)), ...schema.tables.filter((table) => !named.includes(table.name))];
  for (const table of ordered.slice(0, maxSampledTables)) {
    try {
      const result = await connector.query(`SELECT * FROM ${quoteIdentifier(connector.engine, table.name)} LIMIT ${rowsPerTable}`, { maxRows: rowsPerTable, timeoutMs: 5000 });
      samples.set(table.name, { columns: result.columns.map((column) => column.name), rows: result.rows.slice(0, rowsPerTable) });
    } catch {
      // A sample is a help, not a need: a table that cannot be read is described without one.
    }
  }
  return samples;
}

function quoteIdentifier(engine: Engine, name: string): string {
  return engine === 'mysql' ? `\`${name.replace(/`/g, '``')}\`` : `"${name.replace(/"/g, '""')}"`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
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
