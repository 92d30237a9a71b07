import { useEffect, useRef, useState } from 'react';
import { reviewKeyOf, type RunProgress } from '../../src-main/contract';
import type { Cell, CellKind } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { NoteCell } from '../cells/NoteCell';
import { ProgramCell } from '../cells/ProgramCell';
import { QueryCell } from '../cells/QueryCell';
import { ReadOnlyCard } from '../cells/ReadOnlyCard';
import { SimulationCell } from '../cells/SimulationCell';
import { WhatIfCell } from '../cells/WhatIfCell';
import { RunBar } from '../runs/RunBar';
import { RunComposer } from '../runs/RunComposer';
import { ReviewDock } from '../runs/ReviewDock';
import { RunHistory } from '../runs/RunHistory';
import { neighbourWithConnection } from '../state/notebook-slice';
import { useSimulatorFit } from './use-simulator-fit';
import { NotebookDocuments } from './NotebookDocuments';

/** The open notebook: its title and cells in order, with add buttons between them. */
export function NotebookView() {
  const notebookId = useWorkbench((state) => state.currentNotebookId);
  const title = useWorkbench((state) => state.notebooks.find((notebook) => notebook.id === state.currentNotebookId)?.title ?? '');
  const cells = useWorkbench((state) => state.cells);
  const renameNotebook = useWorkbench((state) => state.renameNotebook);
  const reportError = useWorkbench((state) => state.reportError);
  const runDraft = useWorkbench((state) => state.runDraft);
  const openRunDraft = useWorkbench((state) => state.openRunDraft);
  const allRuns = useWorkbench((state) => state.runs);
  const runs = Object.values(allRuns).filter((run) => run.notebookId === notebookId);
  const interrupted = useWorkbench((state) => state.interruptedRuns);
  const loadInterruptedRuns = useWorkbench((state) => state.loadInterruptedRuns);
  const resumeRun = useWorkbench((state) => state.resumeRun);
  const openReportDialog = useWorkbench((state) => state.openReportDialog);
  const historyOpen = useWorkbench((state) => state.runHistoryOpen);
  const setHistoryOpen = useWorkbench((state) => state.setRunHistoryOpen);
  const [dismissedRunId, setDismissedRunId] = useState<string | null>(null);
  // Live runs keep their full bar; of the ended ones only the latest shows, as one line.
  const liveRuns = runs.filter((run) => run.status === 'running');
  const lastEnded = runs
    .filter((run) => run.status !== 'running')
    .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt))[0];
  const showEnded = lastEnded && lastEnded.runId !== dismissedRunId ? lastEnded : undefined;

  // A run waiting for the analyst docks its review beside the notebook; the cell it is about scrolls into sight.
  const reviewing = liveRuns.find((run): run is RunProgress & { pendingReview: NonNullable<RunProgress['pendingReview']> } => run.pendingReview !== null);
  const underReview = reviewing ? cellUnderReview(cells, reviewing) : null;
  const reviewKey = reviewing ? `${reviewing.runId}:${reviewKeyOf(reviewing.pendingReview)}:${reviewing.pendingReview.subject}` : null;
  const cellsRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!reviewKey || !underReview) return;
    cellsRef.current?.querySelector(`[data-cell-slot="${CSS.escape(underReview)}"]`)?.scrollIntoView({ block: 'center' });
  }, [reviewKey, underReview]);

  useEffect(() => {
    if (notebookId) void loadInterruptedRuns(notebookId).catch((error: unknown) => reportError(error, 'Could not list the runs'));
  }, [notebookId, loadInterruptedRuns, reportError]);

  if (!notebookId) {
    return (
      <main className="notebook empty-state">
        <h2>No notebook open</h2>
        <p>Create one from the sidebar (Ctrl+Alt+N).</p>
      </main>
    );
  }
  return (
    <div className={`notebook-layout${reviewing ? ' with-review' : ''}`} ref={cellsRef}>
    <main className="notebook" data-testid="notebook">
      <EditableTitle
        key={notebookId}
        title={title}
        onRename={(next) => void renameNotebook(notebookId, next).catch((error: unknown) => reportError(error, 'Rename failed'))}
      />
      <div className="notebook-actions">
        {!runDraft && (
          <button className="primary" data-testid="new-run" onClick={() => openRunDraft({})}>
            ▶ Ask the model to decide…
          </button>
        )}
        <button
          className="ghost"
          data-testid="export-report"
          onClick={() => void openReportDialog({ notebookId, runId: null }).catch((error: unknown) => reportError(error, 'Could not open the export dialog'))}
        >
          Export report…
        </button>
        <button className="ghost" data-testid="toggle-run-history" aria-expanded={historyOpen} onClick={() => setHistoryOpen(!historyOpen)}>
          Run history
        </button>
      </div>
      <NotebookDocuments key={`documents-${notebookId}`} notebookId={notebookId} />
      {historyOpen && <RunHistory notebookId={notebookId} onClose={() => setHistoryOpen(false)} />}
      {runDraft && <RunComposer draft={runDraft} />}
      {interrupted.map((run) => (
        <div key={run.id} className="interrupted-run" role="status" data-testid="interrupted-run">
          <span>
            The app stopped during the run “{run.question.slice(0, 80)}”. Its steps so far are below.
          </span>
          <button className="primary small" onClick={() => void resumeRun(run.id).catch((error: unknown) => reportError(error, 'Could not resume'))}>
            Resume run
          </button>
        </div>
      ))}
      <AddCellBar afterCellId={null} prominent={cells.length === 0} />
      {cells.map((cell) => (
        <div key={cell.id} className={`cell-slot${cell.id === underReview ? ' under-review' : ''}`} data-cell-slot={cell.id} {...(cell.id === underReview ? { 'data-testid': 'cell-under-review' } : {})}>
          <CellByKind cell={cell} />
          <AddCellBar afterCellId={cell.id} />
        </div>
      ))}
      <div className="run-bars">
        {liveRuns.map((run) => (
          <RunBar key={run.runId} progress={run} />
        ))}
        {showEnded && (
          <RunBar key={showEnded.runId} progress={showEnded} compact onDismiss={() => setDismissedRunId(showEnded.runId)} onShowHistory={() => setHistoryOpen(true)} />
        )}
      </div>
    </main>
    {reviewing && <ReviewDock key={reviewing.runId} run={reviewing} />}
    </div>
  );
}

