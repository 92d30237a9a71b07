import { basename, extname, join, resolve } from 'node:path';

import { DuckDBInstance } from '@duckdb/node-api';

import { makeTempCopyDir, removeTempCopyDir } from './temp-copy';

/**
 * Instance options that stay fixed for the instance's life: external access off refuses
 * reading or writing any other file (COPY, ATTACH, read_csv on a path, INSTALL); extensions
 * are never downloaded or loaded; the configuration is locked so no SET can undo any of this.
 * The what-if sandbox opens its writable copies with these; connectors add READ_ONLY, which
 * refuses every change to the catalog and data.
 */
export const lockedDownOptions: Record<string, string> = {
  enable_external_access: 'false',
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  allow_community_extensions: 'false',
  allow_unsigned_extensions: 'false',
  lock_configuration: 'true',
};

const lockedReadOnlyOptions: Record<string, string> = { access_mode: 'READ_ONLY', ...lockedDownOptions };

export interface OpenedDatabase {
  instance: DuckDBInstance;
  /** Deletes whatever the open created (the temp copy of a CSV/Parquet file). */
  cleanup(): void;
}

/** Opens an existing DuckDB database file read-only and locked down. */
export async function openReadOnlyDatabase(path: string): Promise<OpenedDatabase> {
  const instance = await DuckDBInstance.create(resolve(path), lockedReadOnlyOptions);
  return { instance, cleanup: () => undefined };
}

export type FileFormat = 'csv' | 'parquet';

/** `trades.csv` → `trades`: the name the file's table gets. */
export function tableNameForFile(path: string): string {
  const name = basename(path, extname(path)).replace(/\.(csv|tsv|parquet)$/i, '');
  return name === '' ? 'data' : name;
}

/**
 * Exposes a CSV or Parquet file as a table in a read-only database. The file's rows are
 * copied into a temporary database file which is then reopened like any database: read-only,
 * with external access off. A view over the file would need the file on DuckDB's allowed
 * list, and DuckDB then lets COPY … TO overwrite allowed files (even `EXPLAIN ANALYZE COPY`),
 * so the copy is what keeps the analyst's file safe. Cost: the open reads the whole file.
 * The copy's folder goes away with the connector, or with the process (see temp-copy.ts).
 */
export async function openFileAsTable(file: string, format: FileFormat): Promise<OpenedDatabase> {
  const source = resolve(file);
  const dir = makeTempCopyDir();
  const databasePath = join(dir, 'file.duckdb');
  const cleanup = (): void => removeTempCopyDir(dir);
  try {
    const writer = await DuckDBInstance.create(databasePath, { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
    try {
      const connection = await writer.connect();
      const reader = format === 'csv' ? 'read_csv' : 'read_parquet';
      await connection.run(`CREATE TABLE ${quoteIdentifier(tableNameForFile(source))} AS SELECT * FROM ${reader}(${quoteLiteral(source)})`);
      connection.closeSync();
    } finally {
      writer.closeSync();
    }
    const instance = await DuckDBInstance.create(databasePath, lockedReadOnlyOptions);
    return { instance, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
