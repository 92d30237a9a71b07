import { parentPort, workerData } from 'node:worker_threads';
import { WorkbenchError } from '../../contract/errors';
import { readGgufModelInfo } from './model-file';

/**
 * The worker thread that reads one GGUF header for model-header.ts, so a header that makes the
 * reader loop or allocate without end costs this thread (bounded, then ended), never the
 * server's main thread. Answers once: the header's information, or the error.
 */
readGgufModelInfo((workerData as { path: string }).path).then(
  (info) => parentPort?.postMessage({ ok: true, info }),
  (error: unknown) => parentPort?.postMessage({ ok: false, error: WorkbenchError.from(error).toJSON() }),
);
