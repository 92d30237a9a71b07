import { existsSync } from 'node:fs';
import type { ConnectionTarget } from '../contract/connections';
import { WorkbenchError } from '../contract/errors';
import { requireRegularFile } from './shared/file-kind';
import { resolveUserPath } from './user-path';

const fileKinds = {
  sqlite: 'a SQLite file',
  duckdb: 'a DuckDB database file',
  csv: 'a CSV file',
  parquet: 'a Parquet file',
} as const;

/** An absolute path to an existing regular file, or a clear error naming what was expected. */
function existingFile(path: string, expected: string): string {
  const absolute = resolveUserPath(path);
  if (!existsSync(absolute)) throw new WorkbenchError('not-found', `No file at ${absolute}`);
  requireRegularFile(absolute, expected);
  return absolute;
}

/**
 * Checks a target before it is saved or tested, so a typo is reported now rather than at the
 * first query: paths become absolute (`~/` and `file://` URLs read as a user means them, see
 * user-path.ts) and files must exist (a Kùzu database is a file since Kùzu 0.11, a folder before);
 * server URLs were already checked by the contract (scheme, no password).
 */
export function normalizeTarget(target: ConnectionTarget): ConnectionTarget {
  switch (target.engine) {
    case 'sqlite':
      return { engine: 'sqlite', path: existingFile(target.path, fileKinds.sqlite) };
    case 'duckdb':
      return { engine: 'duckdb', format: target.format, path: existingFile(target.path, fileKinds[target.format]) };
    case 'kuzu': {
      const path = resolveUserPath(target.path);
      if (!existsSync(path)) throw new WorkbenchError('not-found', `No Kùzu database at ${path}`);
      return { engine: 'kuzu', path };
    }
    case 'postgres':
    case 'mysql':
    case 'neo4j':
      return target;
  }
}
