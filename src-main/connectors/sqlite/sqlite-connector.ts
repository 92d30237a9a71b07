import { join } from 'node:path';
import type { QueryResult, SchemaInfo } from '../../contract/data';
import type { Connector, QueryOptions } from '../connector';
import { startWorker, WorkerChannel } from '../worker-host';
import type { SqliteRequest } from './protocol';

/** Schema reads are bounded too, so a huge or locked file cannot hang the schema browser. */
const schemaTimeoutMs = 60_000;

/** A read-only SQLite file whose queries run in a worker process (see ./worker.ts). */
export function openSqliteConnector(options: { path: string }): Connector {
  const channel = new WorkerChannel(() =>
    startWorker({ bundledName: 'sqlite-worker.js', sourceFile: join(__dirname, 'worker.ts'), args: [options.path] }),
  );
  const request = <T>(message: SqliteRequest, limit: { timeoutMs: number; signal?: AbortSignal }): Promise<T> =>
    channel.request<T>(message, limit);
  return {
    engine: 'sqlite',
    dialect: 'sql',
    schema: () => request<SchemaInfo>({ type: 'schema' }, { timeoutMs: schemaTimeoutMs }),
    query: (text: string, queryOptions: QueryOptions) =>
      request<QueryResult>(
        { type: 'query', text, params: queryOptions.params, maxRows: queryOptions.maxRows },
        { timeoutMs: queryOptions.timeoutMs, signal: queryOptions.signal },
      ),
    close: () => channel.close(),
  };
}
