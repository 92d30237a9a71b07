import pg from 'pg';
import { parseSqlDump } from '../../dqa/sql-dump';
import type { DumpFile, DumpSource } from '../dump-files';
import type { DumpWriter } from '../dump-writer';
import type { CreatedPart, ImportRecord } from '../import-outcome';
import { notMadeByImport } from '../target-guard';
import { displayUrl, urlForDatabase } from './server-database';
import { createTableSql, doubleQuoted, insertStatements, type SqlDialect } from './sql-text';
import { databaseNameFor, partsOf, planTables, recordAsTable, recordFromRow, recordTable } from './table-plan';

const postgres: SqlDialect = { quote: doubleQuoted, placeholder: (index) => `$${index + 1}` };

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'dwb dqa import', connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * `postgres://…`: one database per relational dump, named as the dump (e.g. `USA1836`), created
 * through the URL's own database. A re-import replaces the tables in one transaction, so a
 * failed import leaves the previous one intact. Tables get an `import_order` column (see table-plan).
 */
export class PostgresWriter implements DumpWriter {
  /** `url` carries the password, if any: it is used here only, never printed. */
  constructor(private readonly url: string) {}

  location(dump: DumpFile): string {
    return displayUrl(urlForDatabase(this.url, databaseNameFor(dump.name)));
  }

  async findRecord(dump: DumpFile): Promise<ImportRecord | null> {
    const database = databaseNameFor(dump.name);
    const exists = await withClient(this.url, async (client) => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 1);
    if (!exists) return null;
    return withClient(urlForDatabase(this.url, database), async (client) => {
      const { rows } = await client.query<{ record: string | null; tables: string }>(
        "SELECT to_regclass($1)::text AS record, (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')::text AS tables",
        [`public.${recordTable}`],
      );
      if (rows[0]?.record === null) return rows[0]?.tables === '0' ? null : notMadeByImport(this.location(dump));
      const record = await client.query<{ sha256: unknown; parts: unknown }>(`SELECT sha256, parts FROM ${postgres.quote(recordTable)} LIMIT 1`);
      return recordFromRow(record.rows[0]) ?? notMadeByImport(this.location(dump));
    });
  }

  async write(dump: DumpSource, previous: ImportRecord | null): Promise<CreatedPart[]> {
    const dumpTables = parseSqlDump(dump.text, dump.path);
    const parts = partsOf(dumpTables);
    const database = databaseNameFor(dump.name);
    await withClient(this.url, async (client) => {
      const exists = (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 1;
      if (!exists) await client.query(`CREATE DATABASE ${postgres.quote(database)}`);
    });
    await withClient(urlForDatabase(this.url, database), async (client) => {
      await client.query('BEGIN');
      try {
        const stale = new Set([...(previous?.parts ?? []).map((part) => part.name), ...dumpTables.map((table) => table.name), recordTable]);
        for (const name of stale) await client.query(`DROP TABLE IF EXISTS ${postgres.quote(name)} CASCADE`);
        for (const table of planTables([...dumpTables, recordAsTable(dump, parts)], 'postgres')) {
          await client.query(createTableSql(table, postgres));
          for (const insert of insertStatements(table, postgres)) await client.query(insert.text, insert.values);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
    return parts;
  }

  async close(): Promise<void> {}
}
