/**
 * What-if on a database server (PostgreSQL, MySQL/MariaDB, Trino). The sandbox cannot copy a server's
 * files, and a read-only login cannot make a copy on the server, so the tables the experiment's
 * statements name are read through the ordinary read-only connector (`SELECT *`, nothing else)
 * into a DuckDB database in the scratch folder. The experiment then runs there, in DuckDB SQL.
 *
 * The proof that the server is untouched is a digest of the rows read, taken again after the
 * run: any difference means another writer changed the tables meanwhile, and the result is
 * discarded as it would be for a file.
 */
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { CellValue, TableInfo } from '../contract/data';
import { WorkbenchError } from '../contract/errors';
import type { CopiedTable } from '../contract/whatif';
import type { Connector } from '../connectors/connector';
import { quoteIdentifier as quoteDuckdb } from '../connectors/duckdb/open-database';
import { quoteIdentifier as quoteMysql } from '../connectors/mysql/schema';
import { quoteIdentifier as quotePostgres } from '../connectors/postgres/schema';
import { quoteIdentifier as quoteTrino } from '../connectors/trino/schema';
import type { SandboxSource, Snapshot } from './sandbox-source';

/** What one experiment may copy from a server: enough for real decisions, bounded for a desktop's memory. */
export const WHATIF_MAX_COPIED_ROWS = 1_000_000;

const READ_TIMEOUT_MS = 120_000;

type ServerEngine = 'postgres' | 'mysql' | 'trino';

/** A listed table split into schema and name, e.g. `sales.orders` or `orders`. */
function parts(listedName: string): { schema: string | null; name: string } {
  const dot = listedName.indexOf('.');
  return dot < 0 ? { schema: null, name: listedName } : { schema: listedName.slice(0, dot), name: listedName.slice(dot + 1) };
}

function quoteOn(engine: ServerEngine, listedName: string): string {
  const quote = engine === 'postgres' ? quotePostgres : engine === 'trino' ? quoteTrino : quoteMysql;
  const { schema, name } = parts(listedName);
  return schema === null ? quote(name) : `${quote(schema)}.${quote(name)}`;
}

/** Words and quoted identifiers in SQL text, lower-cased: which names a statement may refer to. */
function identifiersIn(text: string): Set<string> {
  const words = new Set<string>();
  for (const match of text.matchAll(/"((?:[^"]|"")+)"|`((?:[^`]|``)+)`|([\p{L}_][\p{L}\p{N}_$]*)/gu)) {
    const word = match[1]?.replace(/""/g, '"') ?? match[2]?.replace(/``/g, '`') ?? match[3] ?? '';
    words.add(word.toLowerCase());
  }
  return words;
}

/**
 * The tables the statements may read or change. A name that merely appears (say, as a column
 * or in a string) copies one table too many, which costs time but never changes a result.
 */
export function tablesNamedIn(texts: readonly string[], tables: readonly TableInfo[]): TableInfo[] {
  const words = identifiersIn(texts.join('\n'));
  return tables.filter((table) => words.has(parts(table.name).name.toLowerCase()));
}

/** The DuckDB type that holds a server column's values without changing what SQL computes on them. */
export function duckdbTypeFor(declared: string): string {
  const type = declared.toLowerCase().trim();
  if (/^(tiny|small|medium|big)?int(eger)?\b.*unsigned|^bigint unsigned/.test(type)) return 'HUGEINT';
  if (/^(tiny|small|medium|big)?int(eger)?\b|^int[248]\b|^(small|big)?serial\b/.test(type)) return 'BIGINT';
  const decimal = /^(numeric|decimal)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(type);
  if (decimal) {
    const precision = Number(decimal[2]);
    const scale = Number(decimal[3] ?? 0);
    return precision <= 38 ? `DECIMAL(${precision},${scale})` : 'DOUBLE';
  }
  if (/^(numeric|decimal|real|float|double)/.test(type)) return 'DOUBLE';
  if (/^bool/.test(type)) return 'BOOLEAN';
  if (type === 'date') return 'DATE';
  if (/^timestamp.*with time zone|^timestamptz/.test(type)) return 'TIMESTAMPTZ';
  if (/^(timestamp|datetime)/.test(type)) return 'TIMESTAMP';
  return 'VARCHAR';
}

