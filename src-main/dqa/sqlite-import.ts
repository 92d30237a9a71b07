import { openSqliteFile } from '../native/better-sqlite3';
import { renameSync, rmSync } from 'node:fs';
import type { DumpTable, DumpValue } from './sql-dump';

/**
 * Writes parsed dump tables into a new SQLite file. The file is built beside the target and
 * renamed into place, so a crash never leaves a half-written database under the final name.
 */
export function writeSqliteDatabase(tables: DumpTable[], path: string): void {
  const building = `${path}.partial`;
  rmSync(building, { force: true });
  const database = openSqliteFile(building);
  try {
    database.transaction(() => {
      for (const table of tables) {
        database.exec(createTableStatement(table));
        const placeholders = table.columns.map(() => '?').join(', ');
        const insert = database.prepare(`INSERT INTO ${quote(table.name)} VALUES (${placeholders})`);
        for (const row of table.rows) insert.run(row.map(toSqliteValue));
      }
    })();
    database.pragma('journal_mode = DELETE');
  } finally {
    database.close();
  }
  renameSync(building, path);
}

function createTableStatement(table: DumpTable): string {
  const columns = table.columns.map((column) => `${quote(column.name)} ${column.declaredType}`);
  if (table.primaryKey.length > 0) columns.push(`PRIMARY KEY (${table.primaryKey.map(quote).join(', ')})`);
  return `CREATE TABLE ${quote(table.name)} (${columns.join(', ')})`;
}

/** SQLite has no boolean type: store 0/1 as MySQL does for BOOLEAN columns. */
function toSqliteValue(value: DumpValue): string | number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
