import { WorkbenchError } from '../../src-main/contract';
import type { SliceContext } from './store';

/** Where a query cell's whole-result export stands. */
export type ResultExportState =
  | { kind: 'running'; exportId: string; rowCount: number }
  | { kind: 'done'; rowCount: number; truncated: boolean; where: string }
  | { kind: 'failed'; message: string }
  | { kind: 'cancelled' }
  /** The save dialog was closed: nothing ran. */
  | { kind: 'not-saved' };

export interface ResultExportsSlice {
  /** Whole-result exports, by query cell id (the latest of each cell). */
  resultExports: Record<string, ResultExportState>;
  /**
   * Exports every row of a query cell's result as CSV: the main process runs the query the
   * result came from again and streams the rows into the file the save dialog names (desktop) or into a
   * download from `dwb serve` (browser mode), reporting the count as it goes.
   */
  exportAllRows(cellId: string, options: { formulaSafe: boolean }): Promise<void>;
  cancelResultExport(cellId: string): Promise<void>;
}

export function createResultExportsSlice({ client, set, get }: SliceContext): ResultExportsSlice {
  /** Browser mode's downloads under way: export id → file name (they end by event, not by reply). */
  const downloads = new Map<string, string>();
  const setState = (cellId: string, state: ResultExportState): void => set({ resultExports: { ...get().resultExports, [cellId]: state } });
  const cellOf = (exportId: string): string | undefined =>
    Object.entries(get().resultExports).find(([, state]) => state.kind === 'running' && state.exportId === exportId)?.[0];

  client.on('result-export-progress', ({ exportId, status, rowCount, truncated, message }) => {
    const cellId = cellOf(exportId);
    if (!cellId) return;
    if (status === 'running') setState(cellId, { kind: 'running', exportId, rowCount });
    else if (status === 'failed') setState(cellId, { kind: 'failed', message: message ?? 'The export failed' });
    else if (status === 'cancelled') setState(cellId, { kind: 'cancelled' });
    else {
      const fileName = downloads.get(exportId);
      // The desktop app's export ends when its request answers with the path.
      if (fileName) setState(cellId, { kind: 'done', rowCount, truncated: truncated === true, where: `downloaded as ${fileName}` });
    }
    if (status !== 'running') downloads.delete(exportId);
  });

  return {
    resultExports: {},
    exportAllRows: async (cellId, { formulaSafe }) => {
      const exportId = crypto.randomUUID();
      setState(cellId, { kind: 'running', exportId, rowCount: 0 });
      try {
        const answer = await client.invoke('results/export-csv', { exportId, cellId, formulaSafe });
        if (answer.status === 'not-saved') setState(cellId, { kind: 'not-saved' });
        else if (answer.status === 'saved') setState(cellId, { kind: 'done', rowCount: answer.rowCount, truncated: answer.truncated, where: `saved to ${answer.path}` });
        else {
          // Browser mode: the browser's downloads fetch the rows while the server streams them.
          downloads.set(exportId, answer.fileName);
          const link = document.createElement('a');
          link.href = answer.url;
          link.download = answer.fileName;
          link.click();
        }
      } catch (caught) {
        const error = WorkbenchError.from(caught);
        setState(cellId, error.code === 'cancelled' ? { kind: 'cancelled' } : { kind: 'failed', message: error.message });
      }
    },
    cancelResultExport: async (cellId) => {
      const state = get().resultExports[cellId];
      if (state?.kind === 'running') await client.invoke('results/export-cancel', { exportId: state.exportId });
    },
  };
}
