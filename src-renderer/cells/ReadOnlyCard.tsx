import { diffArrays } from 'diff';
import { decidedByText, type Cell, type CellData } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { PlanGraphView } from '../plan-graph/PlanGraphView';
import { CellFrame } from './CellFrame';
import { dellmaStepOf, DellmaStepView } from './DellmaStep';
import { queryLabelOf } from './cell-label';
import { Markdown } from './Markdown';
import { RerunStepButton } from './RerunStepButton';
import { ScrollablePre } from '../ui/ScrollablePre';

/** Question, plan, thought, observation, re-plan and decision cells: written by a run, read here. */
export function ReadOnlyCard({ cell }: { cell: Cell }) {
  return (
    <CellFrame cell={cell} toolbar={cell.kind === 'question' ? <RunQuestionButton cell={cell} /> : cell.kind === 'observation' && cell.data.tool === 'pearl-step' ? <RerunStepButton cell={cell} /> : undefined}>
      <div className="card-body">
        <CardContent cell={cell} />
      </div>
    </CellFrame>
  );
}

/** Each kind's content from its typed data (contract/notebook.ts `cellDataSchemas`). */
function CardContent({ cell }: { cell: Cell }) {
  switch (cell.kind) {
    case 'question': {
      const rules = cell.data.businessRules ?? '';
      return (
        <>
          <Markdown text={cell.source} />
          {rules && (
            <details className="rules">
              <summary>Business rules</summary>
              <Markdown text={rules} />
            </details>
          )}
        </>
      );
    }
    case 'plan':
      if (!cell.data.steps) return <Markdown text={cell.source} />;
      return (
        <>
          <PlanGraphView cell={cell} />
          {/* A linear plan (s1 → s2 → …) also reads as its numbered list. */}
          {!cell.data.nodes?.some((node) => !/^s\d+$/.test(node.id)) && <StepList steps={cell.data.steps} />}
        </>
      );
    case 'replan': {
      const { previous, steps } = cell.data;
      if (!steps || !previous) return <Markdown text={cell.source} />;
      return (
        <>
          <p className="replan-reason">
            <strong>Why:</strong> {cell.data.reason ?? ''}
          </p>
          <PlanDiff previous={previous} next={steps} />
        </>
      );
    }
    case 'observation': {
      const dellma = dellmaStepOf(cell);
      return dellma ? <DellmaStepView cell={cell} step={dellma.step} input={dellma.input} /> : (
        <ScrollablePre className="observation" label="Observation">
          {cell.source}
        </ScrollablePre>
      );
    }
    case 'decision':
      return <DecisionContent cell={cell} data={cell.data} />;
    default:
      return <Markdown text={cell.source} />;
  }
}

function StepList({ steps }: { steps: string[] }) {
  return (
    <ol className="plan-steps">
      {steps.map((step, index) => (
        <li key={index}>{step}</li>
      ))}
    </ol>
  );
}

/** The new plan against the one it replaces, step by step (jsdiff over the step lists). */
function PlanDiff({ previous, next }: { previous: string[]; next: string[] }) {
  const parts = diffArrays(previous, next);
  return (
    <ol className="plan-diff" data-testid="plan-diff">
      {parts.flatMap((part, partIndex) =>
        part.value.map((step, index) => (
          <li key={`${partIndex}-${index}`} className={part.added ? 'added' : part.removed ? 'removed' : 'kept'}>
            <span className="diff-mark">{part.added ? '+' : part.removed ? '−' : ' '}</span>
            {step}
          </li>
        )),
      )}
    </ol>
  );
}

