import { WorkbenchError } from '../../contract/errors';
import type { Connector } from '../connector';
import { DuckdbConnector, type DuckdbSession } from './duckdb-connector';
import { fileIdentity } from '../shared/file-identity';
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
  let database: OpenedDatabase;
  try {
    database = 'path' in options
      ? await openReadOnlyDatabase(options.path)
      : await openFileAsTable(file, 'csv' in options ? 'csv' : 'parquet');
  } catch (error) {
    const mapped = toWorkbenchError(error);
    throw new WorkbenchError(mapped.code === 'syntax' ? 'query-failed' : mapped.code === 'query-failed' ? 'connection-failed' : mapped.code, mapped.message, { cause: error });
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