interface ReadTable {
  table: TableInfo;
  /** As `SELECT *` returned them, which is the order of the values in each row. */
  columns: string[];
  rows: CellValue[][];
}

/** sha256 over each table's name and its rows as JSON, rows sorted so the server's row order does not matter. */
function digestOf(read: readonly ReadTable[]): string {
  const hash = createHash('sha256');
  for (const { table, rows } of read) {
    hash.update(`\u0000${table.name}\u0000`);
    for (const line of rows.map((row) => JSON.stringify(row)).sort()) hash.update(`${line}\n`);
  }
  return `sha256:${hash.digest('hex')}`;
}

async function readTables(engine: ServerEngine, connector: Connector, tables: readonly TableInfo[], maxRows: number, signal?: AbortSignal): Promise<ReadTable[]> {
  const read: ReadTable[] = [];
  let budget = maxRows;
  const tooMany = (): WorkbenchError =>
    new WorkbenchError(
      'invalid-request',
      `the tables the experiment names (${tables.map((table) => table.name).join(', ')}) hold more than ${maxRows.toLocaleString('en-US')} rows, more than a what-if copies from a server; name only the tables the change and objective need`,
    );
  const known = tables.reduce((sum, table) => sum + (table.rowCount ?? 0), 0);
  if (known > maxRows) throw tooMany();
  for (const table of tables) {
    if (signal?.aborted) throw new WorkbenchError('cancelled', 'the what-if was stopped while copying the data');
    let result;
    try {
      result = await connector.query(`SELECT * FROM ${quoteOn(engine, table.name)}`, { maxRows: budget, timeoutMs: READ_TIMEOUT_MS, ...(signal ? { signal } : {}) });
    } catch (error) {
      const failure = WorkbenchError.from(error);
      throw new WorkbenchError(failure.code, `copying table ${table.name}: ${failure.message}`);
    }
    if (result.truncated) throw tooMany();
    budget -= result.rows.length;
    read.push({ table, columns: result.columns.map((column) => column.name), rows: result.rows });
  }
  return read;
}

/** Catalog names DuckDB keeps for itself, which a copy's file must not take. */
const RESERVED_CATALOGS = new Set(['main', 'temp', 'system', 'memory']);

/**
 * The name the copy's DuckDB catalog takes (its file's name): the schema or database a statement
 * written for the server would put before a table name, `public` on PostgreSQL and the
 * database on MySQL, so `public.sales` or `shop.sales` reaches the copied `sales` as it would
 * on the server. Anything else keeps the neutral `sandbox`.
 */