function DecisionContent({ cell, data }: { cell: Cell; data: CellData<'decision'> }) {
  const cells = useWorkbench((state) => state.cells);
  const selectCell = useWorkbench((state) => state.selectCell);
  const { decision, rationale } = data;
  const evidence = data.evidence ?? [];
  if (!decision) return <Markdown text={cell.source} />;
  const verification = data.verification ?? null;
  return (
    <div className={`decision verdict-${verification ? (verification.agrees ? 'agrees' : 'disagrees') : 'unchecked'}`} data-testid="decision">
      <p className="decision-value">{decision}</p>
      {data.origin && (
        <p className={data.origin.fallback || data.origin.toolAssisted ? 'decided-by notable' : 'decided-by'} data-testid="decided-by">
          Decided by {decidedByText(data.origin)}
        </p>
      )}
      {verification && (
        <p className={`verification ${verification.agrees ? 'agrees' : 'disagrees'}`} data-testid="verification">
          {verification.agrees ? (
            <>✓ The simulator confirms this is the best decision for {verification.objective}{verification.tied.length > 1 ? ` (tied with ${verification.tied.filter((name) => name !== verification.best).join(', ')})` : ''}.</>
          ) : (
            <>
              ✗ The simulator disagrees: the best decision is <strong>{verification.best}</strong>
              {verification.regret === null ? ' (this decision is not among the simulated candidates).' : `; this one is worse by ${verification.regret.toPrecision(4)} (${verification.objective}).`}
            </>
          )}
        </p>
      )}
      {!verification && (
        <p className="verification unchecked" data-testid="verification">
          Not checked: {data.unchecked ?? 'no simulator checked it'}.
        </p>
      )}
      {rationale && <Markdown text={rationale} />}
      {evidence.length > 0 && (
        <p className="evidence">
          Evidence:{' '}
          {evidence.map((cellId) => {
            const index = cells.findIndex((candidate) => candidate.id === cellId);
            return (
              <button
                key={cellId}
                className="ghost small"
                data-testid="evidence-link"
                disabled={index < 0}
                onClick={() => {
                  document.querySelector(`[data-cell-id="${cellId}"]`)?.scrollIntoView({ behavior: 'smooth', block: 'center' });
                  selectCell(cellId);
                }}
              >
                {index < 0 ? 'query (deleted)' : (queryLabelOf(cells[index] as Cell) ?? `query in cell ${index + 1}`)}
              </button>
            );
          })}
        </p>
      )}
    </div>
  );
}

/**
 * The data a question is about: that of the first query cell after it (the analysis that follows
 * the question), else of the nearest one before it.
 */
function connectionNear(cells: Cell[], cellId: string): string | undefined {
  const index = cells.findIndex((candidate) => candidate.id === cellId);
  const withData = (candidate: Cell): boolean => candidate.kind === 'query' && candidate.connectionId !== null;
  const after = cells.slice(index + 1).find(withData);
  const before = cells.slice(0, Math.max(0, index)).reverse().find(withData);
  return (after ?? before)?.connectionId ?? undefined;
}

function RunQuestionButton({ cell }: { cell: Cell }) {
  const openRunDraft = useWorkbench((state) => state.openRunDraft);
  const connectionId = useWorkbench((state) => cell.connectionId ?? connectionNear(state.cells, cell.id));
  return (
    <button
      className="ghost small"
      data-testid="run-question"
      title="Let a decision maker answer this question"
      onClick={() =>
        openRunDraft({
          question: cell.source,
          rules: cell.kind === 'question' ? (cell.data.businessRules ?? '') : '',
          known: cell.kind === 'question' ? knownParameters(cell.data.known) : {},
          // A question that names its technique (the DeLLMa example's) opens the composer with it.
          ...(cell.kind === 'question' && cell.data.technique ? { technique: cell.data.technique } : {}),
          ...(connectionId ? { connectionId } : {}),
        })
      }
    >
      ▶ Ask the model
    </button>
  );
}

function knownParameters(known: CellData<'question'>['known']): { country?: string; home?: string; goods?: string } {
  return { ...(known?.country ? { country: known.country } : {}), ...(known?.home ? { home: known.home } : {}), ...(known?.goods ? { goods: known.goods } : {}) };
}
