import { WorkbenchError } from '../../contract/errors';
import type { Connector } from '../connector';
import { DuckdbConnector, type DuckdbSession } from './duckdb-connector';
import { fileIdentity } from '../shared/file-identity';
import { addItAs, requireRegularFile, sniffFileKind } from '../shared/file-kind';
import { toWorkbenchError } from './errors';
import { openFileAsTable, openReadOnlyDatabase, type OpenedDatabase } from './open-database';

/**
 * What to open: a DuckDB database file, or a CSV / Parquet file exposed as one table named
 * after the file (`trades.csv` → table `trades`).
 */
export type DuckdbConnectorOptions = { path: string } | { csv: string } | { parquet: string };

/**
 * Opens a read-only DuckDB connector. Protection layers:
 * 1. DuckDB's own parser: exactly one statement, of type SELECT or EXPLAIN of a SELECT;
 * 2. access_mode READ_ONLY: no change to catalog or data;
 * 3. enable_external_access=false, extension autoload/autoinstall off, lock_configuration=true:
 *    no COPY to files, ATTACH, INSTALL/LOAD or reads of other files, and no SET can undo it.
 * A CSV/Parquet file is copied into a temporary database first (see openFileAsTable).
 */
export async function openDuckdbConnector(options: DuckdbConnectorOptions): Promise<Connector> {
  const file = 'path' in options ? options.path : 'csv' in options ? options.csv : options.parquet;
  const source = { path: file, copied: !('path' in options), open: () => openSession(options, file) };
  return new DuckdbConnector(await source.open(), source);
}

/** Opens the file as it is now, remembering which file that was (see DuckdbConnector). */
async function openSession(options: DuckdbConnectorOptions, file: string): Promise<DuckdbSession> {
  const identity = fileIdentity(file, { withContentStamp: !('path' in options) });
  if (identity === null) throw new WorkbenchError('not-found', `DuckDB: no such file: ${file}`);
  requireRegularFile(file, expectedKind(options));
  let database: OpenedDatabase;
  try {
    database = 'path' in options
      ? await openReadOnlyDatabase(options.path)
      : await openFileAsTable(file, 'csv' in options ? 'csv' : 'parquet');
  } catch (error) {
    throw openError(options, file, error);
  }
  try {
    const connection = await database.instance.connect();
    return { database, connection, file: identity };
  } catch (error) {
    database.instance.closeSync();
    database.cleanup();
    throw toWorkbenchError(error);
  }
}

function expectedKind(options: DuckdbConnectorOptions): string {
  return 'path' in options ? 'a DuckDB database file' : 'csv' in options ? 'a CSV file' : 'a Parquet file';
}

/**
 * Why a file could not be opened, in one sentence. A file of another kind says which kind it
 * looks like (DuckDB's own words for a SQLite file given as a database are about extensions it
 * may not load, for a CSV file about an in-memory database); a CSV or Parquet file DuckDB could
 * not read keeps the first line of DuckDB's reason, without its list of reader options and the
 * internal statement that read the file.
 */
function openError(options: DuckdbConnectorOptions, file: string, error: unknown): WorkbenchError {
  const kind = sniffFileKind(file);
  const fits = 'path' in options ? kind === 'duckdb' || kind === 'unknown' : 'csv' in options ? kind === 'text' || kind === 'unknown' : kind === 'parquet' || kind === 'unknown';
  if (!fits) return new WorkbenchError('invalid-request', `${file} is not ${expectedKind(options)}; ${addItAs(kind)}`, { cause: error });
  const mapped = toWorkbenchError(error);
  const code = mapped.code === 'syntax' ? 'query-failed' : mapped.code === 'query-failed' ? 'connection-failed' : mapped.code;
  if ('path' in options) return new WorkbenchError(code, mapped.message, { cause: error });
  const firstLine = (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim() ?? '';
  return new WorkbenchError(code, `${file} could not be read as ${'csv' in options ? 'CSV' : 'Parquet'}: ${firstLine}`, { cause: error });
}
