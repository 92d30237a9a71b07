import { decisionCheckKind, decisionCheckText, type RunSummary } from '../../src-main/contract';

/**
 * The check column of a run history, in the run bar's words: the simulator's verdict or "not
 * checked: <reason>", so a decision that went unchecked never reads as a plain success; a dash
 * without a decision, or for a run stored before checks were kept (said on hover).
 */
export function RunCheckCell({ run }: { run: RunSummary }) {
  const { check } = run;
  if (!check) {
    return (
      <td className="muted" title={run.decision === null ? undefined : 'Not recorded: this run was stored before checks were kept'}>
        —
      </td>
    );
  }
  return (
    <td className={`history-check ${decisionCheckKind(check)}`} data-testid="run-check-cell">
      {decisionCheckText(check)}
    </td>
  );
}
