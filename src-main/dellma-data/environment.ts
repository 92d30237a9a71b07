import type { FactorSpec } from '../engine/techniques/dellma/belief';
import type { CsvProblem } from './csv-lines';

/**
 * A DeLLMa environment: the paper's benchmark of 120 decision problems over the subsets of 7
 * actions, with one context to forecast from (the forecast is made once over every action's
 * factors and reused per problem, as in the reference code) and a true outcome per action.
 */
export interface DellmaEnvironment {
  name: 'agriculture' | 'stocks';
  /** Every action, in the order problems list them. */
  actions: string[];
  /** How an action is offered, e.g. "apple: 10 acres". */
  actionLabel: Record<string, string>;
  /** Hand-specified factors for every action [code: factor templates per domain]. */
  factors: FactorSpec[];
  /** The goal in the user's words. */
  goal: string;
  /** Context for a problem over some actions (only their sections). */
  contextFor(actions: readonly string[]): string;
  /** Documents attached to the run: recorded, and shown in the forecast context on request. */
  documents: { name: string; text: string }[];
  problems: BenchmarkProblem[];
  /** The true outcome of each action (2022 revenue per acre in $, or December 2023 return). */
  outcome: Record<string, number>;
  outcomeUnit: string;
  /** Paper / reference-code defaults for this environment. */
  defaults: { overlap: number; softmaxTemperature: number; alpha: Record<'pairs' | 'top1' | 'naive', number> };
  /** Rows of the source files that did not parse, with file and line. */
  malformed: CsvProblem[];
}

export interface BenchmarkProblem {
  /** 1-based, in the order of `allProblems`. */
  id: number;
  actions: string[];
  /** The action with the highest true outcome. */
  best: string;
}

/** Every subset of size ≥ 2, by size then in lexicographic order of positions: 120 for 7 actions. */
export function allSubsets(actions: readonly string[]): string[][] {
  const result: string[][] = [];
  const choose = (start: number, size: number, chosen: string[]): void => {
    if (chosen.length === size) {
      result.push([...chosen]);
      return;
    }
    for (let index = start; index < actions.length; index++) choose(index + 1, size, [...chosen, actions[index] as string]);
  };
  for (let size = 2; size <= actions.length; size++) choose(0, size, []);
  return result;
}

export function problemsFrom(actions: readonly string[], outcome: Record<string, number>): BenchmarkProblem[] {
  return allSubsets(actions).map((subset, index) => ({
    id: index + 1,
    actions: subset,
    best: subset.reduce((best, action) => ((outcome[action] ?? -Infinity) > (outcome[best] ?? -Infinity) ? action : best)),
  }));
}

/**
 * Normalised utility of a choice [paper App. B]: outcome(chosen) ÷ outcome(best). Null when
 * the best outcome is not positive (a ratio of losses means nothing) or nothing was chosen
 * (then it counts as 0 in the mean, like a wrong answer).
 */
export function normalisedUtility(outcome: Record<string, number>, chosen: string | null, best: string): number | null {
  const bestValue = outcome[best];
  if (bestValue === undefined || !(bestValue > 0)) return null;
  if (chosen === null) return 0;
  return (outcome[chosen] ?? 0) / bestValue;
}
