/**
 * `dwb query --format csv|tsv|jsonl` on a SQLite file, read in the CLI's own process: each row
 * goes from SQLite's row straight to its line of text and out to stdout's descriptor, with no
 * worker process, no array of cells per row and no second encoding. A one-shot CLI process can
 * be the killable unit itself, which is what the app's worker process is for:
 *
 * - Ctrl-C and SIGTERM keep their default action while the query runs and end the process at
 *   once, even inside a long SQLite step (nothing needs cleaning up: the file is only read).
 * - The time limit is checked after every batch, failing with the usual one line and exit 1;
 *   a single SQLite step that runs past it (a sort, an endless recursive query) cannot return
 *   to JavaScript, so a watchdog thread writes the same line and kills the process.
 * - Writes wait for the reader (a full pipe blocks the next read); a reader that goes away
 *   (`| head`) ends the query quietly with exit 0.
 */
import { Worker } from 'node:worker_threads';
import { openReadOnlyCursor, openReadOnlySqlite, sqliteCell, type SqliteCursor } from '../connectors/sqlite/sqlite-read';
import { queryTimedOut } from '../connectors/worker-host';
import { rowLineEncoder, type StreamFormat } from './row-writers';
import { directTextWriter } from './direct-output';
import type { CommandIo } from './command-io';

/** Rows read and written at a time: large enough that a write is a few tens of kilobytes. */
const rowsPerWrite = 1000;
/** The first write is smaller, so the first rows are out as soon as SQLite has them. */
const firstRowsPerWrite = 50;

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
    return streamRows(path, text, options, io, () => {
      if (performance.now() > deadline) throw timedOut;
    });
  } finally {
    void watchdog.terminate();
  }
}

/** Reads the rows and writes their lines; `checkTime` throws once the time limit has passed. */
function streamRows(
  path: string,
  text: string,
  options: { maxRows: number; format: StreamFormat; stdoutFd: number },
  io: CommandIo,
  checkTime: () => void,
): number {
  const database = openReadOnlySqlite(path);
  let cursor: SqliteCursor | null = null;
  try {
    cursor = openReadOnlyCursor(database, text, { maxRows: options.maxRows });
    const encoder = rowLineEncoder(options.format, cursor.columns.map((column) => column.name), sqliteCell);
    const write = directTextWriter(options.stdoutFd);
    // The header goes out with the first rows, so a query that fails on its first row prints nothing.
    let pending = encoder.header;
    let rowCount = 0;
    for (;;) {
      const batch = cursor.readLines(rowCount === 0 ? firstRowsPerWrite : rowsPerWrite, encoder.line);
      if (batch.rows === 0) break;
      rowCount += batch.rows;
      if (!write(pending + batch.text)) return 0;
      pending = '';
      checkTime();
    }
    if (pending !== '' && !write(pending)) return 0;
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
  const worker = new Worker(source, { eval: true, workerData: { ms, line }, stdout: false, stderr: false });
  worker.unref();
  return worker;
}
