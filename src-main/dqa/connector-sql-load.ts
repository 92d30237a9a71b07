/**
 * Reads the DQA tables of a relational database through its Connector into the same
 * `TableRows` a parsed dump gives, then maps them with the dump loaders (load-relational.ts),
 * so both paths validate and convert values identically.
 *
 * Row order is part of the annotation's tie-break and of its floating-point sums, so every
 * table is read in an explicit order (see `orderClause`):
 * - a column named `import_order`, when the table has one (an importer may add it);
 * - SQLite and DuckDB: `rowid`, which is insertion order for ordinary tables. Caveat: in
 *   SQLite a column declared exactly `INTEGER PRIMARY KEY` *is* the rowid, so such a table
 *   comes back in key order (the DQA dumps declare `INT`, so their rowid is insertion order);
 * - PostgreSQL: `ctid`, the physical position, which is insertion order for a table loaded
 *   once and never updated;
 * - MySQL/MariaDB: no usable insertion order exists (InnoDB returns rows in primary-key
 *   order), so rows come back unordered and a warning says ties may break differently.
 *
 * The `has_has_merchant` spelling defect is repaired here too: columns are renamed with the
 * dump parsers' repair, and a table holding both spellings is merged row by row (they must
 * not disagree).
 */
import type { CellValue, Engine, SchemaInfo, TableInfo } from '../contract/data';
import type { Connector } from '../connectors/connector';
import type { BuildingData } from './building-data';
import { readAllRows } from './connector-rows';
import { repairFieldName } from './dump-defects';
import { buildingFromTables, locatingFromTables, type TableRows } from './load-relational';
import { DqaDataError } from './load-values';
import type { LocatingData } from './locating-data';

/** The name of an explicit order column an importer may add to every table. */
export const IMPORT_ORDER_COLUMN = 'import_order';

export const LOCATING_TABLES = ['country', 'trade_node', 'flow', 'node_country'] as const;
export const BUILDING_TABLES = ['goods', 'building', 'supply', 'demand'] as const;

export interface ConnectorLoad<T> {
  data: T;
  /** How each table or element was ordered, e.g. `trade_node by rowid`. */
  ordering: string[];
  /** Anything that may make the result differ from the dump's (e.g. no insertion order). */
  warnings: string[];
}

type RelationalSchema = Extract<SchemaInfo, { kind: 'relational' }>;

function quoteIdentifier(engine: Engine, name: string): string {
  return engine === 'mysql' ? `\`${name.replaceAll('`', '``')}\`` : `"${name.replaceAll('"', '""')}"`;
}

/** The ORDER BY that yields table (insertion) order on this engine, or null when there is none. */
function orderClause(engine: Engine, table: TableInfo): { sql: string | null; description: string } {
  const explicit = table.columns.find((column) => column.name.toLowerCase() === IMPORT_ORDER_COLUMN);
  if (explicit !== undefined) {
    return { sql: `ORDER BY ${quoteIdentifier(engine, explicit.name)}`, description: `${table.name} by ${explicit.name}` };
  }
  if (table.kind === 'table' && (engine === 'sqlite' || engine === 'duckdb')) return { sql: 'ORDER BY rowid', description: `${table.name} by rowid` };
  if (table.kind === 'table' && engine === 'postgres') return { sql: 'ORDER BY ctid', description: `${table.name} by ctid (physical order)` };
  return { sql: null, description: `${table.name} in the order the engine returns` };
}

function findTable(schema: RelationalSchema, name: string, source: string): TableInfo {
  const table = schema.tables.find((t) => t.name.toLowerCase() === name);
  if (table === undefined) {
    throw new DqaDataError(`${source}: missing table ${name} (found: ${schema.tables.map((t) => t.name).join(', ') || 'none'})`);
  }
  return table;
}

/**
 * Renames defective column names and merges columns that repair to the same name: the value
 * is the first non-null one, and two different non-null values are an error.
 */
function repairColumns(tableName: string, columns: string[], rows: readonly Readonly<Record<string, CellValue>>[]): TableRows {
  const sources = new Map<string, string[]>();
  for (const column of columns) {
    const repaired = repairFieldName(column);
    const key = repaired.toLowerCase();
    const list = sources.get(key);
    if (list === undefined) sources.set(key, [column]);
    else list.push(column);
  }
  const names = [...sources.values()].map((list) => repairFieldName(list[0] as string));
  const merged = rows.map((row, rowIndex) =>
    [...sources.values()].map((list) => {
      let value: CellValue = null;
      for (const column of list) {
        const candidate = row[column] ?? null;
        if (candidate === null) continue;
        if (value !== null && value !== candidate) {
          throw new DqaDataError(`${tableName} row ${rowIndex + 1}: columns ${list.join(' and ')} disagree (${JSON.stringify(value)} vs ${JSON.stringify(candidate)})`);
        }
        value = candidate;
      }
      return value;
    }),
  );
  return { name: tableName, columns: names.map((name) => ({ name })), rows: merged };
}

async function readTables(connector: Connector, names: readonly string[], source: string): Promise<{ tables: TableRows[]; ordering: string[]; warnings: string[] }> {
  const schema = await connector.schema();
  if (schema.kind !== 'relational') throw new DqaDataError(`${source}: expected a relational database, found a ${schema.kind} one`);
  const tables: TableRows[] = [];
  const ordering: string[] = [];
  const warnings: string[] = [];
  for (const name of names) {
    const table = findTable(schema, name, source);
    const order = orderClause(connector.engine, table);
    const text = `SELECT * FROM ${quoteIdentifier(connector.engine, table.name)}${order.sql === null ? '' : ` ${order.sql}`}`;
    const { columns, rows } = await readAllRows(connector, text, `${source}: table ${table.name}`);
    tables.push(repairColumns(table.name, columns, rows));
    ordering.push(order.description);
    if (order.sql === null) {
      warnings.push(`${table.name}: ${connector.engine} keeps no insertion order; ties and float-level sums may differ from the dump's table order`);
    }
  }
  return { tables, ordering, warnings };
}

export async function locatingFromSqlConnector(connector: Connector, source = `${connector.engine} database`): Promise<ConnectorLoad<LocatingData>> {
  const { tables, ordering, warnings } = await readTables(connector, LOCATING_TABLES, source);
  return { data: locatingFromTables(tables, source), ordering, warnings };
}

export async function buildingFromSqlConnector(connector: Connector, source = `${connector.engine} database`): Promise<ConnectorLoad<BuildingData>> {
  const { tables, ordering, warnings } = await readTables(connector, BUILDING_TABLES, source);
  return { data: buildingFromTables(tables, source), ordering, warnings };
}