/**
 * The cell a review is about: the run's newest cell on the node under review (a Plan*RAG node,
 * a DeLLMa step), else the run's newest cell; null before the run wrote one.
 */
export function cellUnderReview(cells: readonly Cell[], run: Pick<RunProgress, 'runId' | 'pendingReview'>): string | null {
  const own = cells.filter((cell) => cell.provenance.runId === run.runId);
  const node = run.pendingReview?.node;
  const onNode = node ? own.filter((cell) => cell.provenance.node === node) : [];
  return (onNode.at(-1) ?? own.at(-1))?.id ?? null;
}

function CellByKind({ cell }: { cell: Cell }) {
  if (cell.kind === 'query') return <QueryCell cell={cell} />;
  if (cell.kind === 'note') return <NoteCell cell={cell} />;
  if (cell.kind === 'simulation') return <SimulationCell cell={cell} />;
  if (cell.kind === 'whatif') return <WhatIfCell cell={cell} />;
  if (cell.kind === 'observation' && cell.data.tool === 'pearl-program' && (cell.data as { input?: unknown }).input) return <ProgramCell cell={cell} />;
  return <ReadOnlyCard cell={cell} />;
}

function AddCellBar({ afterCellId, prominent = false }: { afterCellId: string | null; prominent?: boolean }) {
  const addCell = useWorkbench((state) => state.addCell);
  const reportError = useWorkbench((state) => state.reportError);
  // A simulation cell takes the same connection as a query added here would.
  const simulationConnectionId = useWorkbench((state) => neighbourWithConnection(state.cells, afterCellId)?.connectionId ?? state.connections[0]?.id ?? null);
  const simulatorFits = useSimulatorFit(simulationConnectionId);
  const add = (kind: CellKind): void => void addCell(kind, { afterCellId }).catch((error: unknown) => reportError(error, 'Could not add a cell'));
  return (
    <div className={`add-cell-bar${prominent ? ' prominent' : ''}`} data-testid={prominent ? 'empty-notebook' : undefined}>
      {prominent && <span className="muted">This notebook is empty. Add a cell (or press B), or ask the model to decide:</span>}
      <button className="ghost small" onClick={() => add('query')} data-testid="add-query">
        + Query
      </button>
      <button className="ghost small" onClick={() => add('note')} data-testid="add-note">
        + Note
      </button>
      {simulatorFits && (
        <button className="ghost small" onClick={() => add('simulation')} data-testid="add-simulation" title="Simulate the decision with the business rules of this data">
          + Simulation
        </button>
      )}
      <button className="ghost small" onClick={() => add('whatif')} data-testid="add-whatif" title="Compare candidate changes on a throwaway copy of a SQLite or DuckDB database">
        + What-if
      </button>
    </div>
  );
}

function EditableTitle({ title, onRename }: { title: string; onRename(title: string): void }) {
  const [draft, setDraft] = useState<string | null>(null);
  if (draft === null) {
    return (
      <h1
        className="notebook-title"
        data-testid="notebook-title"
        tabIndex={0}
        data-own-keys
        onDoubleClick={() => setDraft(title)}
        onKeyDown={(event) => {
          // The keyboard's way to rename: focus the title (Tab), then Enter or F2.
          if (event.key === 'Enter' || event.key === 'F2') {
            event.preventDefault();
            event.stopPropagation();
            setDraft(title);
          }
        }}
        title="Double-click, or Enter, to rename"
      >
        {title}
      </h1>
    );
  }
  const commit = (): void => {
    const next = draft.trim();
    setDraft(null);
    if (next && next !== title) onRename(next);
  };
  return (
    <input
      className="notebook-title-input"
      autoFocus
      aria-label="Notebook title"
      value={draft}
      onChange={(event) => setDraft(event.target.value)}
      onBlur={commit}
      onKeyDown={(event) => {
        if (event.key === 'Enter') commit();
        if (event.key === 'Escape') setDraft(null);
      }}
    />
  );
}
