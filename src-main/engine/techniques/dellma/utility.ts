import type { BeliefFactor, State } from './belief';
import { seededRandom } from './random';
import type { Item } from './sampling';

/**
 * From Bradley–Terry scores to a decision [paper §3.4]. Utilities are a softmax of θ/T over
 * ALL items together. The reference code's per-action softmax makes every action's mean
 * utility 1/|S_a| (the decision then falls to round-off or the first-listed action), so it
 * is deliberately not offered.
 */
export function utilities(theta: readonly number[], temperature: number): number[] {
  if (theta.length === 0) return [];
  const scaled = theta.map((value) => value / temperature);
  const max = Math.max(...scaled);
  const exps = scaled.map((value) => Math.exp(value - max));
  const total = exps.reduce((sum, value) => sum + value, 0);
  return exps.map((value) => value / total);
}

/**
 * Monte-Carlo expected utility per action: the mean utility of that action's items (their
 * states were drawn from the forecast, so no extra weighting). Null for an action with no
 * item (possible only in the Naive variant).
 */
export function expectedUtilities(items: readonly Item[], utility: readonly number[], actionCount: number): (number | null)[] {
  const sums = new Array<number>(actionCount).fill(0);
  const counts = new Array<number>(actionCount).fill(0);
  items.forEach((item, index) => {
    sums[item.action] = (sums[item.action] as number) + (utility[index] as number);
    counts[item.action] = (counts[item.action] as number) + 1;
  });
  return sums.map((sum, action) => ((counts[action] as number) > 0 ? sum / (counts[action] as number) : null));
}

export interface Decision {
  /** Index of the chosen action; ties go to the first-listed action (stated, never hidden). */
  action: number;
  runnerUp: number | null;
  /** EU(decision) − EU(runner-up); null with a single estimable action. */
  margin: number | null;
  /** True when another action has exactly the same expected utility. */
  tied: boolean;
}

export function decide(expected: readonly (number | null)[]): Decision | null {
  const ranked = expected
    .map((value, action) => ({ value, action }))
    .filter((entry): entry is { value: number; action: number } => entry.value !== null)
    .sort((left, right) => right.value - left.value || left.action - right.action);
  const [best, second] = ranked;
  if (!best) return null;
  return { action: best.action, runnerUp: second?.action ?? null, margin: second ? best.value - second.value : null, tied: second !== undefined && second.value === best.value };
}

export interface Interval {
  low: number;
  high: number;
}

export interface BootstrapResult {
  /** Per action, the 2.5 % and 97.5 % quantiles of the resampled expected utility. */
  intervals: (Interval | null)[];
  /** Share of resamples in which the decision stays the same. */
  stability: number;
  resamples: number;
  seed: number;
}

/**
 * Bootstrap interval of the expected utilities [ext]: resamples the sampled states with
 * replacement (a state brings all of its items, so the pairing survives) and recomputes each
 * action's mean utility with the fitted utilities held fixed (the fit is not redone, so the
 * interval reflects the Monte-Carlo error over states, not the ranking noise).
 */
export function bootstrap(items: readonly Item[], utility: readonly number[], actionCount: number, stateCount: number, options: { resamples: number; seed: number }): BootstrapResult {
  const random = seededRandom(options.seed);
  const byState: number[][] = Array.from({ length: stateCount }, () => []);
  items.forEach((item, index) => byState[item.stateId]?.push(index));
  const original = decide(expectedUtilities(items, utility, actionCount));
  const draws: number[][] = Array.from({ length: actionCount }, () => []);
  let same = 0;
  for (let resample = 0; resample < options.resamples; resample++) {
    const sums = new Array<number>(actionCount).fill(0);
    const counts = new Array<number>(actionCount).fill(0);
    for (let k = 0; k < stateCount; k++) {
      for (const index of byState[random.int(stateCount)] ?? []) {
        const action = (items[index] as Item).action;
        sums[action] = (sums[action] as number) + (utility[index] as number);
        counts[action] = (counts[action] as number) + 1;
      }
    }
    const means = sums.map((sum, action) => ((counts[action] as number) > 0 ? sum / (counts[action] as number) : null));
    means.forEach((mean, action) => {
      if (mean !== null) draws[action]?.push(mean);
    });
    if (original && decide(means)?.action === original.action) same++;
  }
  return {
    intervals: draws.map((values) => (values.length === 0 ? null : { low: quantile(values, 0.025), high: quantile(values, 0.975) })),
    stability: options.resamples === 0 ? 1 : same / options.resamples,
    resamples: options.resamples,
    seed: options.seed,
  };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return (sorted[lower] as number) + ((sorted[upper] as number) - (sorted[lower] as number)) * (position - lower);
}

