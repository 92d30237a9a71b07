import { factorsFor } from '../engine/techniques/dellma/belief';
import { estimateCost, type CostEstimate } from '../engine/techniques/dellma/cost';
import type { ModelCaller } from '../engine/techniques/dellma/model-calls';
import { forecast, isDellmaVariant, solveWithBaseline, solveWithDellma, type DellmaParameters, type ForecastCache, type ForecastOutcome, type ProblemResult } from '../engine/techniques/dellma/pipeline';
import type { ProblemFrame } from '../engine/techniques/dellma/prompts';
import { WorkbenchError } from '../contract/errors';
import { kendallTau } from '../engine/techniques/dellma/kendall';
import { normalisedUtility, type BenchmarkProblem, type DellmaEnvironment } from './environment';

/**
 * Runs a DeLLMa variant or baseline over an environment's problems and scores each choice
 * against the true outcome. The forecast is made once over every action's factors (the
 * reference code's cached forecast) and each problem uses the factors of its own actions.
 */
export interface ScoredResult extends ProblemResult {
  best: string;
  correct: boolean;
  normalisedUtility: number | null;
  /** [ext] Kendall τ-b between the expected utilities and the true outcomes of the problem's actions (DeLLMa variants). */
  tau: number | null;
  error: string | null;
}

export interface BenchmarkRun {
  forecast: ForecastOutcome | null;
  results: ScoredResult[];
  correct: number;
  total: number;
  meanNormalisedUtility: number | null;
  /** [ext] Mean τ over the problems that have one. */
  meanTau: number | null;
  tauProblems: number;
}

export function frameFor(environment: DellmaEnvironment, problem: BenchmarkProblem): ProblemFrame {
  return {
    goal: environment.goal,
    actions: problem.actions.map((name) => ({ name, label: environment.actionLabel[name] ?? name })),
    context: environment.contextFor(problem.actions),
  };
}

/** Calls and tokens before anything runs. */
export function benchmarkCost(environment: DellmaEnvironment, problems: readonly BenchmarkProblem[], params: DellmaParameters, forecastCached: boolean): CostEstimate {
  const total: CostEstimate = { forecastCalls: 0, rankingCalls: 0, otherCalls: 0, calls: 0, promptTokens: 0, completionTokens: 0 };
  problems.forEach((problem, index) => {
    const factors = factorsFor(environment.factors, problem.actions);
    const cost = estimateCost({
      variant: params.variant,
      actions: problem.actions.length,
      perAction: params.perAction,
      naiveSamples: params.naiveSamples,
      batch: params.batch,
      overlap: params.overlap,
      contextChars: environment.contextFor(problem.actions).length + environment.goal.length,
      factorNameChars: factors.reduce((sum, factor) => sum + factor.name.length, 0),
      factorCount: factors.length,
      // One forecast over every action serves all problems.
      forecastCached: forecastCached || index > 0,
      selfConsistency: params.selfConsistency,
    });
    for (const key of Object.keys(total) as (keyof CostEstimate)[]) total[key] += cost[key];
  });
  if (total.forecastCalls > 0) {
    // The shared forecast reads the whole context, not one problem's.
    total.promptTokens += Math.ceil((environment.contextFor(environment.actions).length - environment.contextFor(problems[0]?.actions ?? []).length) / 4);
  }
  return total;
}

async function pool<T>(tasks: readonly (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tasks.length)) }, worker));
  return results;
}

export async function runBenchmark(input: {
  environment: DellmaEnvironment;
  problems: readonly BenchmarkProblem[];
  caller: ModelCaller;
  modelDescription: string;
  params: DellmaParameters;
  concurrency: number;
  forecastCache: ForecastCache;
  /** An analyst's forecast to use instead of the forecast call [ext]. */
  forecastOverride?: ForecastOutcome;
  onResult?: (result: ScoredResult) => void;
}): Promise<BenchmarkRun> {
  const { environment, params, caller } = input;
  let beliefs: ForecastOutcome | null = null;
  if (isDellmaVariant(params.variant)) {
    beliefs = input.forecastOverride ?? await forecast(caller, input.modelDescription, { context: environment.contextFor(environment.actions), goal: environment.goal, factors: environment.factors }, input.forecastCache, params.maxRepairs);
  }
  const results = await pool(
    input.problems.map((problem) => async (): Promise<ScoredResult> => {
      const frame = frameFor(environment, problem);
      let result: ProblemResult;
      let error: string | null = null;
      try {
        result = beliefs
          ? await solveWithDellma(caller, problem.id, frame, factorsFor(beliefs.factors, problem.actions), params)
          : await solveWithBaseline(caller, problem.id, frame, params);
      } catch (failure) {
        const workbenchError = WorkbenchError.from(failure);
        // A cancelled run stops; any other failure is this problem's, recorded and scored wrong.
        if (workbenchError.code === 'cancelled') throw workbenchError;
        error = `${workbenchError.code}: ${workbenchError.message}`;
        result = { problem: problem.id, variant: params.variant, actions: problem.actions, chosen: null, note: error };
      }
      const scored: ScoredResult = {
        ...result,
        best: problem.best,
        correct: result.chosen === problem.best,
        normalisedUtility: normalisedUtility(environment.outcome, result.chosen, problem.best),
        tau: result.dellma ? utilityAgreement(result.dellma.expected, result.actions, environment.outcome) : null,
        error,
      };
      input.onResult?.(scored);
      return scored;
    }),
    input.concurrency,
  );
  const taus = results.map((result) => result.tau).filter((value): value is number => value !== null);
  const utilitiesKnown = results.map((result) => result.normalisedUtility).filter((value): value is number => value !== null);
  return {
    forecast: beliefs,
    results,
    correct: results.filter((result) => result.correct).length,
    total: results.length,
    meanNormalisedUtility: utilitiesKnown.length > 0 ? utilitiesKnown.reduce((sum, value) => sum + value, 0) / utilitiesKnown.length : null,
    meanTau: taus.length > 0 ? taus.reduce((sum, value) => sum + value, 0) / taus.length : null,
    tauProblems: taus.length,
  };
}

/** [ext] τ-b between the expected utilities and the true outcomes, over the actions that have both. */
export function utilityAgreement(expected: readonly (number | null)[], actions: readonly string[], outcome: Readonly<Record<string, number>>): number | null {
  const pairs = actions.flatMap((action, index) => {
    const estimate = expected[index];
    const truth = outcome[action];
    return estimate === null || estimate === undefined || truth === undefined ? [] : [[estimate, truth] as const];
  });
  return kendallTau(
    pairs.map(([estimate]) => estimate),
    pairs.map(([, truth]) => truth),
  );
}
