import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

import { WorkbenchError } from '../../contract/errors';
import type { Connector } from '../connector';
import { addItAs, sniffFileKind } from '../shared/file-kind';
import { findKuzuDatabase, kuzuDatabaseError } from './kuzu-database';
import { startLadybugConnector } from './ladybug-connector';

export interface LadybugConnectorOptions {
  /** An existing LadybugDB database (one file, as LadybugDB writes it). */
  path: string;
  /** Buffer pool size. LadybugDB's default is 80% of RAM, far too much for an app; default 256 MiB. */
  bufferPoolBytes?: number;
}

/**
 * Opens a read-only LadybugDB connector (the embedded graph engine that continues Kùzu; saved
 * connections keep the engine id `kuzu`). Protection layers:
 * 1. statement guard: the text must start like a query (MATCH, RETURN, WITH, UNWIND, CALL…);
 * 2. LadybugDB's planner: the statement must prepare (one statement only; writes are refused by
 *    the read-only database already here), the engine must call it read-only, and its EXPLAIN
 *    plan may hold no COPY TO, EXPORT/IMPORT, ATTACH, extension, configuration or transaction
 *    operators, nor file-reading functions;
 * 3. the database opened read-only (in its own worker process): LadybugDB refuses every change.
 */
export async function openLadybugConnector(options: LadybugConnectorOptions): Promise<Connector> {
  const path = resolve(options.path);
  // LadybugDB would create an empty database at a missing path; say plainly that it is missing.
  if (!existsSync(path)) throw new WorkbenchError('not-found', `LadybugDB: no database at ${path}`);
  try {
    return await startLadybugConnector(path, options.bufferPoolBytes ?? 256 * 1024 * 1024);
  } catch (error) {
    if (WorkbenchError.from(error).code !== 'connection-failed') throw error;
    // LadybugDB only says the file is not one of its databases; say what it is instead.
    const kuzu = findKuzuDatabase(path);
    if (kuzu !== null) throw kuzuDatabaseError(path, kuzu, error);
    const hint = addItAs(sniffFileKind(path));
    if (hint === '') throw error;
    throw new WorkbenchError('invalid-request', `${path} is not a LadybugDB database; ${hint}`, { cause: error });
  }
}
