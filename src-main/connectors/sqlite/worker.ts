/**
 * Worker process that owns one read-only SQLite handle. better-sqlite3 is synchronous, so
 * running it here keeps the app's event loop free, and killing this process is how a runaway
 * query is stopped (see ../worker-host.ts).
 */
import { WorkbenchError } from '../../contract/errors';
import { openReadOnlyCursor, openReadOnlySqlite, readSqliteSchema, runReadOnlyQuery, type SqliteCursor } from './sqlite-read';
import type { SqliteBatch, SqliteNext, SqliteRequest, SqliteStreamEnd } from './protocol';

const path = process.argv[2];
if (!path || !process.send) throw new Error('usage: a forked sqlite worker with the database path as its argument');
const send = process.send.bind(process);

let database: ReturnType<typeof openReadOnlySqlite> | null = null;

/**
 * Batches sent ahead of the parent's acknowledgements: the worker reads the next ones while the
 * parent writes the last, and at most this many are ever waiting in the parent's memory.
 */
const batchesAhead = 3;

/** The streamed query in progress and how many of its batches the parent has not yet taken. */
let streaming: { id: number; cursor: SqliteCursor; batchSize: number; started: number; unacknowledged: number } | null = null;

process.on('message', (message: (SqliteRequest & { id: number }) | SqliteNext) => {
  if (message.type === 'next') {
    if (streaming?.id !== message.id) return;
    streaming.unacknowledged -= 1;
    sendBatches(streaming);
    return;
  }
  const request = message;
  try {
    database ??= openReadOnlySqlite(path);
    if (request.type === 'stream') {
      const cursor = openReadOnlyCursor(database, request.text, { params: request.params, maxRows: request.maxRows });
      streaming = { id: request.id, cursor, batchSize: request.batchSize, started: performance.now(), unacknowledged: 0 };
      sendBatches(streaming);
      return;
    }
    const value =
      request.type === 'schema'
        ? readSqliteSchema(database)
        : runReadOnlyQuery(database, request.text, { params: request.params, maxRows: request.maxRows });
    send({ id: request.id, ok: true, value });
  } catch (error) {
    fail(request.id, error);
  }
});

/** Sends batches until `batchesAhead` are unacknowledged, or the end of the result once no rows are left. */
function sendBatches(stream: NonNullable<typeof streaming>): void {
  try {
    while (stream.unacknowledged < batchesAhead) {
      const rows = stream.cursor.read(stream.batchSize);
      if (rows.length === 0) break;
      stream.unacknowledged += 1;
      send({ id: stream.id, batch: { columns: stream.cursor.columns, rows } } satisfies SqliteBatch);
    }
    // The end goes out only after the parent took every batch, so it never overtakes one.
    if (stream.unacknowledged > 0) return;
    const rows = stream.cursor.read(stream.batchSize);
    if (rows.length > 0) {
      stream.unacknowledged += 1;
      send({ id: stream.id, batch: { columns: stream.cursor.columns, rows } } satisfies SqliteBatch);
      return;
    }
    streaming = null;
    const value: SqliteStreamEnd = { columns: stream.cursor.columns, truncated: stream.cursor.truncated, elapsedMs: performance.now() - stream.started };
    send({ id: stream.id, ok: true, value });
  } catch (error) {
    streaming = null;
    fail(stream.id, error);
  }
}

function fail(id: number, error: unknown): void {
  const failure = WorkbenchError.from(error);
  // A refused statement may have been compiled, and compiling some statements changes the
  // handle's state: start the next request on a fresh handle.
  if (failure.code === 'read-only' && database !== null) {
    database.close();
    database = null;
  }
  send({ id, ok: false, error: failure.toJSON() });
}
// The parent going away (crash, kill -9) closes the channel: leave with it.
process.on('disconnect', () => process.exit(0));
