import { useEffect, useState } from 'react';
import { dellmaVariants, type DellmaCostEstimate, type DellmaRunSettingsInput, type DellmaVariant } from '../../src-main/contract/dellma';
import { useWorkbench } from '../ui/store-context';
import { dellmaSizeProblem } from './request-problem';

const variantLabels: Record<DellmaVariant, string> = {
  pairs: 'DeLLMa-Pairs',
  top1: 'DeLLMa-Top-1',
  naive: 'DeLLMa-Naive',
  'zero-shot': 'Zero-shot (baseline)',
  cot: 'Chain-of-thought (baseline)',
  sc: 'Self-consistency (baseline)',
};

/** The sizes as the contract's defaults give them (src-main/contract/dellma.ts), shown in the fields until changed. */
const shownDefaults = { perAction: 16, batch: 32, overlap: 0.25, naiveSamples: 50, selfConsistency: 5 };

/**
 * DeLLMa's variant and sizes in the run composer, with the cost the main process estimates for
 * them (the sampling cell's estimate: calls and tokens from |A|, s, b, q), recomputed as the
 * question, a size or the notebook's attached documents change. A size the main process refuses shows its message instead.
 */
export function DellmaSettings({ question, rules, value, onChange }: { question: string; rules: string; value: DellmaRunSettingsInput; onChange(value: DellmaRunSettingsInput): void }) {
  const estimateDellma = useWorkbench((state) => state.estimateDellma);
  const [estimate, setEstimate] = useState<DellmaCostEstimate | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // The settings by content: the composer may hand over an equal object on every render.
  const settingsKey = JSON.stringify(value);
  // The open notebook's documents enter every prompt: attaching or removing one while the composer is open asks again.
  const documentsKey = useWorkbench((state) => (state.documents && state.documents.notebookId === state.currentNotebookId ? state.documents.list.map((document) => `${document.id}:${document.chars}`).join(',') : ''));
  useEffect(() => {
    let current = true;
    const settings = JSON.parse(settingsKey) as DellmaRunSettingsInput;
    // A short pause so typing a size asks once, not per keystroke.
    const timer = setTimeout(() => {
      estimateDellma(question, rules, settings)
        .then((result) => current && (setEstimate(result), setProblem(null)))
        .catch((caught: unknown) => current && (setEstimate(null), setProblem(dellmaSizeProblem(caught instanceof Error ? caught.message : String(caught)))));
    }, 150);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [question, rules, settingsKey, documentsKey, estimateDellma]);

  const variant = value.variant ?? 'pairs';
  const baseline = variant === 'zero-shot' || variant === 'cot' || variant === 'sc';
  const size = (field: keyof typeof shownDefaults, label: string, step: number) => (
    <label>
      {label}
      <input
        type="number"
        aria-label={label}
        step={step}
        value={value[field] ?? shownDefaults[field]}
        onChange={(event) => {
          const { [field]: _previous, ...rest } = value;
          const number = event.target.value === '' ? undefined : Number(event.target.value);
          onChange(number === undefined ? rest : { ...rest, [field]: number });
        }}
      />
    </label>
  );
  return (
    <fieldset className="dellma-settings" data-testid="dellma-settings">
      <legend>DeLLMa</legend>
      <div className="composer-row">
        <label>
          Variant
          <select aria-label="DeLLMa variant" value={variant} onChange={(event) => onChange({ ...value, variant: event.target.value as DellmaVariant })}>
            {dellmaVariants.map((id) => (
              <option key={id} value={id}>
                {variantLabels[id]}
              </option>
            ))}
          </select>
        </label>
        {(variant === 'pairs' || variant === 'top1') && (
          <>
            {size('perAction', 'Samples per option', 1)}
            {size('batch', 'Minibatch size', 1)}
            {size('overlap', 'Overlap', 0.05)}
          </>
        )}
        {variant === 'naive' && size('naiveSamples', 'Naive samples', 1)}
        {variant === 'sc' && size('selfConsistency', 'Answers', 1)}
      </div>
      <p className="muted" data-testid="dellma-estimate">
        {problem !== null
          ? `Not valid: ${problem}`
          : estimate === null
            ? 'Estimating the cost…'
            : `Estimated cost: ${estimate.calls} model call(s)${baseline ? '' : ` (${estimate.forecastCalls} forecast, ${estimate.rankingCalls} ranking, ${estimate.otherCalls} other)`}, about ${estimate.promptTokens.toLocaleString('en-US')} prompt + ${estimate.completionTokens.toLocaleString('en-US')} answer tokens, for ${estimate.actions === null ? `up to ${estimate.assumedActions} options (none listed in the question)` : `${estimate.assumedActions} option(s)`}. The data the run reads is not known yet: assumed about 1,000 tokens.`}
      </p>
      <p className="muted" data-testid="dellma-whatif-hint">
        [ext] On your own data, <code>What-if</code> lines in the question map each value of an unknown and each option to a change (<code>What-if demand = low: UPDATE …</code>, <code>What-if option: … :candidate</code>, <code>What-if objective: SELECT …</code>); the run then also computes exact outcomes in the what-if sandbox, shown beside the decision.
      </p>
    </fieldset>
  );
}