/** One way the forecast could move that changes the decision. */
export interface Flip {
  factor: number;
  value: number;
  /** The value's probability in the forecast, and where it must move for the flip. */
  from: number;
  to: number;
  /** to − from, in probability points (negative: the value must become less likely). */
  shift: number;
  /** The action that wins once the probability has moved. */
  newDecision: number;
}

/**
 * Sensitivity [ext, after the author's later dellma-travel app]: for each factor value, the
 * smallest change of its probability (the factor's other values rescaled proportionally)
 * that changes the decision. No new model call: the elicited utilities are kept and the
 * sampled states are re-weighted by importance weights p'(state)/p(state), self-normalised
 * per action. Only values that occur in the sample can move anything; a value the sample
 * never drew reports nothing, and a flip near 0 or 1 rests on few states.
 */
export function sensitivity(factors: readonly BeliefFactor[], states: readonly State[], items: readonly Item[], utility: readonly number[], actionCount: number, steps = 200): Flip[] {
  const baseline = decide(expectedUtilities(items, utility, actionCount));
  if (!baseline) return [];
  const flips: Flip[] = [];
  factors.forEach((factor, factorIndex) => {
    factor.values.forEach((_value, valueIndex) => {
      const from = factor.probabilities[valueIndex] as number;
      const winnerAt = (to: number): number | null => {
        const moved = moveProbability(factor.probabilities, valueIndex, to);
        const weight = (stateId: number): number => {
          const taken = (states[stateId] as State)[factorIndex] as number;
          return (moved[taken] as number) / (factor.probabilities[taken] as number);
        };
        const sums = new Array<number>(actionCount).fill(0);
        const weights = new Array<number>(actionCount).fill(0);
        items.forEach((item, index) => {
          const w = weight(item.stateId);
          sums[item.action] = (sums[item.action] as number) + w * (utility[index] as number);
          weights[item.action] = (weights[item.action] as number) + w;
        });
        return decide(sums.map((sum, action) => ((weights[action] as number) > 0 ? sum / (weights[action] as number) : null)))?.action ?? null;
      };
      // Scan outwards from the forecast in both directions; the nearest flip wins.
      let best: Flip | null = null;
      for (const target of [0, 1]) {
        for (let step = 1; step <= steps; step++) {
          const to = from + ((target - from) * step) / steps;
          const winner = winnerAt(to);
          if (winner !== null && winner !== baseline.action) {
            const flip = { factor: factorIndex, value: valueIndex, from, to, shift: to - from, newDecision: winner };
            if (!best || Math.abs(flip.shift) < Math.abs(best.shift)) best = flip;
            break;
          }
        }
      }
      if (best) flips.push(best);
    });
  });
  return flips.sort((left, right) => Math.abs(left.shift) - Math.abs(right.shift));
}

/** Sets one value's probability to `to` and rescales the others to keep the sum at 1. */
export function moveProbability(probabilities: readonly number[], index: number, to: number): number[] {
  const rest = 1 - (probabilities[index] as number);
  return probabilities.map((p, i) => {
    if (i === index) return to;
    // With the others at 0 there is nothing to rescale: share what is left equally.
    return rest > 0 ? (p * (1 - to)) / rest : (1 - to) / (probabilities.length - 1);
  });
}
