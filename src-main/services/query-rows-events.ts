import type { RowBatch } from '../connectors/connector';
import { resultPreviewRows } from '../contract/data';
import type { EventBus } from './event-bus';

/** Count-only updates at most this often, so a fast million-row stream does not flood clients. */
const countIntervalMs = 150;

/**
 * Forwards a cell query's streamed rows to the clients as `query-rows` events: the preview's rows
 * as they arrive (each row sent once, at most `resultPreviewRows` in all), then the running
 * count a few times a second. The grid shows the first rows at once and counts the rest live.
 */
export function queryRowsForwarder(bus: EventBus, ids: { requestId: string; cellId?: string }): (batch: RowBatch) => void {
  let sent = 0;
  let rowCount = 0;
  let countSentAt = 0;
  return (batch) => {
    rowCount += batch.rows.length;
    const rows = batch.rows.slice(0, Math.max(0, resultPreviewRows - sent));
    const now = performance.now();
    if (rows.length === 0 && now - countSentAt < countIntervalMs) return;
    countSentAt = now;
    bus.emit('query-rows', { ...ids, ...(sent === 0 ? { columns: batch.columns } : {}), rows, rowCount });
    sent += rows.length;
  };
}
