import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import type { ConnectionTarget } from '../contract/connections';
import { WorkbenchError, fileErrorReason } from '../contract/errors';
import { nonRegularKind } from '../native/bounded-read';
import { resolveUserPath } from './user-path';

const fileKinds = {
  sqlite: 'a SQLite file',
  duckdb: 'a DuckDB database file',
  csv: 'a CSV file',
  parquet: 'a Parquet file',
} as const;

/**
 * What is at a path a client named, looked at off the main thread; undefined when nothing is
 * there. Another failure (a part of the path is a file, no permission, a loop of links) is
 * reported in words, not as "no file".
 */
async function statOrNothing(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') return undefined;
    throw new WorkbenchError(code === 'ENOTDIR' ? 'not-found' : 'invalid-request', `Cannot open ${path}: ${fileErrorReason(error)}`);
  }
}

/**
 * An absolute path to an existing regular file, or a clear error naming what was expected: a
 * database engine given a device reads it forever or misreads it, and a named pipe blocks its reader.
 */
async function existingFile(path: string, expected: string): Promise<string> {
  const absolute = resolveUserPath(path);
  const stats = await statOrNothing(absolute);
  if (stats === undefined) throw new WorkbenchError('not-found', `No file at ${absolute}`);
  if (stats.isFile()) return absolute;
  const kind = nonRegularKind(stats);
  throw new WorkbenchError('invalid-request', kind === 'a folder' ? `${absolute} is a folder, not ${expected}` : `${absolute} is ${kind}, not a regular file: expected ${expected}`);
}

/**
 * Checks a target before it is saved or tested, so a typo is reported now rather than at the
 * first query: paths become absolute (`~/` and `file://` URLs read as a user means them, see
 * user-path.ts) and files must exist (a LadybugDB database is one file);
 * server URLs were already checked by the contract (scheme, no password).
 */
export async function normalizeTarget(target: ConnectionTarget): Promise<ConnectionTarget> {
  switch (target.engine) {
    case 'sqlite':
      return { engine: 'sqlite', path: await existingFile(target.path, fileKinds.sqlite) };
    case 'duckdb':
      return { engine: 'duckdb', format: target.format, path: await existingFile(target.path, fileKinds[target.format]) };
    case 'kuzu': {
      const path = resolveUserPath(target.path);
      if ((await statOrNothing(path)) === undefined) throw new WorkbenchError('not-found', `No LadybugDB database at ${path}`);
      return { engine: 'kuzu', path };
    }
    case 'postgres':
    case 'mysql':
    case 'neo4j':
    case 'trino':
      return target;
  }
}
