import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { WorkbenchError } from '../../contract/errors';
import type { GgufModelInfo } from './model-file';

/**
 * What reading one GGUF header may cost. A real header (a 256k-token vocabulary and its merges
 * included) is read in well under a second and a few tens of MB; a damaged or hostile one (an
 * array claiming 2^60 elements) made the reader allocate for minutes, so it is stopped here.
 */
export const headerReadBudget = { heapMb: 256, ms: 30_000 } as const;

type WorkerReply = { ok: true; info: GgufModelInfo } | { ok: false; error: unknown };

/** The bundled worker next to this bundle; under the tests, the TypeScript source through tsx. */
function startHeaderWorker(path: string): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: headerReadBudget.heapMb, maxYoungGenerationSizeMb: 32 };
  const bundled = join(__dirname, 'model-header-worker.js');
  if (existsSync(bundled)) return new Worker(bundled, { workerData: { path }, resourceLimits });
  const source = join(__dirname, 'model-header-worker.ts');
  const loader = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(pathToFileURL(source).href)}, ${JSON.stringify(pathToFileURL(__filename).href)}))`;
  return new Worker(loader, { eval: true, workerData: { path }, resourceLimits });
}

/**
 * `readGgufModelInfo` in a worker thread, within `headerReadBudget`: the main thread (every
 * other client of the server) goes on while it reads, and a header the reader cannot finish
 * within the memory or the time is refused as damaged instead of hanging the caller.
 */
export function readModelInfoOffThread(path: string): Promise<GgufModelInfo> {
  return new Promise((resolve, reject) => {
    const worker = startHeaderWorker(path);
    let settled = false;
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      settle();
    };
    const damaged = (why: string): WorkbenchError => new WorkbenchError('unsupported', `Cannot read the GGUF header of ${path}: ${why}; the file is damaged or not a model llama.cpp can run`);
    const timer = setTimeout(() => finish(() => reject(damaged(`reading it took longer than ${headerReadBudget.ms / 1000} s`))), headerReadBudget.ms);
    worker.once('message', (reply: WorkerReply) => finish(() => (reply.ok ? resolve(reply.info) : reject(WorkbenchError.revive(reply.error)))));
    worker.once('error', (error: Error & { code?: string }) =>
      finish(() => reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? damaged(`reading it needed more than ${headerReadBudget.heapMb} MB of memory`) : WorkbenchError.from(error))),
    );
    worker.once('exit', (code) => finish(() => reject(new WorkbenchError('internal', `The GGUF header reader stopped (exit code ${code}) before it read ${path}`))));
  });
}
