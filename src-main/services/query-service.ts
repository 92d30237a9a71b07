import type { Connector } from '../connectors/connector';
import { resultPreviewRows } from '../contract/data';
import { WorkbenchError } from '../contract/errors';
import type { Environment } from '../workspace/clock';
import type { NotebookStore } from '../workspace/notebook-store';
import type { EventBus } from './event-bus';
import { queryRowsForwarder } from './query-rows-events';
import type { HandlersFor } from './router';

export interface QueryService {
  handlers: HandlersFor<'query/'>;
  /** Cancels every query still running (the workspace is closing). */
  stopAll(): void;
}

/**
 * The `query/*` requests: a query cell's query, streamed to the clients as it reads, and its
 * cancellation by request id. A cell's output is saved whatever the outcome.
 */
export function createQueryService(dependencies: { connector(id: string): Promise<Connector>; notebooks: NotebookStore; environment: Environment; bus: EventBus }): QueryService {
  const { notebooks, environment, bus } = dependencies;
  const running = new Map<string, AbortController>();
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
          bus.emit('query-end', { requestId, status: 'ok', rowCount: result.rowCount, elapsedMs: result.elapsedMs, ...cell });
          return result;
        } catch (caught) {
          const error = WorkbenchError.from(caught);
          if (cellId) notebooks.saveOutput(cellId, { status: 'error', error: error.toJSON(), ranAt, connectionId });
          const status = error.code === 'cancelled' ? 'cancelled' : 'error';
          bus.emit('query-end', { requestId, status, elapsedMs: performance.now() - started, ...cell });
          throw error;
        } finally {
          running.delete(requestId);
        }
      },
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
