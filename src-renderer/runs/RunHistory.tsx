import { useEffect, useRef, useState } from 'react';
import { RunCheckCell } from './RunCheckCell';
import { RunMadeBy } from './RunMadeBy';
import type { RunSummary } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';

export const statusWords: Record<RunSummary['status'], string> = {
  running: 'Running',
  interrupted: 'Interrupted',
  answered: 'Decided',
  'step-limit': 'Step limit',
  'token-limit': 'Token limit',
  'time-limit': 'Time limit',
  failed: 'Failed',
  stopped: 'Stopped',
  cancelled: 'Cancelled',
};

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'short' });

export function duration(run: Pick<RunSummary, 'createdAt' | 'endedAt'>): string {
  if (!run.endedAt) return '—';
  const seconds = Math.max(0, (Date.parse(run.endedAt) - Date.parse(run.createdAt)) / 1000);
  return seconds < 90 ? `${seconds.toFixed(0)} s` : `${(seconds / 60).toFixed(1)} min`;
}

/** Every run of the open notebook, newest first: what it decided, and its cells and report. */
export function RunHistory({ notebookId, onClose }: { notebookId: string; onClose(): void }) {
  const live = useWorkbench((state) => Object.values(state.runs).filter((run) => run.notebookId === notebookId && run.status !== 'running').length);
  const reportError = useWorkbench((state) => state.reportError);
  const openReportDialog = useWorkbench((state) => state.openReportDialog);
  const cells = useWorkbench((state) => state.cells);
  const selectCell = useWorkbench((state) => state.selectCell);
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const list = useWorkbench((state) => state.listRuns);
  const panel = useRef<HTMLElement>(null);

  // Opened from the bar at the bottom, the panel comes into view (and takes the focus for keys).
  useEffect(() => {
    panel.current?.scrollIntoView({ block: 'nearest' });
    panel.current?.focus({ preventScroll: true });
  }, []);

  // Reloaded whenever a run of this notebook ends.
  useEffect(() => {
    let current = true;
    list(notebookId).then(
      (loaded) => current && setRuns(loaded),
      (error: unknown) => reportError(error, 'Could not list the runs'),
    );
    return () => {
      current = false;
    };
  }, [notebookId, live, list, reportError]);

  const goToCells = (runId: string): void => {
    const decision = cells.find((cell) => cell.provenance.runId === runId && cell.kind === 'decision') ?? cells.find((cell) => cell.provenance.runId === runId);
    if (!decision) return;
    document.querySelector(`[data-cell-id="${decision.id}"]`)?.scrollIntoView({ block: 'center' });
    selectCell(decision.id);
  };

  return (
    <section ref={panel} tabIndex={-1} className="run-history" data-testid="run-history" aria-label="Run history">
      <header className="run-history-header">
        <h2>Run history</h2>
        <button className="icon" aria-label="Close the run history" onClick={onClose}>
          ✕
        </button>
      </header>
      {runs === null ? (
        <p className="muted">Loading…</p>
      ) : runs.length === 0 ? (
        <p className="muted">No decision runs in this notebook yet.</p>
      ) : (
        <table className="run-history-table">
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Status</th>
              <th scope="col">Technique</th>
              <th scope="col">Question</th>
              <th scope="col">Decision</th>
              <th scope="col">Check</th>
              <th scope="col">Time</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.id} data-testid="run-history-row">
                <td>{dateFormat.format(new Date(run.createdAt))}</td>
                <td className={`run-state history-${run.status}`}>{statusWords[run.status]}</td>
                <RunMadeBy run={run} />
                <td className="run-question" title={run.question}>
                  {run.question}
                </td>
                <td>{run.decision ?? <span className="muted">—</span>}</td>
                <RunCheckCell run={run} />
                <td>{duration(run)}</td>
                <td className="run-actions">
                  <button className="ghost small" onClick={() => goToCells(run.id)} disabled={!cells.some((cell) => cell.provenance.runId === run.id)}>
                    Go to decision
                  </button>
                  <button
                    className="ghost small"
                    onClick={() => void openReportDialog({ notebookId, runId: run.id }).catch((error: unknown) => reportError(error, 'Could not open the export dialog'))}
                  >
                    Export…
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
