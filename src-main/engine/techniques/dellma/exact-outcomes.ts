import type { DellmaExact } from '../../../contract/dellma';
import type { Candidate } from '../../../contract/whatif';
import { scenarioFailed, type ScenarioFailure } from '../../../whatif/run-scenarios';
import type { LabelledChange } from '../../../whatif/sandbox-session';
import type { BeliefFactor, State } from './belief';
import { optionChange, type WhatIfMapping } from './whatif-mapping';

/**
 * [ext] Exact outcomes of DeLLMa's sampled futures [issue 13, Deliver 3]: where every shared
 * unknown of a sampled future and the option are mapped to what-if changes, the objective of
 * that future × option is computed in the what-if sandbox (the changes applied on a copy, in a
 * transaction always rolled back). Beside the elicited utilities, never mixed into them: the
 * fit, the expected utilities and the decision are final before this runs.
 *
 * Only the shared unknowns (the question's Unknowns) describe the future the data can play
 * out; the per-option factors ("how X turns out") are the model's own uncertainty about the
 * outcome, which the computation replaces, so they are not needed.
 */

/** Sandbox evaluations (distinct future × option) one run may make. */
export const EXACT_MAX_EVALUATIONS = 200;

/** Relative tolerance under which two expected objectives tie. */
const TIE = 1e-9;

export interface ExactPlan {
  changes: LabelledChange[];
  /** Distinct sampled futures, projected on the shared unknowns, most probable first. */
  futures: { text: string; probability: number; draws: number; problem: string | null; evaluated: boolean }[];
  /** Per option, why it cannot be computed (null: it can). */
  optionProblems: (string | null)[];
  /** The sandbox runs, in order: future × option, each with the changes it applies. */
  evaluations: { future: number; action: number; steps: number[]; candidate: Candidate }[];
  /** Evaluations left out by the cap (0: none). */
  overCap: number;
}

export function planExactOutcomes(mapping: WhatIfMapping, beliefs: readonly BeliefFactor[], states: readonly State[], actions: readonly string[], maxEvaluations = EXACT_MAX_EVALUATIONS): ExactPlan {
  const changes: LabelledChange[] = [];
  const stepOf = (label: string, text: string | null): number | null => {
    if (text === null) return null;
    changes.push({ label, text });
    return changes.length - 1;
  };
  const shared = beliefs.map((factor, index) => ({ factor, index })).filter(({ factor }) => factor.scope.kind === 'shared');
  // Per shared factor and value: the change's step (null: no change), or undefined when unmapped.
  const valueSteps = shared.map(({ factor }) => {
    const mapped = mapping.factors.find((entry) => entry.name === factor.name);
    return factor.values.map((entry) => {
      const value = mapped?.values.find((candidate) => candidate.value.toLowerCase() === entry.value.toLowerCase());
      return value ? { step: stepOf(`"${factor.name}" = "${entry.value}"`, value.change) } : undefined;
    });
  });
  const optionSteps = actions.map((action) => {
    const mapped = optionChange(mapping, action);
    return mapped ? { step: stepOf(`the change of option "${action}"`, mapped.change) } : undefined;
  });
  const optionProblems = optionSteps.map((step, action) => (step ? null : `option "${actions[action]}" has no what-if change`));

  const byKey = new Map<string, ExactPlan['futures'][number] & { values: number[] }>();
  for (const state of states) {
    const values = shared.map(({ index }) => state[index] ?? 0);
    const key = values.join(',');
    const known = byKey.get(key);
    if (known) {
      known.draws++;
      continue;
    }
    const text = shared.map(({ factor }, at) => `${factor.name} = ${factor.values[values[at] as number]?.value ?? '?'}`).join(', ');
    const probability = shared.reduce((product, { factor }, at) => product * (factor.probabilities[values[at] as number] ?? 0), 1);
    const unmapped = shared.findIndex((_, at) => valueSteps[at]?.[values[at] as number] === undefined);
    const problem = unmapped < 0 ? null : `"${shared[unmapped]?.factor.name}" = "${shared[unmapped]?.factor.values[values[unmapped] as number]?.value}" has no what-if change`;
    byKey.set(key, { text, probability, draws: 1, problem, evaluated: false, values });
  }
  // Most probable first (stable: first drawn first), so a cap keeps the futures that weigh most.
  const futures = [...byKey.values()].sort((a, b) => b.probability - a.probability);
  const computableOptions = optionSteps.filter(Boolean).length;
  const evaluations: ExactPlan['evaluations'] = [];
  let overCap = 0;
  futures.forEach((future, index) => {
    if (future.problem || computableOptions === 0) return;
    // Whole futures only, so every computable option is scored on the same futures.
    if (evaluations.length + computableOptions > maxEvaluations) {
      overCap += computableOptions;
      return;
    }
    future.evaluated = true;
    const factorSteps = future.values.map((value, at) => valueSteps[at]?.[value]?.step).filter((step): step is number => typeof step === 'number');
    optionSteps.forEach((option, action) => {
      if (!option) return;
      evaluations.push({ future: index, action, steps: option.step === null ? factorSteps : [...factorSteps, option.step], candidate: actions[action] as string });
    });
  });
  return { changes, futures: futures.map(({ text, probability, draws, problem, evaluated }) => ({ text, probability, draws, problem, evaluated })), optionProblems, evaluations, overCap };
}

