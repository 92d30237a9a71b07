import { useCallback, useState } from 'react';
import type { Cell, CellValue, QueryResult } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';

/**
 * What simulation and what-if cells share: the choice of data, a run that cannot be started
 * twice, the failure box, the notes under a result, and the ranking as a grid.
 */

export function DataSelect({ cell, label }: { cell: Cell; label: string }) {
  const connections = useWorkbench((state) => state.connections);
  const editCell = useWorkbench((state) => state.editCell);
  return (
    <select aria-label={label} value={cell.connectionId ?? ''} onChange={(event) => editCell(cell.id, { connectionId: event.target.value || null })}>
      <option value="">Choose data…</option>
      {connections.map((connection) => (
        <option key={connection.id} value={connection.id}>
          {connection.name}
        </option>
      ))}
    </select>
  );
}

/** Runs `action` unless it is already running; a failure is shown as a notice titled `failure`. */
export function useExclusiveRun(action: () => Promise<void>, failure: string): { running: boolean; run: () => void } {
  const reportError = useWorkbench((state) => state.reportError);
  const [running, setRunning] = useState(false);
  const run = useCallback(() => {
    if (running) return;
    setRunning(true);
    void action()
      .catch((error: unknown) => reportError(error, failure))
      .finally(() => setRunning(false));
  }, [action, failure, reportError, running]);
  return { running, run };
}

export function ExperimentError({ title, message, testId }: { title: string; message: string; testId: string }) {
  return (
    <div className="query-error" role="alert" data-testid={testId}>
      <strong>{title}</strong>
      <span>{message}</span>
    </div>
  );
}

export function Notes({ notes }: { notes: string[] }) {
  if (notes.length === 0) return null;
  return (
    <ul className="small-print">
      {notes.map((note) => (
        <li key={note}>{note}</li>
      ))}
    </ul>
  );
}

/** A ranking as a result the grid can show, sort, copy and save. */
export function rankingTable(columns: string[], rows: CellValue[][], elapsedMs: number): QueryResult {
  return { columns: columns.map((name) => ({ name, type: '' })), rows, rowCount: rows.length, truncated: false, elapsedMs };
}
