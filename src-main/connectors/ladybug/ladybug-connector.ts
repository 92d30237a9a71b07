import { join } from 'node:path';

import type { QueryResult, SchemaInfo } from '../../contract/data';
import type { Connector, QueryOptions, RowBatch } from '../connector';
import { rowBatchSize, StreamedResult } from '../shared/row-stream';
import { startWorker, WorkerChannel } from '../worker-host';
import type { LadybugRequest } from './protocol';
import { checkLadybugStatement } from './statement-guard';

/** Opening reads the catalog of a possibly large database; give it time on a slow disk. */
const openTimeoutMs = 60_000;
const schemaTimeoutMs = 60_000;

/**
 * A read-only LadybugDB database whose queries run in a worker process (see ./worker.ts), like the
 * SQLite connector: cancelling or overrunning a query kills the worker, and the next request
 * starts a fresh one.
 */
export async function startLadybugConnector(path: string, bufferPoolBytes: number): Promise<Connector> {
  const channel = new WorkerChannel(
    () => startWorker({ bundledName: 'ladybug-worker.js', sourceFile: join(__dirname, 'worker.ts'), args: [path, String(bufferPoolBytes)] }),
    { file: path },
  );
  const request = <T>(message: LadybugRequest, limit: { timeoutMs: number; signal?: AbortSignal }): Promise<T> => channel.request<T>(message, limit);
  try {
    await request<null>({ type: 'open' }, { timeoutMs: openTimeoutMs });
  } catch (error) {
    await channel.close();
    throw error;
  }
  return {
    engine: 'kuzu',
    dialect: 'cypher',
    schema: () => request<SchemaInfo>({ type: 'schema' }, { timeoutMs: schemaTimeoutMs }),
    streamsRows: true,
    query: async (text: string, options: QueryOptions) => {
      checkLadybugStatement(text);
      if (options.onRows) {
        const stream = new StreamedResult(options);
        const end = await channel.stream<QueryResult>(
          { type: 'stream', text, params: options.params, maxRows: options.maxRows, timeoutMs: options.timeoutMs, batchSize: rowBatchSize } satisfies LadybugRequest,
          { timeoutMs: options.timeoutMs, signal: options.signal },
          (batch) => {
            const { columns, rows } = batch as RowBatch;
            return stream.push(columns, rows);
          },
        );
        return stream.finish(end.columns, end.truncated, end.elapsedMs);
      }
      return request<QueryResult>(
        { type: 'query', text, params: options.params, maxRows: options.maxRows, timeoutMs: options.timeoutMs },
        { timeoutMs: options.timeoutMs, signal: options.signal },
      );
    },
    close: () => channel.close(),
  };
}