export function sandboxCatalogFor(target: { engine: ServerEngine; url: string }): string {
  if (target.engine === 'postgres') return 'public';
  let database = '';
  try {
    const path = decodeURIComponent(new URL(target.url).pathname.replace(/^\//, ''));
    // Trino: `catalog/schema`; the schema is what a statement puts before a table name there.
    database = target.engine === 'trino' ? (path.split('/')[1] ?? '') : path;
  } catch {
    return 'sandbox';
  }
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(database) && !RESERVED_CATALOGS.has(database.toLowerCase()) ? database : 'sandbox';
}

/** Writes the rows into a new DuckDB database, each column typed after the server's declared type. */
async function buildDatabase(read: readonly ReadTable[], directory: string, catalog: string): Promise<string> {
  const databasePath = join(directory, `${catalog}.duckdb`);
  const builder = await DuckDBInstance.create(databasePath, { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  try {
    const connection = await builder.connect();
    try {
      for (const [index, { table, columns, rows }] of read.entries()) {
        const { schema, name } = parts(table.name);
        if (schema !== null) await connection.run(`CREATE SCHEMA IF NOT EXISTS ${quoteDuckdb(schema)}`);
        const qualified = schema === null ? quoteDuckdb(name) : `${quoteDuckdb(schema)}.${quoteDuckdb(name)}`;
        const declared = new Map(table.columns.map((column) => [column.name, column.type]));
        const types = columns.map((name) => duckdbTypeFor(declared.get(name) ?? ''));
        await connection.run(`CREATE TABLE ${qualified} (${columns.map((name, i) => `${quoteDuckdb(name)} ${types[i] ?? 'VARCHAR'}`).join(', ')})`);
        if (rows.length === 0) continue;
        // One JSON array per row, read back by DuckDB's JSON reader and cast column by column.
        const staging = join(directory, `rows-${index}.ndjson`);
        writeFileSync(staging, rows.map((row) => JSON.stringify(row)).join('\n'));
        const casts = types.map((type, i) => `(row ->> ${i})::${type}`).join(', ');
        try {
          await connection.run(`INSERT INTO ${qualified} SELECT ${casts} FROM (SELECT json::JSON AS row FROM read_json_objects('${staging.replace(/'/g, "''")}'))`);
        } catch (error) {
          throw new WorkbenchError('query-failed', `copying table ${table.name} into the sandbox: DuckDB: ${error instanceof Error ? error.message : String(error)}`);
        } finally {
          rmSync(staging, { force: true });
        }
      }
    } finally {
      connection.closeSync();
    }
  } finally {
    builder.closeSync();
  }
  return databasePath;
}

/**
 * A statement the sandbox could not compile because it names a table the copy does not hold
 * (another database, a system table, a view): the message says which tables were copied, so
 * the analyst sees that the sandbox, not the server, is what the statement runs against.
 */
export function withCopiedTables(error: unknown, copiedTables: readonly CopiedTable[] | undefined): unknown {
  if (!copiedTables || !(error instanceof WorkbenchError) || !/(Catalog|Binder) Error: .*(does not exist|Table with name)/s.test(error.message)) return error;
  return new WorkbenchError(error.code, `${error.message} (the sandbox holds copies of the server tables ${copiedTables.map((table) => table.name).join(', ')} only; views, system tables and other databases are not copied)`);
}

/**
 * The tables of a server connection that `texts` (the change and the objective) name, as a
 * what-if source. The connector must be the read-only one: this only ever runs `SELECT *`.
 */
export async function serverTablesSource(
  engine: ServerEngine,
  connector: Connector,
  texts: readonly string[],
  { maxRows = WHATIF_MAX_COPIED_ROWS, catalog = 'sandbox' }: { maxRows?: number; catalog?: string } = {},
): Promise<SandboxSource> {
  const schema = await connector.schema();
  // Trino lists other catalogs' tables as catalog.schema.table: only the connection's catalog is copied.
  const copyable = schema.kind === 'relational' ? schema.tables.filter((table) => table.kind === 'table' && (engine !== 'trino' || table.name.split('.').length <= 2)) : [];
  const tables = tablesNamedIn(texts, copyable);
  if (tables.length === 0) {
    throw new WorkbenchError('invalid-request', 'the change and the objective name none of the tables of this database (views are not copied), so there is nothing to copy into the sandbox');
  }
  return {
    description: `the tables ${tables.map((table) => table.name).join(', ')} on the server`,
    snapshot: async (scratch, signal): Promise<Snapshot> => {
      const read = await readTables(engine, connector, tables, maxRows, signal);
      const copiedTables: CopiedTable[] = read.map(({ table, rows }) => ({ name: table.name, rows: rows.length }));
      return { copyPath: await buildDatabase(read, scratch, catalog), kind: { engine: 'duckdb', format: 'duckdb' }, digest: digestOf(read), copiedTables };
    },
    digest: async (signal) => digestOf(await readTables(engine, connector, tables, maxRows, signal)),
  };
}
