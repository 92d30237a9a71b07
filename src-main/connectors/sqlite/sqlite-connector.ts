import { join } from 'node:path';
import type { QueryResult, SchemaInfo } from '../../contract/data';
import type { Connector, QueryOptions } from '../connector';
import { startWorker, WorkerChannel } from '../worker-host';
import type { SqliteBatch, SqliteRequest, SqliteStreamEnd } from './protocol';
import { rowBatchSize, StreamedResult } from '../shared/row-stream';

/** Schema reads are bounded too, so a huge or locked file cannot hang the schema browser. */
const schemaTimeoutMs = 60_000;

/** Streams the rows a batch at a time from the worker, each batch asked for once the last was taken. */
async function streamQuery(
  channel: WorkerChannel,
  text: string,
  options: QueryOptions,
  limit: { timeoutMs: number; signal?: AbortSignal },
): Promise<QueryResult> {
  const stream = new StreamedResult(options);
  const message: SqliteRequest = { type: 'stream', text, params: options.params, maxRows: options.maxRows, batchSize: rowBatchSize };
  const end = await channel.stream<SqliteStreamEnd>(message, limit, (batch) => {
    const { columns, rows } = batch as SqliteBatch['batch'];
    return stream.push(columns, rows);
  });
  return stream.finish(end.columns, end.truncated, end.elapsedMs);
}

/** A read-only SQLite file whose queries run in a worker process (see ./worker.ts). */
export function openSqliteConnector(options: { path: string }): Connector {
  const channel = new WorkerChannel(
    () => startWorker({ bundledName: 'sqlite-worker.js', sourceFile: join(__dirname, 'worker.ts'), args: [options.path] }),
    { file: options.path },
  );
  const request = <T>(message: SqliteRequest, limit: { timeoutMs: number; signal?: AbortSignal }): Promise<T> =>
    channel.request<T>(message, limit);
  return {
    engine: 'sqlite',
    dialect: 'sql',
    schema: () => request<SchemaInfo>({ type: 'schema' }, { timeoutMs: schemaTimeoutMs }),
    streamsRows: true,
    query: (text: string, queryOptions: QueryOptions) => {
      const limit = { timeoutMs: queryOptions.timeoutMs, signal: queryOptions.signal };
      if (!queryOptions.onRows) {
        return request<QueryResult>({ type: 'query', text, params: queryOptions.params, maxRows: queryOptions.maxRows }, limit);
      }
      return streamQuery(channel, text, queryOptions, limit);
    },
    close: () => channel.close(),
  };
}
