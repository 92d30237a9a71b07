import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { parseSqlDump } from '../../dqa/sql-dump';
import type { DumpFile, DumpSource } from '../dump-files';
import type { DumpWriter } from '../dump-writer';
import type { CreatedPart, ImportRecord } from '../import-outcome';
import { notMadeByImport } from '../target-guard';
import { createTableSql, doubleQuoted, insertStatements, type SqlDialect } from './sql-text';
import { partsOf, planTables, recordAsTable, recordFromRow, recordTable } from './table-plan';

const duckdb: SqlDialect = { quote: doubleQuoted, placeholder: (index) => `$${index + 1}` };

/** Extensions are never fetched or loaded while importing. */
const quietOptions = { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' };

/**
 * `duckdb:DIR`: one DuckDB file per relational dump, `DIR/<dump>.duckdb`, built as
 * `<file>.partial` and renamed into place. DuckDB returns rows in insertion order (its
 * preserve_insertion_order setting is on by default), so no `import_order` column is added.
 */
export class DuckdbFolderWriter implements DumpWriter {
  constructor(private readonly folder: string) {
    mkdirSync(folder, { recursive: true });
  }

  location(dump: DumpFile): string {
    return join(this.folder, `${dump.name}.duckdb`);
  }

  async findRecord(dump: DumpFile): Promise<ImportRecord | null> {
    const path = this.location(dump);
    if (!existsSync(path)) return null;
    const instance = await DuckDBInstance.create(path, { ...quietOptions, access_mode: 'READ_ONLY' });
    try {
      const connection = await instance.connect();
      try {
        const found = await connection.runAndReadAll('SELECT count(*) FROM duckdb_tables() WHERE table_name = $1', [recordTable]);
        if (Number(found.getRows()[0]?.[0] ?? 0) === 0) return notMadeByImport(path);
        const reader = await connection.runAndReadAll(`SELECT sha256, parts FROM ${duckdb.quote(recordTable)} LIMIT 1`);
        const [row] = reader.getRowObjectsJS();
        return recordFromRow(row) ?? notMadeByImport(path);
      } finally {
        connection.closeSync();
      }
    } finally {
      instance.closeSync();
    }
  }

  async write(dump: DumpSource): Promise<CreatedPart[]> {
    const dumpTables = parseSqlDump(dump.text, dump.path);
    const parts = partsOf(dumpTables);
    const path = this.location(dump);
    const building = `${path}.partial`;
    removeDatabaseFiles(building);
    const instance = await DuckDBInstance.create(building, quietOptions);
    try {
      const connection = await instance.connect();
      try {
        await connection.run('BEGIN TRANSACTION');
        for (const table of planTables([...dumpTables, recordAsTable(dump, parts)], 'duckdb')) {
          await connection.run(createTableSql(table, duckdb));
          for (const insert of insertStatements(table, duckdb)) await connection.run(insert.text, insert.values as DuckDBValue[]);
        }
        await connection.run('COMMIT');
        // Everything into the database file itself, so the renamed file needs no WAL.
        await connection.run('CHECKPOINT');
      } finally {
        connection.closeSync();
      }
    } finally {
      instance.closeSync();
    }
    // The rename replaces an earlier import atomically; its WAL (if any) is stale now.
    rmSync(`${path}.wal`, { force: true });
    renameSync(building, path);
    return parts;
  }

  async close(): Promise<void> {}
}

function removeDatabaseFiles(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}.wal`, { force: true });
}
