/**
 * `dwb query --format csv|tsv|jsonl` on a SQLite file, read in the CLI's own process: each row
 * goes from SQLite's row straight to its line of text and out to stdout's descriptor, with no
 * worker process, no array of cells per row and no second encoding. A one-shot CLI process can
 * be the killable unit itself, which is what the app's worker process is for:
 *
 * - Ctrl-C and SIGTERM keep their default action while the query runs and end the process at
 *   once, even inside a long SQLite step (nothing needs cleaning up: the file is only read).
 * - The time limit is checked after every few rows read, failing with the usual one line and
 *   exit 1 once the rows read so far are out; a single SQLite step that runs past it (a sort,
 *   an endless recursive query) cannot return to JavaScript, so a watchdog thread writes the
 *   same line and kills the process.
 * - Lines are encoded into one reused output buffer, written when it is full (the first rows
 *   at once); writes wait for the reader (a full pipe blocks the next read); a reader that goes
 *   away (`| head`) ends the query quietly with exit 0.
 */
import { Worker } from 'node:worker_threads';
import { openReadOnlyCursor, openReadOnlySqlite, sqliteCell, type SqliteCursor } from '../connectors/sqlite/sqlite-read';
import { queryTimedOut } from '../connectors/shared/query-timeout';
import { rowLineEncoder, type StreamFormat } from './row-writers';
import { bufferedTextWriter } from './direct-output';
import type { CommandIo } from './command-io';

/** Rows read and encoded at a time: few, so the text not yet in the output buffer stays small. */
const rowsPerRead = 32;
/**
 * SQLite's page cache for this one read, in KiB (SQLite's own default, which the sqlite3 shell
 * uses): better-sqlite3 builds SQLite with a 16 MB cache, which a single pass over a large file
 * fills to the last page — 16 MB of the peak memory, for pages it does not read again.
 */
const pageCacheKib = 2000;

/** How long after the time limit the watchdog waits for the query to stop itself between batches. */
const watchdogGraceMs = 200;

export function streamSqliteInProcess(
  path: string,
  text: string,
  options: { maxRows: number; timeoutMs: number; format: StreamFormat; stdoutFd: number },
  io: CommandIo,
): number {
  const deadline = performance.now() + options.timeoutMs;
  const timedOut = queryTimedOut(options.timeoutMs);
  // Started first: opening a large or locked file is part of the query's time too.
  const watchdog = startWatchdog(options.timeoutMs + watchdogGraceMs, `dwb query: ${timedOut.code}: ${timedOut.message}\n`);
  try {
    return streamRows(path, text, options, io, { timeIsUp: () => performance.now() > deadline, timedOut });
  } finally {
    void watchdog.terminate();
  }
}

/** Reads the rows and writes their lines, failing with `limit.timedOut` once `limit.timeIsUp()`. */
function streamRows(
  path: string,
  text: string,
  options: { maxRows: number; format: StreamFormat; stdoutFd: number },
  io: CommandIo,
  limit: { timeIsUp: () => boolean; timedOut: Error },
): number {
  const database = openReadOnlySqlite(path);
  let cursor: SqliteCursor | null = null;
  try {
    database.pragma(`cache_size = -${pageCacheKib}`);
    cursor = openReadOnlyCursor(database, text, { maxRows: options.maxRows });
    const encoder = rowLineEncoder(options.format, cursor.columns.map((column) => column.name), sqliteCell);
    const out = bufferedTextWriter(options.stdoutFd);
    // The header waits in the buffer for the first rows, so a query that fails on its first row prints nothing.
    out.add(encoder.header);
    let rowCount = 0;
    for (;;) {
      const batch = cursor.readLines(rowsPerRead, encoder.line);
      if (batch.rows === 0) break;
      const first = rowCount === 0;
      rowCount += batch.rows;
      if (!out.add(batch.text)) return 0;
      // The first rows go out at once; later ones when the buffer is full.
      if (first && !out.flush()) return 0;
      if (limit.timeIsUp()) {
        // The rows read so far are out before the failure line (unless the reader has gone).
        if (!out.flush()) return 0;
        throw limit.timedOut;
      }
    }
    if (!out.flush()) return 0;
    io.stderr(`(${rowCount} row${rowCount === 1 ? '' : 's'}${cursor.truncated ? `, truncated at ${options.maxRows}` : ''})`);
    return 0;
  } finally {
    cursor?.stop();
    database.close();
  }
}

/**
 * A thread that, unless terminated first, writes `line` to stderr after `ms` and kills the
 * process: the main thread may be inside a native SQLite step, where no timer of its own runs.
 * Unreferenced, so it never keeps the process alive.
 */
function startWatchdog(ms: number, line: string): Worker {
  const source = `
    const { workerData } = require('node:worker_threads');
    setTimeout(() => {
      require('node:fs').writeSync(2, workerData.line);
      process.kill(process.pid, 'SIGKILL');
    }, workerData.ms);`;
  // stdout and stderr true: the thread's own streams stay apart rather than being piped into
  // this process's, whose construction (net, tty and stream internals) the CLI otherwise never
  // needs (see direct-output.ts). The thread writes its one line to the descriptor directly.
  const worker = new Worker(source, { eval: true, workerData: { ms, line }, stdout: true, stderr: true });
  worker.unref();
  return worker;
}
