import { useEffect, useRef, type ReactNode } from 'react';
import type { Cell } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { focusEditorIn } from '../editor/QueryEditor';
import { queryLabelOf } from './cell-label';

const kindLabels: Record<Cell['kind'], string> = {
  question: 'Question',
  plan: 'Plan',
  thought: 'Thought',
  query: 'Query',
  observation: 'Observation',
  replan: 'Re-plan',
  simulation: 'Simulation',
  whatif: 'What-if',
  decision: 'Decision',
  note: 'Note',
};

const saveLabels = { saved: 'Saved', pending: 'Editing…', saving: 'Saving…', error: 'Not saved — retrying on next edit' } as const;

/** The chrome every cell shares: kind, author, save state and the cell's own actions. */
export function CellFrame({ cell, toolbar, children }: { cell: Cell; toolbar?: ReactNode; children: ReactNode }) {
  const saveState = useWorkbench((state) => state.saveStates[cell.id]);
  const moveCell = useWorkbench((state) => state.moveCell);
  const deleteCell = useWorkbench((state) => state.deleteCell);
  const reportError = useWorkbench((state) => state.reportError);
  const selected = useWorkbench((state) => state.selectedCellId === cell.id);
  const editSeq = useWorkbench((state) => (state.editRequest?.cellId === cell.id ? state.editRequest.seq : 0));
  const leaveSeq = useWorkbench((state) => (state.leaveRequest?.cellId === cell.id ? state.leaveRequest.seq : 0));
  const selectCell = useWorkbench((state) => state.selectCell);
  const section = useRef<HTMLElement>(null);

  // Command mode: the selected cell holds the focus itself, so the page scrolls to it and keys reach it.
  useEffect(() => {
    const element = section.current;
    if (!selected || !element || element.contains(document.activeElement)) return;
    if (document.activeElement?.closest('[role="dialog"]')) return;
    element.focus();
  }, [selected]);

  // Enter in command mode: the cell's editor (if it has one open) takes the keys.
  useEffect(() => {
    if (editSeq && section.current && !focusEditorIn(section.current)) section.current.querySelector<HTMLElement>('textarea')?.focus();
  }, [editSeq]);

  // Esc (or a note's Shift+Enter): the cell itself holds the focus again, in command mode.
  useEffect(() => {
    if (leaveSeq) section.current?.focus();
  }, [leaveSeq]);

  return (
    <section
      ref={section}
      className={`cell cell-${cell.kind}${selected ? ' selected' : ''}`}
      data-testid="cell"
      data-cell-kind={cell.kind}
      data-cell-id={cell.id}
      tabIndex={-1}
      aria-label={`${kindLabels[cell.kind]} cell`}
      onFocus={() => {
        if (!selected) selectCell(cell.id);
      }}
    >
      <header className="cell-header">
        <span className={`badge kind-${cell.kind}`}>{kindLabels[cell.kind]}</span>
        {queryLabelOf(cell) && (
          <span className="cell-label" data-testid="cell-label" title="This query's name in the run's report">
            {queryLabelOf(cell)}
          </span>
        )}
        <span className={`author author-${cell.author}`} title="Who wrote this cell">
          {cell.author}
        </span>
        {cell.provenance.origin && <span className="provenance">{cell.provenance.origin}</span>}
        {saveState && (
          <span className={`save-state save-${saveState}`} data-testid="save-state">
            {saveLabels[saveState]}
          </span>
        )}
        <span className="spacer" />
        {toolbar}
        <span className="cell-actions">
          <button className="icon" title="Move up" aria-label="Move cell up" onClick={() => void moveCell(cell.id, -1).catch((e: unknown) => reportError(e, 'Move failed'))}>
            ↑
          </button>
          <button className="icon" title="Move down" aria-label="Move cell down" onClick={() => void moveCell(cell.id, 1).catch((e: unknown) => reportError(e, 'Move failed'))}>
            ↓
          </button>
          <button className="icon" title="Delete cell (undo from the notice)" aria-label="Delete cell" onClick={() => void deleteCell(cell.id, { capture: 'capture' }).catch((e: unknown) => reportError(e, 'Delete failed'))}>
            ✕
          </button>
        </span>
      </header>
      {children}
    </section>
  );
}
