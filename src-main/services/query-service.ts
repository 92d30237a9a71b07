import type { Connector } from '../connectors/connector';
import { resultPreviewRows } from '../contract/data';
import { WorkbenchError } from '../contract/errors';
import type { Environment } from '../workspace/clock';
import type { NotebookStore } from '../workspace/notebook-store';
import type { NewQueryHistoryEntry, QueryHistoryStore } from '../workspace/query-history-store';
import type { EventBus } from './event-bus';
import { queryRowsForwarder } from './query-rows-events';
import type { HandlersFor } from './router';

export interface QueryService {
  handlers: HandlersFor<'query/' | 'history/'>;
  /** Cancels every query still running (the workspace is closing). */
  stopAll(): void;
}

/**
 * The `query/*` requests: a query cell's query, streamed to the clients as it reads, and its
 * cancellation by request id. A cell's output is saved whatever the outcome, and every run goes
 * into the connection's query history (`history/queries`), failed and cancelled ones too.
 */
export function createQueryService(dependencies: {
  connector(id: string): Promise<Connector>;
  notebooks: NotebookStore;
  history: QueryHistoryStore;
  environment: Environment;
  bus: EventBus;
}): QueryService {
  const { notebooks, history, environment, bus } = dependencies;
  const running = new Map<string, AbortController>();
  /** The notebook a cell is in, or null (no cell, or one gone meanwhile): history outlives cells. */
  const notebookOf = (cellId: string | undefined): string | null => {
    if (!cellId) return null;
    try {
      return notebooks.getCell(cellId).notebookId;
    } catch {
      return null;
    }
  };
  const remember = (entry: Omit<NewQueryHistoryEntry, 'notebookId'>): void => history.record({ ...entry, notebookId: notebookOf(entry.cellId ?? undefined) });
  return {
    handlers: {
      'query/run': async ({ requestId, connectionId, text, settings, cellId }) => {
        if (running.has(requestId)) throw new WorkbenchError('conflict', `A query named ${requestId} is already running`);
        const controller = new AbortController();
        running.set(requestId, controller);
        const ranAt = environment.now();
        const started = performance.now();
        const cell = cellId ? { cellId } : {};
        bus.emit('query-start', { requestId, connectionId, ...cell });
        try {
          const connector = await dependencies.connector(connectionId);
          // Streamed: the grid gets the first rows at once and a live count; the reply and the
          // saved output hold a bounded preview (docs/data-sources.md › Large results), never the whole of a large result.
          const onRows = queryRowsForwarder(bus, { requestId, ...cell });
          const result = await connector.query(text, { ...settings, signal: controller.signal, keepRows: resultPreviewRows, onRows });
          if (cellId) notebooks.saveOutput(cellId, { status: 'ok', result, ranAt, connectionId, query: text });
          remember({ connectionId, text, ranAt, durationMs: result.elapsedMs, rowCount: result.rowCount, errorCode: null, cellId: cellId ?? null });
          bus.emit('query-end', { requestId, status: 'ok', rowCount: result.rowCount, elapsedMs: result.elapsedMs, ...cell });
          return result;
        } catch (caught) {
          const error = WorkbenchError.from(caught);
          if (cellId) notebooks.saveOutput(cellId, { status: 'error', error: error.toJSON(), ranAt, connectionId });
          remember({ connectionId, text, ranAt, durationMs: performance.now() - started, rowCount: null, errorCode: error.code, cellId: cellId ?? null });
          const status = error.code === 'cancelled' ? 'cancelled' : 'error';
          bus.emit('query-end', { requestId, status, elapsedMs: performance.now() - started, ...cell });
          throw error;
        } finally {
          running.delete(requestId);
        }
      },
      'history/queries': ({ connectionId, text, limit }) => history.list({ connectionId, text, limit }),
      'query/cancel': ({ requestId }) => {
        const controller = running.get(requestId);
        controller?.abort();
        return { cancelled: controller !== undefined };
      },
    },
    stopAll: () => {
      for (const controller of running.values()) controller.abort();
    },
  };
}
