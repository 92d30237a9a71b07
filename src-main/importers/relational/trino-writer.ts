import { WorkbenchError } from '../../contract/errors';
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
import { isPartial, judgeSchema, partialName, pendingParts, pendingTable } from './trino-import-state';

/** Values per INSERT: Trino takes literals only, and its default query text limit is 1 MB. */
const valuesPerInsert = 2000;

/**
 * `trino://USER@HOST:PORT/CATALOG`: one schema per relational dump in the writable catalog the
 * URI names (Trino folds names to lower case: `USA1836` lands in `usa1836`), read back with
 * `trino://USER@HOST:PORT/CATALOG/usa1836`. Trino has no key constraints, and most connectors
 * no multi-statement transactions, so an import is made all-or-nothing by loading under partial
 * names and swapping the tables in under a pending marker (trino-import-state.ts): an import cut
 * short, by a bad row or a killed process, leaves nothing read as imported and an earlier import
 * whole, and the next run clears what it left. Tables get an `import_order` column (see
 * table-plan), since Trino returns rows in no set order.
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
    switch (judgeSchema(await this.tablesOf(schema))) {
      case 'empty':
      case 'partial':
        return null;
      case 'foreign':
        return notMadeByImport(this.location(dump));
      case 'pending': {
        const rows = await this.rows(`SELECT parts FROM ${this.qualified(schema, pendingTable)}`);
        // No digest, so never taken as this dump: the next import replaces what the swap touched.
        return { sha256: '', parts: pendingParts(rows.map((row) => row[0])) };
      }
      case 'recorded': {
        const [record] = await this.rows(`SELECT sha256, parts FROM ${this.qualified(schema, recordTable)} LIMIT 1`);
        return recordFromRow(record === undefined ? undefined : { sha256: record[0], parts: record[1] }) ?? notMadeByImport(this.location(dump));
      }
    }
  }

  async write(dump: DumpSource, previous: ImportRecord | null): Promise<CreatedPart[]> {
    const dumpTables = parseSqlDump(dump.text, dump.path);
    const parts = partsOf(dumpTables);
    const schema = schemaNameFor(dump.name);
    const tables = planTables([recordAsTable(dump, parts), ...dumpTables], 'trino');
    await this.rows(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(this.endpoint.catalog)}.${quoteIdentifier(schema)}`);
    // What an import cut short left loading; an earlier complete import is not touched yet.
    await this.dropPartials(schema);
    try {
      for (const table of tables) await this.load(schema, table);
    } catch (error) {
      // A failed load leaves nothing behind (a killed one leaves partial tables to the next run),
      // not even the schema when it holds nothing else; DROP SCHEMA refuses one that is not empty.
      await this.dropPartials(schema).catch(() => undefined);
      await this.rows(`DROP SCHEMA ${quoteIdentifier(this.endpoint.catalog)}.${quoteIdentifier(schema)}`).catch(() => undefined);
      throw error;
    }
    await this.swapIn(schema, tables.map((table) => table.name), previous?.parts ?? []);
    return parts;
  }

  async close(): Promise<void> {}

  /**
   * Creates and fills one table under its partial name. The first (the record) is created under
   * a name of its own and renamed, so a catalog that cannot rename tables is found out before
   * any data is sent; each INSERT's row count is checked against the rows it carried.
   */
  private async load(schema: string, table: PlannedTable): Promise<void> {
    const target = this.qualified(schema, partialName(table.name));
    const checksRenames = table.name === recordTable;
    const created = checksRenames ? this.qualified(schema, `${partialName(table.name)}_new`) : target;
    await this.rows(createTableSql(table, created));
    if (checksRenames) await this.renameTable(created, target);
    for (const rows of batches(table.rows, table.columns.length, valuesPerInsert)) {
      const tuples = rows.map((row) => `(${row.map((value, index) => literal(value, table.columns[index]?.type ?? '')).join(', ')})`);
      const [written] = await this.rows(`INSERT INTO ${target} VALUES ${tuples.join(', ')}`);
      if (Number(written?.[0]) !== rows.length) {
        throw new WorkbenchError('query-failed', `Trino wrote ${String(written?.[0])} of the ${rows.length} rows sent into ${target}`);
      }
    }
  }

  /**
   * Puts the loaded tables in place: the pending marker first (naming every table the swap
   * may touch, the earlier import's too), then the earlier import's tables the dump no longer
   * has dropped, each table replaced by its loaded one, the record last, the marker out.
   */
  private async swapIn(schema: string, loaded: string[], previous: CreatedPart[]): Promise<void> {
    const loadedNames = new Set(loaded.map((name) => name.toLowerCase()));
    const touched = [...previous, ...loaded.map((name) => ({ kind: 'table' as const, name, count: 0 }))];
    const marker = this.qualified(schema, pendingTable);
    await this.rows(`CREATE TABLE IF NOT EXISTS ${marker} (parts varchar)`);
    await this.rows(`INSERT INTO ${marker} VALUES (${stringLiteral(JSON.stringify(touched))})`);
    for (const part of previous) {
      if (!loadedNames.has(part.name.toLowerCase())) await this.rows(`DROP TABLE IF EXISTS ${this.qualified(schema, part.name)}`);
    }
    // The record last, so it stands only beside the tables it describes.
    for (const name of [...loaded.filter((name) => name !== recordTable), recordTable]) {
      await this.rows(`DROP TABLE IF EXISTS ${this.qualified(schema, name)}`);
      await this.renameTable(this.qualified(schema, partialName(name)), this.qualified(schema, name));
    }
    await this.rows(`DROP TABLE ${marker}`);
  }

  /** `ALTER TABLE … RENAME TO …`, naming the catalog when its connector cannot rename tables. */
  private async renameTable(from: string, to: string): Promise<void> {
    try {
      await this.rows(`ALTER TABLE ${from} RENAME TO ${to}`);
    } catch (caught) {
      const error = WorkbenchError.from(caught);
      if (!error.message.includes('NOT_SUPPORTED')) throw error;
      throw new WorkbenchError(
        'unsupported',
        `Trino catalog ${this.endpoint.catalog} cannot rename tables (${error.message}); an import loads each dump beside the earlier one and renames it into place, so import into a catalog whose connector can rename tables (memory, hive, iceberg …)`,
        { cause: error },
      );
    }
  }

  /** Drops every partial table of the schema: what a load left, whoever cut it short. */
  private async dropPartials(schema: string): Promise<void> {
    for (const name of (await this.tablesOf(schema)).filter(isPartial)) await this.rows(`DROP TABLE IF EXISTS ${this.qualified(schema, name)}`);
  }

  /** The table names of one schema of the catalog (none when it does not exist). */
  private async tablesOf(schema: string): Promise<string[]> {
    const info = `${quoteIdentifier(this.endpoint.catalog)}.information_schema`;
    return (await this.rows(`SELECT table_name FROM ${info}.tables WHERE table_schema = ${stringLiteral(schema)}`)).map((row) => String(row[0]));
  }

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
