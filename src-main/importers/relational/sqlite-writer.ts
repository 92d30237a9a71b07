import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseSqlDump } from '../../dqa/sql-dump';
import { openSqliteFile } from '../../native/better-sqlite3';
import type { DumpFile, DumpSource } from '../dump-files';
import type { DumpWriter } from '../dump-writer';
import type { CreatedPart, ImportRecord } from '../import-outcome';
import { writeSqliteDatabase } from '../../dqa/sqlite-import';
import { notMadeByImport } from '../target-guard';
import { partsOf, recordAsTable, recordFromRow, recordTable } from './table-plan';

/**
 * `sqlite:DIR`: one SQLite file per relational dump, `DIR/<dump>.sqlite`, written beside its
 * final name and renamed into place (a re-import replaces the file whole). Rows keep dump
 * order as rowid order, so no `import_order` column is added.
 */
export class SqliteFolderWriter implements DumpWriter {
  constructor(private readonly folder: string) {
    mkdirSync(folder, { recursive: true });
  }

  location(dump: DumpFile): string {
    return join(this.folder, `${dump.name}.sqlite`);
  }

  async findRecord(dump: DumpFile): Promise<ImportRecord | null> {
    const path = this.location(dump);
    if (!existsSync(path)) return null;
    const database = openSqliteFile(path, { readonly: true, fileMustExist: true });
    try {
      const hasRecord = database.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(recordTable) !== undefined;
      const row = hasRecord ? (database.prepare(`SELECT sha256, parts FROM "${recordTable}" LIMIT 1`).get() as { sha256?: unknown; parts?: unknown } | undefined) : undefined;
      return recordFromRow(row) ?? notMadeByImport(path);
    } finally {
      database.close();
    }
  }

  async write(dump: DumpSource): Promise<CreatedPart[]> {
    const tables = parseSqlDump(dump.text, dump.path);
    const parts = partsOf(tables);
    writeSqliteDatabase([...tables, recordAsTable(dump, parts)], this.location(dump));
    return parts;
  }

  async close(): Promise<void> {}
}
