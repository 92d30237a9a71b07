import { deciderRowLabel, decidedByText, type RunSummary } from '../../src-main/contract';

/**
 * The technique column of a run history: who made the decision ("PlanRAG as Pearl's fallback",
 * "PlanRAG, tool-assisted"), with the full account on hover; the technique started while there
 * is no decision (or for runs stored before the decider was kept).
 */
export function RunMadeBy({ run }: { run: RunSummary }) {
  const origin = run.decidedBy;
  if (!origin) return <td>{run.technique}</td>;
  const notable = origin.fallback !== null || origin.toolAssisted !== null;
  return (
    <td className={notable ? 'run-made-by notable' : 'run-made-by'} title={`Started as ${run.technique}; decided by ${decidedByText(origin)}`} data-testid="run-made-by">
      {deciderRowLabel(origin)}
    </td>
  );
}
