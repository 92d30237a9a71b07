import type { CellValue, QueryResult, ResultColumn } from '../../contract/data';
import { WorkbenchError } from '../../contract/errors';
import type { Connector, QueryOptions } from '../connector';

/** Rows per batch where an engine does not choose its own (DuckDB's chunks are ~2048). */
export const rowBatchSize = 2000;

/**
 * The receiving end of a streamed result: hands each batch to `onRows` (waiting on it, which is
 * the backpressure), keeps the first `keepRows` rows and counts the rest, so memory stays bounded
 * by one batch plus the preview whatever the result's size.
 */
export class StreamedResult {
  private readonly kept: CellValue[][] = [];
  private count = 0;
  private readonly keepRows: number;

  constructor(private readonly options: Pick<QueryOptions, 'onRows' | 'keepRows'>) {
    this.keepRows = options.keepRows ?? 0;
  }

  get rowCount(): number {
    return this.count;
  }

  async push(columns: ResultColumn[], rows: CellValue[][]): Promise<void> {
    if (rows.length === 0) return;
    this.count += rows.length;
    const room = this.keepRows - this.kept.length;
    if (room > 0) this.kept.push(...rows.slice(0, room));
    await this.options.onRows?.({ columns, rows });
  }

  finish(columns: ResultColumn[], truncated: boolean, elapsedMs: number): QueryResult {
    const rows = this.kept;
    return {
      columns,
      rows,
      rowCount: this.count,
      truncated,
      elapsedMs,
      ...(rows.length < this.count ? { preview: { rows: rows.length, note: previewNote(rows.length, this.count) } } : {}),
    };
  }
}

export function previewNote(kept: number, total: number): string {
  return `First ${kept.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows kept; for all of them use Export CSV, or dwb query --format csv`;
}

/**
 * Gives a connector that reads whole (capped) results the streaming interface: the result is
 * read first, then handed over in batches. Memory is bounded by the row cap, not by a batch.
 */
export function withRowStream(connector: Connector): Connector {
  if (connector.streamsRows === true) return connector;
  const query: Connector['query'] = async (text, options) => {
    if (!options.onRows) return connector.query(text, options);
    const { onRows: _onRows, keepRows: _keepRows, ...plain } = options;
    const whole = await connector.query(text, plain);
    const stream = new StreamedResult(options);
    for (let start = 0; start < whole.rows.length; start += rowBatchSize) {
      if (options.signal?.aborted === true) throw new WorkbenchError('cancelled', 'Query cancelled');
      await stream.push(whole.columns, whole.rows.slice(start, start + rowBatchSize));
    }
    return stream.finish(whole.columns, whole.truncated, whole.elapsedMs);
  };
  // Keeps the connector's own getters and methods (bound), overriding only `query`.
  return Object.assign(Object.create(connector) as Connector, { query, schema: () => connector.schema(), close: () => connector.close() });
}
