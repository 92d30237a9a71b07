import type { Cell } from '../../src-main/contract';
import { CellFrame } from './CellFrame';
import { Markdown } from './Markdown';

/** Question, plan, thought, observation, re-plan, simulation and decision cells, read-only for now. */
export function ReadOnlyCard({ cell }: { cell: Cell }) {
  const rules = typeof cell.data['businessRules'] === 'string' ? cell.data['businessRules'] : null;
  return (
    <CellFrame cell={cell}>
      <div className="card-body">
        <Markdown text={cell.source} />
        {rules && (
          <details className="rules">
            <summary>Business rules</summary>
            <Markdown text={rules} />
          </details>
        )}
      </div>
    </CellFrame>
  );
}