/** The exact outcomes from the sandbox's measures (one per evaluation, in order), beside DeLLMa's decision. */
export function summariseExactOutcomes(
  plan: ExactPlan,
  measured: readonly ({ before: number; after: number } | ScenarioFailure)[],
  context: { mapping: WhatIfMapping; actions: readonly string[]; decision: string | null; maxEvaluations: number },
): Pick<DellmaExact, 'scenarios' | 'rows' | 'baseline' | 'exactBest' | 'tiedBest' | 'agrees' | 'evaluations' | 'capped'> {
  const { actions, mapping } = context;
  const outcome = new Map(plan.evaluations.map((evaluation, index) => [`${evaluation.future}:${evaluation.action}`, measured[index]]));
  const scenarios: DellmaExact['scenarios'] = plan.futures.flatMap((future, f) =>
    actions.map((action, a) => {
      const measure = outcome.get(`${f}:${a}`);
      const failure = scenarioFailed(measure) ? measure.failed : null;
      const value = measure && !scenarioFailed(measure) ? measure.after : null;
      const problem = future.problem ?? plan.optionProblems[a] ?? null;
      const status = value !== null ? ('computed' as const) : failure !== null ? ('failed' as const) : problem ? ('not computable' as const) : future.evaluated ? ('not run' as const) : ('over the cap' as const);
      const reason = { computed: null, failed: failure, 'not computable': problem, 'not run': 'the sandbox did not run', 'over the cap': `over the cap of ${context.maxEvaluations} sandbox evaluations` }[status];
      return { future: future.text, probability: future.probability, draws: future.draws, action, objective: value, status, reason };
    }),
  );
  const rows = actions.map((action) => {
    const computed = scenarios.filter((scenario) => scenario.action === action && scenario.objective !== null);
    const coverage = computed.reduce((sum, scenario) => sum + scenario.probability, 0);
    const expected = computed.length ? computed.reduce((sum, scenario) => sum + scenario.probability * (scenario.objective as number), 0) / coverage : null;
    return { action, expected, coverage, computed: computed.length };
  });
  const sign = mapping.direction === 'minimize' ? -1 : 1;
  const scored = rows.filter((row): row is typeof row & { expected: number } => row.expected !== null);
  const best = scored.reduce<number | null>((top, row) => (top === null || sign * row.expected > sign * top ? row.expected : top), null);
  const tiedBest = best === null ? [] : scored.filter((row) => Math.abs(row.expected - best) <= TIE * Math.max(1, Math.abs(best))).map((row) => row.action);
  const exactBest = tiedBest[0] ?? null;
  // Compared only when every option has an exact expected objective over the same futures: a
  // future that failed for one option but not another would weigh the options unequally.
  const failed = scenarios.some((scenario) => scenario.status === 'failed');
  const agrees = scored.length === actions.length && !failed && context.decision !== null ? tiedBest.includes(context.decision) : null;
  const capped = plan.overCap > 0 ? `Capped: ${plan.evaluations.length} sandbox evaluations made, ${plan.overCap} more left out (the cap is ${context.maxEvaluations} distinct future × option runs); the least probable futures are marked "over the cap" and the expected objectives cover less of the forecast.` : null;
  const baseline = measured.find((measure) => !scenarioFailed(measure));
  return { scenarios, rows, baseline: baseline && !scenarioFailed(baseline) ? baseline.before : null, exactBest, tiedBest, agrees, evaluations: plan.evaluations.length, capped };
}
