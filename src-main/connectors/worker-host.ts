import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WorkbenchError, type SerializedError } from '../contract/errors';
import { databaseFileGone, fileIdentity, sameFile, type FileIdentity } from './shared/file-identity';
import { queryTimedOut } from './shared/query-timeout';

/**
 * Starts a database worker process from its bundled file when the app is built, or from its
 * TypeScript source (through tsx) when running from source under the tests. Bundled entries sit
 * next to the bundle that spawns them because electron-vite writes every main chunk into one
 * folder. A process rather than a thread, because a native call such as a long SQLite step
 * cannot be interrupted inside a thread, but a process can always be killed.
 */
export function startWorker(options: { bundledName: string; sourceFile: string; args: string[] }): ChildProcess {
  const bundled = join(__dirname, options.bundledName);
  const stdio: ['ignore', 'ignore', 'inherit', 'ipc'] = ['ignore', 'ignore', 'inherit', 'ipc'];
  if (existsSync(bundled)) return fork(bundled, options.args, { stdio, serialization: 'advanced' });
  return fork(options.sourceFile, options.args, { stdio, serialization: 'advanced', execArgv: ['--import', 'tsx'] });
}

export type WorkerReply<T> = { id: number; ok: true; value: T } | { id: number; ok: false; error: SerializedError };
/** A streamed request's intermediate message; the worker sends the next one when asked with `{ type: 'next', id }`. */
export interface WorkerBatch {
  id: number;
  batch: unknown;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: WorkbenchError): void;
  batch?(batch: unknown): void;
}

/**
 * Serial request/response over one worker process. A request that must be abandoned (timeout,
 * cancel) kills the whole worker: that is the only sure way to stop a synchronous database
 * call, and the next request starts a fresh worker.
 *
 * With `file` (the database the worker opens), every request first looks at the file at that
 * path: a worker that opened another file there (replaced since) is replaced by a fresh one,
 * which opens the new file, and a file that is gone fails the request, never answering from the
 * deleted file the old worker still holds open.
 */
export class WorkerChannel {
  private worker: ChildProcess | null = null;
  /** The identity of `file` just before the current worker started (so it opened this or a later file). */
  private workerFile: FileIdentity | null = null;
  /** True once a worker started with the file present: from then on a missing file was deleted. */
  private fileSeen = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly spawn: () => ChildProcess,
    private readonly options: { file?: string } = {},
  ) {}

  /** Queues a request behind earlier ones; `limit` bounds its own running time only. */
  request<T>(message: object, limit: { timeoutMs: number; signal?: AbortSignal }): Promise<T> {
    const run = (): Promise<T> => this.send<T>(message, limit);
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /**
   * Like `request`, for a worker that answers with batches before its reply: each batch goes to
   * `onBatch`, and the next is asked for only once `onBatch` has settled, so a slow consumer
   * slows the worker instead of piling batches up in memory. A consumer that throws abandons the
   * request (the worker is restarted) with its error.
   */
  stream<T>(message: object, limit: { timeoutMs: number; signal?: AbortSignal }, onBatch: (batch: unknown) => void | Promise<void>): Promise<T> {
    const run = (): Promise<T> => this.send<T>(message, limit, onBatch);
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.failAll(new WorkbenchError('cancelled', 'The connection was closed'));
    if (worker) await kill(worker);
  }

  private send<T>(
    message: object,
    limit: { timeoutMs: number; signal?: AbortSignal },
    onBatch?: (batch: unknown) => void | Promise<void>,
  ): Promise<T> {
    if (limit.signal?.aborted) return Promise.reject(new WorkbenchError('cancelled', 'Query cancelled'));
    try {
      this.followFile();
    } catch (error) {
      return Promise.reject(WorkbenchError.from(error));
    }
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        limit.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      const abandon = (error: WorkbenchError): void => {
        finish();
        reject(error);
        void this.restart();
      };
      const onAbort = (): void => abandon(new WorkbenchError('cancelled', 'Query cancelled'));
      const timer = setTimeout(
        () => abandon(queryTimedOut(limit.timeoutMs)),
        limit.timeoutMs,
      );
      limit.signal?.addEventListener('abort', onAbort, { once: true });
      let taking: Promise<void> = Promise.resolve();
      this.pending.set(id, {
        resolve: (value) => {
          finish();
          resolve(value as T);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
        ...(onBatch
          ? {
              // Batches are taken one after another, in order, each acknowledged once taken.
              batch: (batch: unknown) => {
                taking = taking
                  .then(() => (this.pending.has(id) ? onBatch(batch) : undefined))
                  .then(
                    () => {
                      if (this.pending.has(id)) worker.send({ type: 'next', id });
                    },
                    (error: unknown) => {
                      if (this.pending.has(id)) abandon(WorkbenchError.from(error));
                    },
                  );
              },
            }
          : {}),
      });
      worker.send({ ...message, id });
    });
  }

  /** Retires a worker whose file is no longer the one at the path; throws when the path is empty. */
  private followFile(): void {
    const path = this.options.file;
    if (path === undefined) return;
    const current = fileIdentity(path);
    if (current === null) {
      // Never there: the worker says in its own words that it cannot open the path.
      if (!this.fileSeen) return;
      // Also lets go of the deleted file, whose space the old worker's handle still holds.
      void this.restart();
      throw databaseFileGone(path);
    }
    if (this.worker !== null && (this.workerFile === null || !sameFile(current, this.workerFile))) void this.restart();
  }

  private ensureWorker(): ChildProcess {
    if (this.worker) return this.worker;
    // Taken before the worker opens the file: a file swapped in between only causes one needless restart.
    if (this.options.file !== undefined) {
      this.workerFile = fileIdentity(this.options.file);
      if (this.workerFile !== null) this.fileSeen = true;
    }
    const worker = this.spawn();
    worker.on('message', (reply: WorkerReply<unknown> | WorkerBatch) => {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      if ('batch' in reply) pending.batch?.(reply.batch);
      else if (reply.ok) pending.resolve(reply.value);
      else pending.reject(WorkbenchError.revive(reply.error));
    });
    worker.on('error', (error) => {
      if (this.worker === worker) this.worker = null;
      this.failAll(new WorkbenchError('internal', `Database worker failed: ${error.message}`));
    });
    worker.on('exit', (code, signal) => {
      if (this.worker !== worker) return; // killed on purpose: its requests were already settled
      this.worker = null;
      this.failAll(new WorkbenchError('internal', `Database worker stopped unexpectedly (${signal ?? `exit code ${code}`})`));
    });
    this.worker = worker;
    return worker;
  }

  private async restart(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await kill(worker);
  }

  private failAll(error: WorkbenchError): void {
    for (const pending of [...this.pending.values()]) pending.reject(error);
    this.pending.clear();
  }
}

function kill(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    worker.once('exit', () => resolve());
    worker.kill('SIGKILL');
  });
}
