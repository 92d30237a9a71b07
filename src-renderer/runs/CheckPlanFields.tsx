import { useEffect, useState } from 'react';
import type { CheckPlan } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import type { RunDraft } from '../state/runs-slice';

type Parameter = 'country' | 'home' | 'goods';

/** The fields each simulator needs, as the composer asks for them. */
const fieldsOf: Record<NonNullable<CheckPlan['scenario']>, { parameter: Parameter; label: string }[]> = {
  locating: [
    { parameter: 'country', label: 'Country' },
    { parameter: 'home', label: 'Home node' },
  ],
  building: [{ parameter: 'goods', label: 'Goods' }],
};

/** How long typing may pause before the preview is asked again: one request per pause, not per key. */
const previewDelayMs = 250;

/**
 * How the run's decision will be checked, shown while the question is typed: where a simulator
 * fits the data, the parameters it needs, prefilled from the question (the main process's
 * parser) and editable, each checked against the data; otherwise, or while one is missing,
 * "Not checked: <reason>" — the same words the decision cell, the run bar and reports use.
 */
export function CheckPlanFields({ draft, onChange }: { draft: Pick<RunDraft, 'connectionId' | 'question' | 'known' | 'simulatorRules'>; onChange(known: RunDraft['known']): void }) {
  const checkPlan = useWorkbench((state) => state.checkPlan);
  const [plan, setPlan] = useState<CheckPlan | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const { connectionId, question, known, simulatorRules } = draft;
  useEffect(() => {
    let current = true;
    if (!connectionId) return;
    const timer = setTimeout(() => {
      checkPlan({ connectionId, question, known, simulatorRules })
        .then((result) => {
          if (!current) return;
          setPlan(result);
          setFailure(null);
        })
        .catch((error: unknown) => {
          if (current) setFailure(error instanceof Error ? error.message : String(error));
        });
    }, previewDelayMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [connectionId, question, known, simulatorRules, checkPlan]);

  if (!connectionId) return null;
  if (failure) return <p className="muted" data-testid="check-plan">The check could not be previewed: {failure}</p>;
  if (!plan) return null;
  const note = plan.unchecked === null ? `The simulator checks the decision (${describe(plan)}).` : `Not checked: ${plan.unchecked}.`;
  return (
    <fieldset className="check-plan" data-testid="check-plan" data-checked={plan.unchecked === null ? 'yes' : 'no'}>
      <legend>Decision check</legend>
      {plan.scenario && (
        <div className="composer-row">
          {fieldsOf[plan.scenario].map(({ parameter, label }) => {
            const problem = plan.problems.find((entry) => entry.parameter === parameter);
            const value = known[parameter] ?? plan.parameters[parameter] ?? plan.parsed[parameter] ?? '';
            return (
              <label key={parameter}>
                {label}
                <input
                  aria-label={label}
                  data-testid={`check-${parameter}`}
                  value={value}
                  placeholder="not named in the question"
                  aria-invalid={problem ? true : undefined}
                  title={known[parameter] === undefined && plan.parsed[parameter] !== undefined ? 'Read from the question' : undefined}
                  onChange={(event) => onChange({ ...known, [parameter]: event.target.value })}
                />
              </label>
            );
          })}
        </div>
      )}
      <span className={plan.unchecked === null ? 'muted' : 'warning'} data-testid="check-plan-note">
        {note}
      </span>
    </fieldset>
  );
}

function describe(plan: CheckPlan): string {
  const { country, home, goods } = plan.parameters;
  return plan.scenario === 'locating' ? `country ${country ?? '?'}, home node ${home ?? '?'}` : `goods ${goods ?? '?'}`;
}
