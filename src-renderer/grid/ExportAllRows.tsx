import { useState } from 'react';
import { resultExportMaxRows } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';

/**
 * "Export CSV" on a query cell's grid: every row of the result, not the preview the grid holds
 * (see the result-exports slice). Shows the live row count with a Cancel button while it runs,
 * then how it ended — with the reason when the query fails now.
 */
export function ExportAllRows({ cellId }: { cellId: string }) {
  const state = useWorkbench((store) => store.resultExports[cellId]);
  const exportAllRows = useWorkbench((store) => store.exportAllRows);
  const cancelResultExport = useWorkbench((store) => store.cancelResultExport);
  const reportError = useWorkbench((store) => store.reportError);
  const [open, setOpen] = useState(false);
  const [formulaSafe, setFormulaSafe] = useState(false);
  const running = state?.kind === 'running';

  const button = (
    <button
      className="ghost small"
      data-testid="export-all-rows"
      aria-expanded={open || running}
      onClick={() => setOpen(!open)}
      title="Export every row of the result as CSV (runs the cell’s query again)"
    >
      Export CSV
    </button>
  );
  if (!open && !running) return button;
  return (
    <>
      {button}
      <div className="result-export" role="group" aria-label="Export all rows" data-testid="result-export">
        {running ? (
          <>
            <span role="status" data-testid="result-export-status">
              Exporting… {state.rowCount.toLocaleString()} rows written
            </span>
            <button className="ghost small" data-testid="cancel-export" onClick={() => void cancelResultExport(cellId).catch((error: unknown) => reportError(error, 'Could not cancel the export'))}>
              Cancel export
            </button>
          </>
        ) : (
          <>
            <label className="checkbox" title="Text cells starting with = + - or @ get an apostrophe first, so a spreadsheet shows them as text instead of running them">
              <input type="checkbox" checked={formulaSafe} onChange={(event) => setFormulaSafe(event.target.checked)} /> Formula-safe (for spreadsheets)
            </label>
            <button className="primary small" data-testid="start-export" onClick={() => void exportAllRows(cellId, { formulaSafe })}>
              Export all rows
            </button>
            {state?.kind === 'done' && (
              <span role="status" data-testid="result-export-status">
                {state.rowCount.toLocaleString()} row{state.rowCount === 1 ? '' : 's'} {state.where}
                {state.truncated && ` — stopped at ${resultExportMaxRows.toLocaleString()} rows, the most an export reads`}
              </span>
            )}
            {state?.kind === 'cancelled' && (
              <span role="status" data-testid="result-export-status">
                Export cancelled
              </span>
            )}
            {state?.kind === 'failed' && (
              <span className="form-error" role="alert" data-testid="result-export-status">
                Export failed: {state.message}
              </span>
            )}
          </>
        )}
      </div>
    </>
  );
}
