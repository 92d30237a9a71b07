import { parseSqlDump, type DumpValue } from '../../dqa/sql-dump';
import { stringLiteral } from '../../connectors/trino/bind-parameters';
import { toWorkbenchError } from '../../connectors/trino/errors';
import { quoteIdentifier } from '../../connectors/trino/schema';
import { TrinoStatement, type TrinoSession } from '../../connectors/trino/trino-http';
import { parseTrinoUrl, type TrinoEndpoint } from '../../connectors/trino/trino-url';
import type { DumpFile, DumpSource } from '../dump-files';
import type { DumpWriter } from '../dump-writer';
import type { CreatedPart, ImportRecord } from '../import-outcome';
import { notMadeByImport } from '../target-guard';
import { batches, databaseNameFor, partsOf, planTables, recordAsTable, recordFromRow, recordTable, type PlannedTable } from './table-plan';

/** Values per INSERT: Trino takes literals only, and its default query text limit is 1 MB. */
const valuesPerInsert = 2000;

/**
 * `trino://USER@HOST:PORT/CATALOG`: one schema per relational dump in the writable catalog the
 * URI names (Trino folds names to lower case: `USA1836` lands in `usa1836`), read back with
 * `trino://USER@HOST:PORT/CATALOG/usa1836`. Trino has no key constraints, and most connectors
 * no multi-statement transactions, so each statement commits on its own and the import record
 * is written last: an import cut short leaves no record, and the next run replaces it. Tables
 * get an `import_order` column (see table-plan), since Trino returns rows in no set order.
 */
export class TrinoWriter implements DumpWriter {
  private readonly endpoint: TrinoEndpoint;

  /** `password` is used for this import only, never printed. */
  constructor(
    url: string,
    private readonly password: string | null,
  ) {
    this.endpoint = parseTrinoUrl(url);
  }

  location(dump: DumpFile): string {
    const host = new URL(this.endpoint.baseUrl).host;
    return `trino://${this.endpoint.user}@${host}/${this.endpoint.catalog}/${schemaNameFor(dump.name)}`;
  }

  async findRecord(dump: DumpFile): Promise<ImportRecord | null> {
    const schema = schemaNameFor(dump.name);
    const info = `${quoteIdentifier(this.endpoint.catalog)}.information_schema`;
    const tables = await this.rows(`SELECT table_name FROM ${info}.tables WHERE table_schema = ${stringLiteral(schema)}`);
    if (tables.length === 0) return null;
    if (!tables.some((row) => row[0] === recordTable)) return notMadeByImport(this.location(dump));
    const [record] = await this.rows(`SELECT sha256, parts FROM ${this.qualified(schema, recordTable)} LIMIT 1`);
    return recordFromRow(record === undefined ? undefined : { sha256: record[0], parts: record[1] }) ?? notMadeByImport(this.location(dump));
  }

  async write(dump: DumpSource, previous: ImportRecord | null): Promise<CreatedPart[]> {
    const dumpTables = parseSqlDump(dump.text, dump.path);
    const parts = partsOf(dumpTables);
    const schema = schemaNameFor(dump.name);
    await this.rows(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(this.endpoint.catalog)}.${quoteIdentifier(schema)}`);
    // The record goes first out and last in, so a half-written import is never taken as complete.
    const stale = new Set([recordTable, ...(previous?.parts ?? []).map((part) => part.name), ...dumpTables.map((table) => table.name)]);
    for (const name of stale) await this.rows(`DROP TABLE IF EXISTS ${this.qualified(schema, name)}`);
    for (const table of planTables([...dumpTables, recordAsTable(dump, parts)], 'trino')) {
      await this.rows(createTableSql(table, this.qualified(schema, table.name)));
      for (const rows of batches(table.rows, table.columns.length, valuesPerInsert)) {
        const tuples = rows.map((row) => `(${row.map((value, index) => literal(value, table.columns[index]?.type ?? '')).join(', ')})`);
        await this.rows(`INSERT INTO ${this.qualified(schema, table.name)} VALUES ${tuples.join(', ')}`);
      }
    }
    return parts;
  }

  async close(): Promise<void> {}

  private qualified(schema: string, table: string): string {
    return [this.endpoint.catalog, schema, table].map(quoteIdentifier).join('.');
  }

  /** One statement in autocommit, as the URI's user (who must be allowed to write the catalog). */
  private async rows(text: string): Promise<unknown[][]> {
    const session: TrinoSession = { endpoint: this.endpoint, password: this.password };
    try {
      const statement = await TrinoStatement.start(session, text);
      const rows: unknown[][] = [];
      for (let page = await statement.nextRows(); page !== null; page = await statement.nextRows()) rows.push(...page);
      return rows;
    } catch (error) {
      throw toWorkbenchError(error);
    }
  }
}

/** Trino keeps schema names in lower case whatever the statement's spelling. */
export function schemaNameFor(dumpName: string): string {
  return databaseNameFor(dumpName).toLowerCase();
}

/** Trino has no primary keys, and connectors such as Hive refuse NOT NULL: columns are plain. */
function createTableSql(table: PlannedTable, qualified: string): string {
  return `CREATE TABLE ${qualified} (${table.columns.map((column) => `${quoteIdentifier(column.name)} ${column.type.replace(/\s+NOT NULL$/i, '')}`).join(', ')})`;
}

/** A dump value as a Trino literal of the column's type (a double as `…E0`, so it is not read as DECIMAL). */
function literal(value: DumpValue, type: string): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return `nan()`;
    if (type === 'DOUBLE') {
      const text = String(value);
      return /e/i.test(text) ? text : `${text}E0`;
    }
    return String(value);
  }
  return stringLiteral(value);
}
