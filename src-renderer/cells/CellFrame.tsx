import type { ReactNode } from 'react';
import type { Cell } from '../../src-main/contract';
import { useWorkbench } from '../app/store-context';

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
  return (
    <section className={`cell cell-${cell.kind}`} data-testid="cell" data-cell-kind={cell.kind} data-cell-id={cell.id}>
      <header className="cell-header">
        <span className={`badge kind-${cell.kind}`}>{kindLabels[cell.kind]}</span>
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
          <button className="icon" title="Delete cell (undo from the notice)" aria-label="Delete cell" onClick={() => void deleteCell(cell.id).catch((e: unknown) => reportError(e, 'Delete failed'))}>
            ✕
          </button>
        </span>
      </header>
      {children}
    </section>
  );
}
