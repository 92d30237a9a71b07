import mysql from 'mysql2/promise';
import { parseSqlDump } from '../../dqa/sql-dump';
import type { DumpFile, DumpSource } from '../dump-files';
import type { DumpWriter } from '../dump-writer';
import type { CreatedPart, ImportRecord } from '../import-outcome';
import { notMadeByImport } from '../target-guard';
import { displayUrl, urlForDatabase } from './server-database';
import { backquoted, createTableSql, insertStatements, type SqlDialect } from './sql-text';
import { databaseNameFor, partsOf, planTables, recordAsTable, recordFromRow, recordTable } from './table-plan';

const mysqlDialect: SqlDialect = { quote: backquoted, placeholder: () => '?' };

/**
 * `mysql://…` (MySQL or MariaDB): one database per relational dump, named as the dump (e.g. `USA1836`). MySQL
 * commits DDL at once, so the import record is written last: an import cut short leaves no
 * record, and the next run replaces it. Tables get an `import_order` column (see table-plan).
 */
export class MysqlWriter implements DumpWriter {
  private connection: mysql.Connection | null = null;

  /** `url` carries the password, if any: it is used here only, never printed. */
  constructor(private readonly url: string) {}

  location(dump: DumpFile): string {
    return displayUrl(urlForDatabase(this.url.replace(/^mariadb:/, 'mysql:'), databaseNameFor(dump.name)));
  }

  async findRecord(dump: DumpFile): Promise<ImportRecord | null> {
    const connection = await this.connect();
    const database = databaseNameFor(dump.name);
    const [schemas] = await connection.query<mysql.RowDataPacket[]>('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [database]);
    if (schemas.length === 0) return null;
    const [tables] = await connection.query<mysql.RowDataPacket[]>('SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [database]);
    const names = tables.map((row) => String(row.name));
    if (!names.includes(recordTable)) return names.length === 0 ? null : notMadeByImport(this.location(dump));
    const [rows] = await connection.query<mysql.RowDataPacket[]>(`SELECT sha256, parts FROM ${backquoted(database)}.${backquoted(recordTable)} LIMIT 1`);
    return recordFromRow(rows[0] as { sha256?: unknown; parts?: unknown } | undefined) ?? notMadeByImport(this.location(dump));
  }

  async write(dump: DumpSource, previous: ImportRecord | null): Promise<CreatedPart[]> {
    const dumpTables = parseSqlDump(dump.text, dump.path);
    const parts = partsOf(dumpTables);
    const database = databaseNameFor(dump.name);
    const connection = await this.connect();
    await connection.query(`CREATE DATABASE IF NOT EXISTS ${backquoted(database)} CHARACTER SET utf8mb4`);
    const stale = new Set([recordTable, ...(previous?.parts ?? []).map((part) => part.name), ...dumpTables.map((table) => table.name)]);
    for (const name of stale) await connection.query(`DROP TABLE IF EXISTS ${backquoted(database)}.${backquoted(name)}`);
    const planned = planTables([...dumpTables, recordAsTable(dump, parts)], 'mysql');
    for (const table of planned) {
      await connection.query(createTableSql(table, mysqlDialect, database));
      await connection.beginTransaction();
      // Prepared statements send numbers as binary doubles. Interpolated into the text they would
      // be read as DECIMAL literals, which MariaDB rounds to DOUBLE a unit in the last place off.
      for (const insert of insertStatements(table, mysqlDialect, database)) await connection.execute(insert.text, insert.values);
      await connection.commit();
    }
    return parts;
  }

  async close(): Promise<void> {
    await this.connection?.end().catch(() => undefined);
    this.connection = null;
  }

  private async connect(): Promise<mysql.Connection> {
    if (this.connection === null) {
      const url = new URL(this.url);
      url.protocol = 'mysql:';
      this.connection = await mysql.createConnection({ uri: url.toString(), connectTimeout: 10_000 });
    }
    return this.connection;
  }
}
