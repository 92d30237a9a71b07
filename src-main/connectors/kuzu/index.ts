import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

import { WorkbenchError } from '../../contract/errors';
import type { Connector } from '../connector';
import { addItAs, sniffFileKind } from '../shared/file-kind';
import { startKuzuConnector } from './kuzu-connector';

export interface KuzuConnectorOptions {
  /** An existing Kùzu database (directory or single file, as written by Kùzu). */
  path: string;
  /** Buffer pool size. Kùzu's default is 80% of RAM, far too much for an app; default 256 MiB. */
  bufferPoolBytes?: number;
}

/**
 * Opens a read-only Kùzu connector. Protection layers:
 * 1. statement guard: the text must start like a query (MATCH, RETURN, WITH, UNWIND, CALL…);
 * 2. Kùzu's planner: the statement must prepare (one statement only; writes are refused by the
 *    read-only database already here) and its EXPLAIN plan may hold no COPY TO, EXPORT/IMPORT,
 *    ATTACH, extension, configuration or transaction operators, nor file-reading functions;
 * 3. the database opened read-only (in its own worker process): Kùzu refuses every change.
 */
export async function openKuzuConnector(options: KuzuConnectorOptions): Promise<Connector> {
  const path = resolve(options.path);
  // Kùzu would create an empty database at a missing path; say plainly that it is missing.
  if (!existsSync(path)) throw new WorkbenchError('not-found', `Kùzu: no database at ${path}`);
  try {
    return await startKuzuConnector(path, options.bufferPoolBytes ?? 256 * 1024 * 1024);
  } catch (error) {
    // Kùzu only says the file is not a Kùzu database; say which kind of connection it fits.
    const hint = addItAs(sniffFileKind(path));
    if (hint === '' || WorkbenchError.from(error).code !== 'connection-failed') throw error;
    throw new WorkbenchError('invalid-request', `${path} is not a Kùzu database; ${hint}`, { cause: error });
  }
}
