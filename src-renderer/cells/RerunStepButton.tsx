import { useState } from 'react';
import type { Cell } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';

/**
 * On a Pearl step's cell: runs this step again, and every step that uses its output, as a new
 * run of the same program; the other steps keep the outputs they had (SPECS.md §2.5, a change
 * invalidates the steps downstream).
 */
export function RerunStepButton({ cell }: { cell: Cell }) {
  const rerunStep = useWorkbench((state) => state.rerunStep);
  const reportError = useWorkbench((state) => state.reportError);
  const [busy, setBusy] = useState(false);
  const runId = cell.provenance.runId;
  const step = cell.provenance.node;
  if (!runId || !step) return null;
  return (
    <button
      className="ghost small"
      data-testid="rerun-step"
      disabled={busy}
      title={`Run ${step} again, and every step that uses it, as a new run; the other steps keep their outputs`}
      onClick={() => {
        setBusy(true);
        rerunStep(runId, step, 'auto')
          .catch((error: unknown) => reportError(error, 'Could not re-run the step'))
          .finally(() => setBusy(false));
      }}
    >
      ↻ Re-run {step} and what depends on it
    </button>
  );
}
