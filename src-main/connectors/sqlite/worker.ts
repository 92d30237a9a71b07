/**
 * Worker process that owns one read-only SQLite handle. better-sqlite3 is synchronous, so
 * running it here keeps the app's event loop free, and killing this process is how a runaway
 * query is stopped (see ../worker-host.ts).
 */
import { WorkbenchError } from '../../contract/errors';
import { openReadOnlySqlite, readSqliteSchema, runReadOnlyQuery } from './sqlite-read';
import type { SqliteRequest } from './protocol';

const path = process.argv[2];
if (!path || !process.send) throw new Error('usage: a forked sqlite worker with the database path as its argument');
const send = process.send.bind(process);

let database: ReturnType<typeof openReadOnlySqlite> | null = null;

process.on('message', (request: SqliteRequest & { id: number }) => {
  try {
    database ??= openReadOnlySqlite(path);
    const value =
      request.type === 'schema'
        ? readSqliteSchema(database)
        : runReadOnlyQuery(database, request.text, { params: request.params, maxRows: request.maxRows });
    send({ id: request.id, ok: true, value });
  } catch (error) {
    const failure = WorkbenchError.from(error);
    // A refused statement may have been compiled, and compiling some statements changes the
    // handle's state: start the next request on a fresh handle.
    if (failure.code === 'read-only' && database !== null) {
      database.close();
      database = null;
    }
    send({ id: request.id, ok: false, error: failure.toJSON() });
  }
});
// The parent going away (crash, kill -9) closes the channel: leave with it.
process.on('disconnect', () => process.exit(0));
