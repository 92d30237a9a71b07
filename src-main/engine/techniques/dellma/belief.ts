import { WorkbenchError } from '../../../contract/errors';

/**
 * Beliefs: factors with three plausible values each, and the model's verbal likelihoods
 * mapped to numbers and normalised per factor [paper §3.2, Alg. 1]. Factors are independent,
 * so the joint probability of a state is the product of its values' marginals.
 */

/** The fixed 6-level scale, most to least likely, and the weight each level maps to [paper]. */
export const verbalScale = ['very likely', 'likely', 'somewhat likely', 'somewhat unlikely', 'unlikely', 'very unlikely'] as const;
export type VerbalLikelihood = (typeof verbalScale)[number];
export const verbalWeight: Readonly<Record<VerbalLikelihood, number>> = {
  'very likely': 6,
  likely: 5,
  'somewhat likely': 4,
  'somewhat unlikely': 3,
  unlikely: 2,
  'very unlikely': 1,
};

/** Values per factor, as in the paper's experiments ("top-3"). */
export const valuesPerFactor = 3;

/** A factor is shared by every action, or concerns one action only (e.g. "apple price change"). */
export type FactorScope = { kind: 'shared' } | { kind: 'action'; action: string };

/** An unknown the decision hinges on, before its values are known. */
export interface FactorSpec {
  name: string;
  scope: FactorScope;
  /** [ext] Values the analyst fixed by mapping each to a what-if change: the model gives only their likelihoods. */
  fixedValues?: readonly string[];
}

/** A factor with its plausible values and their verbal likelihoods. */
export interface ForecastFactor extends FactorSpec {
  values: { value: string; likelihood: VerbalLikelihood }[];
}

/** A factor with normalised probabilities, in the order of its values. */
export interface BeliefFactor extends ForecastFactor {
  probabilities: number[];
}

/**
 * Reads a verbal likelihood. Documented fuzzy rule: case, surrounding spaces and `_`/`-`
 * between words are ignored ("Somewhat_Likely" → "somewhat likely"); any other label is
 * rejected, never guessed.
 */
export function parseLikelihood(label: string): VerbalLikelihood | null {
  const normalised = label.trim().toLowerCase().replace(/[_-]+/g, ' ').replace(/\s+/g, ' ');
  return (verbalScale as readonly string[]).includes(normalised) ? (normalised as VerbalLikelihood) : null;
}

/** Maps a factor's verbal likelihoods to weights 6..1 and normalises them to sum to 1. */
export function normaliseFactor(factor: ForecastFactor): BeliefFactor {
  if (factor.values.length === 0) throw new WorkbenchError('invalid-request', `Factor "${factor.name}" has no values.`);
  const weights = factor.values.map((entry) => verbalWeight[entry.likelihood]);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return { ...factor, values: factor.values.map((entry) => ({ ...entry })), probabilities: weights.map((weight) => weight / total) };
}

/** A state: for each factor (by position), the index of its value. */
export type State = number[];

/** Probability of a state under independent factors: the product of the marginals. */
export function stateProbability(factors: readonly BeliefFactor[], state: State): number {
  return factors.reduce((product, factor, index) => product * (factor.probabilities[state[index] ?? -1] ?? 0), 1);
}

/** The factors a problem over `actions` uses: every shared factor and those of its actions. */
export function factorsFor<F extends FactorSpec>(factors: readonly F[], actions: readonly string[]): F[] {
  return factors.filter((factor) => factor.scope.kind === 'shared' || actions.includes(factor.scope.action));
}
