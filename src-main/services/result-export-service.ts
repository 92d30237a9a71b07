import { randomBytes } from 'node:crypto';
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { z } from 'zod';
import type { Connector } from '../connectors/connector';
import type { EventName, EventPayload } from '../contract/api';
import { WorkbenchError } from '../contract/errors';
import { exportFileName } from '../contract/export-file-name';
import { querySettingsLimits } from '../contract/notebook';
import { resultExportMaxRows, type resultExportRequests } from '../contract/result-export';
import type { NotebookStore } from '../workspace/notebook-store';
import { streamQueryAsCsv } from './csv-stream';
import type { ReportPlatform } from './report-service';

type Requests = typeof resultExportRequests;
type Handler<M extends keyof Requests> = (params: z.output<Requests[M]['params']>) => Promise<z.output<Requests[M]['result']>>;

/** A download browser mode may fetch once, soon after asking for it. */
export interface ExportDownload {
  fileName: string;
  /** Streams the CSV into the response; resolves when it ended (well or not: the events say which). */
  stream(sink: Writable): Promise<void>;
}

export interface ResultExportService {
  handlers: { [M in keyof Requests]: Handler<M> };
  /** The download a ticket from `results/export-csv` names, once; null when unknown, used or expired. */
  takeDownload(ticket: string): ExportDownload | null;
  stopAll(): void;
}

/** An unused download address stops working after this long. */
const ticketLifetimeMs = 60_000;

/** Progress events at most this often, so a fast export does not flood the clients. */
const progressIntervalMs = 200;

/**
 * "Export CSV" on a query cell's grid: runs the query the grid's result came from again (through
 * the same read-only connector) and streams every row, not just the preview the grid holds.
 * The desktop app writes where the save dialog says, into a temporary file renamed at the end
 * so a failed or cancelled export leaves no partial file and overwrites nothing; browser mode
 * answers with a one-time address on `dwb serve` that streams the rows as the download.
 */
export function createResultExportService(dependencies: {
  notebooks: NotebookStore;
  connector(id: string): Promise<Connector>;
  platform: ReportPlatform;
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
}): ResultExportService {
  const { notebooks, platform, emit } = dependencies;
  const running = new Map<string, AbortController>();
  const tickets = new Map<string, { download: ExportDownload; expires: number }>();

  /**
   * The query the cell's shown result came from (its text as it ran, even when edited since) and
   * its connection; a cell whose run did not record the text (a run step's, never edited) runs its source.
   */
  function queryOf(cellId: string): { text: string; connectionId: string; fileName: string } {
    const cell = notebooks.getCell(cellId);
    if (cell.kind !== 'query') throw new WorkbenchError('invalid-request', 'Only a query cell’s result can be exported this way');
    const connectionId = cell.output?.connectionId ?? cell.connectionId;
    if (!connectionId) throw new WorkbenchError('invalid-request', 'The cell has no connection to run its query on');
    const text = cell.output?.status === 'ok' && cell.output.query !== undefined ? cell.output.query : cell.source;
    if (!text.trim()) throw new WorkbenchError('invalid-request', 'The cell has no query to export');
    const notebook = notebooks.get(cell.notebookId);
    const position = notebook.cells.findIndex((candidate) => candidate.id === cell.id) + 1;
    return { text, connectionId, fileName: exportFileName({ notebookTitle: notebook.title, position, query: text }) };
  }

  /** Runs one export into `sink`, reporting progress and the end; throws what made it fail. */
  async function run(exportId: string, query: { text: string; connectionId: string }, formulaSafe: boolean, sink: Writable): Promise<{ rowCount: number; truncated: boolean }> {
    if (running.has(exportId)) throw new WorkbenchError('conflict', `An export named ${exportId} is already running`);
    const controller = new AbortController();
    running.set(exportId, controller);
    // Listened to from the start: a file that cannot be opened fails before any row is read,
    // and an 'error' nobody listens to would end the process.
    let sinkError: Error | null = null;
    sink.on('error', (error) => (sinkError ??= error));
    let rowCount = 0;
    let reportedAt = 0;
    emit('result-export-progress', { exportId, status: 'running', rowCount: 0 });
    try {
      const connector = await dependencies.connector(query.connectionId);
      const result = await streamQueryAsCsv(connector, query.text, sink, {
        formulaSafe,
        maxRows: resultExportMaxRows,
        // The analyst can cancel; a long export is not cut by the cell's interactive time limit.
        timeoutMs: querySettingsLimits.timeoutMs,
        signal: controller.signal,
        onProgress: (rows) => {
          rowCount = rows;
          if (Date.now() - reportedAt < progressIntervalMs) return;
          reportedAt = Date.now();
          emit('result-export-progress', { exportId, status: 'running', rowCount });
        },
      });
      sink.end();
      await finished(sink);
      emit('result-export-progress', { exportId, status: 'done', rowCount: result.rowCount, truncated: result.truncated });
      return result;
    } catch (caught) {
      const error = controller.signal.aborted
        ? new WorkbenchError('cancelled', 'Export cancelled')
        : sinkError
          ? new WorkbenchError('internal', `Could not write the export: ${(sinkError as Error).message}`)
          : WorkbenchError.from(caught);
      sink.destroy();
      emit('result-export-progress', error.code === 'cancelled' ? { exportId, status: 'cancelled', rowCount } : { exportId, status: 'failed', rowCount, message: error.message });
      throw error;
    } finally {
      running.delete(exportId);
    }
  }

  async function saveToFile(exportId: string, query: { text: string; connectionId: string }, formulaSafe: boolean, path: string) {
    const partial = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.partial`);
    const file = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
    try {
      const result = await run(exportId, query, formulaSafe, file);
      renameSync(partial, path);
      return { status: 'saved' as const, path, ...result };
    } catch (error) {
      // The file may still be opening (a query that fails at once): remove it once it is closed.
      if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
      rmSync(partial, { force: true });
      throw error;
    }
  }

  function dropExpiredTickets(): void {
    const now = Date.now();
    for (const [ticket, entry] of tickets) if (entry.expires < now) tickets.delete(ticket);
  }

  return {
    handlers: {
      'results/export-csv': async ({ exportId, cellId, formulaSafe }) => {
        const query = queryOf(cellId);
        if (platform.saveFileDialog) {
          const path = await platform.saveFileDialog({ title: 'Export all rows as CSV', defaultName: query.fileName, extensions: ['csv'] });
          if (!path) return { status: 'not-saved' };
          return saveToFile(exportId, query, formulaSafe, path);
        }
        dropExpiredTickets();
        const ticket = randomBytes(24).toString('base64url');
        tickets.set(ticket, {
          expires: Date.now() + ticketLifetimeMs,
          download: {
            fileName: query.fileName,
            // The outcome reaches the page as events; the response only carries the bytes.
            stream: (sink) => run(exportId, query, formulaSafe, sink).then(
              () => undefined,
              () => undefined,
            ),
          },
        });
        return { status: 'download', url: `/exports/${ticket}`, fileName: query.fileName };
      },
      'results/export-cancel': ({ exportId }) => {
        const controller = running.get(exportId);
        controller?.abort();
        return Promise.resolve({ cancelled: controller !== undefined });
      },
    },
    takeDownload: (ticket) => {
      dropExpiredTickets();
      const entry = tickets.get(ticket);
      tickets.delete(ticket);
      return entry?.download ?? null;
    },
    stopAll: () => {
      for (const controller of running.values()) controller.abort();
    },
  };
}
