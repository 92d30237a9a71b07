/**
 * Worker process that owns one read-only LadybugDB database. LadybugDB's Node binding cannot cancel
 * a query, so a query that overruns or is cancelled is stopped by killing this process (see
 * ../worker-host.ts); running here also keeps a native crash out of the app.
 * Arguments: database path, buffer pool bytes.
 */
import type { Connection } from '@ladybugdb/core';

import { WorkbenchError } from '../../contract/errors';
import { openReadOnlyLadybug, readSchema, runVettedQuery } from './ladybug-read';
import type { LadybugNext, LadybugRequest } from './protocol';

const [path, bufferPoolBytes] = process.argv.slice(2);
if (path === undefined || bufferPoolBytes === undefined || !process.send) {
  throw new Error('usage: a forked LadybugDB worker with the database path and buffer pool bytes as arguments');
}
const send = process.send.bind(process);

let opening: Promise<Connection> | null = null;
/** A streamed query's sent batch, waiting for the parent to ask for the next. */
const waitingForNext = new Map<number, () => void>();

async function answer(request: LadybugRequest & { id: number }): Promise<unknown> {
  opening ??= openReadOnlyLadybug(path ?? '', Number(bufferPoolBytes));
  const connection = await opening;
  if (request.type === 'open') return null;
  if (request.type === 'schema') return readSchema(connection);
  if (request.type === 'query') return runVettedQuery(connection, request.text, request);
  const onBatch = (columns: unknown, rows: unknown): Promise<void> =>
    new Promise((resolve) => {
      waitingForNext.set(request.id, resolve);
      send({ id: request.id, batch: { columns, rows } });
    });
  return runVettedQuery(connection, request.text, { ...request, batches: { batchSize: request.batchSize, onBatch } });
}

process.on('message', (message: (LadybugRequest & { id: number }) | LadybugNext) => {
  if (message.type === 'next') {
    const next = waitingForNext.get(message.id);
    waitingForNext.delete(message.id);
    next?.();
    return;
  }
  const request = message;
  answer(request).then(
    (value) => send({ id: request.id, ok: true, value }),
    (error: unknown) => send({ id: request.id, ok: false, error: WorkbenchError.from(error).toJSON() }),
  );
});
// The parent going away (crash, kill -9) closes the channel: leave with it.
process.on('disconnect', () => process.exit(0));
