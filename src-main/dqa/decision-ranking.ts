/**
 * Turns per-candidate objective values (in table order) into a DecisionResult: the winner
 * under the rule set's tie-break, ranks, the margin to the runner-up and the tie report.
 */
import { TIE_TOLERANCE, withinTolerance, type CandidateOutcome, type DecisionResult, type ObjectiveDirection } from './simulation';

export interface CandidateValue {
  candidate: string;
  after: number;
}

/** What a scenario simulator hands to the ranking: objective values in table order and how they were obtained. */
export interface Evaluation {
  values: CandidateValue[];
  before: number;
  candidateSet: string;
  notes: string[];
  /** Optional per-candidate explanation (e.g. the steering direction chosen); the winner's is copied into the notes. */
  details?: ReadonlyMap<string, string>;
}

/**
 * - `first-strictly-best` (compat): exact comparisons in table order; a later candidate wins
 *   only if strictly better, so exact ties and float noise resolve the way the annotation did.
 * - `first-within-tolerance` (stated): the first candidate in table order whose value is
 *   within TIE_TOLERANCE of the optimum, so float noise never decides a clean simulation.
 */
export type TieBreak = 'first-strictly-best' | 'first-within-tolerance';

export interface RankingInput {
  /** In table order; the order is part of the tie-break. */
  values: CandidateValue[];
  before: number;
  direction: ObjectiveDirection;
  tieBreak: TieBreak;
  objective: string;
  candidateSet: string;
  notes?: string[];
  details?: ReadonlyMap<string, string>;
  /** When set, a winner that is not strictly better than this value gets a note (compat Building compares with the stored price). */
  mustBeat?: number;
}

/**
 * Without a tolerance, the candidates strictly better than a value are a prefix of the values
 * sorted best first: a binary search counts them (the quadratic count took most of a Building
 * question's ranking time).
 */
function countStrictlyBetter(values: readonly CandidateValue[], better: (a: number, b: number) => boolean): (value: number) => number {
  // NaN is never better nor worse than anything, so it is left out and counts nothing.
  const sorted = Float64Array.from(values.filter((v) => !Number.isNaN(v.after)), (v) => v.after).sort();
  if (better(0, 1)) {
    // Minimize: strictly better = strictly smaller.
    return (value) => {
      if (Number.isNaN(value)) return 0;
      let low = 0;
      let high = sorted.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if ((sorted[middle] as number) < value) low = middle + 1;
        else high = middle;
      }
      return low;
    };
  }
  return (value) => {
    if (Number.isNaN(value)) return 0;
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((sorted[middle] as number) <= value) low = middle + 1;
      else high = middle;
    }
    return sorted.length - low;
  };
}

export function decide(input: RankingInput): DecisionResult {
  const { values, direction } = input;
  if (values.length === 0) throw new Error(`no candidates to rank for ${input.objective}`);
  const better = (a: number, b: number): boolean => (direction === 'maximize' ? a > b : a < b);
  const rankTolerance = input.tieBreak === 'first-strictly-best' ? 0 : TIE_TOLERANCE;

  let bestIndex = 0;
  for (let i = 1; i < values.length; i += 1) {
    if (better((values[i] as CandidateValue).after, (values[bestIndex] as CandidateValue).after)) bestIndex = i;
  }
  if (input.tieBreak === 'first-within-tolerance') {
    // A NaN first value is never beaten by the scan above; the stated rules look past it (compat keeps the
    // annotation procedure's table-order scan, NaN included).
    let optimum = (values[bestIndex] as CandidateValue).after;
    if (Number.isNaN(optimum)) {
      const numbers = values.filter((v) => !Number.isNaN(v.after));
      if (numbers.length === 0) throw new Error(`every candidate's ${input.objective} is not a number: the data gives no value to rank`);
      optimum = numbers.reduce((found, v) => (better(v.after, found) ? v.after : found), (numbers[0] as CandidateValue).after);
    }
    bestIndex = values.findIndex((v) => withinTolerance(v.after, optimum));
  }
  const best = values[bestIndex] as CandidateValue;

  const strictlyBetterThan = rankTolerance === 0 ? countStrictlyBetter(values, better) : null;
  const ranked = values.map((value, index) => {
    let strictlyBetter = 0;
    if (strictlyBetterThan !== null) {
      strictlyBetter = strictlyBetterThan(value.after);
    } else {
      for (const other of values) {
        if (better(other.after, value.after) && !withinTolerance(other.after, value.after, rankTolerance)) strictlyBetter += 1;
      }
    }
    const outcome: CandidateOutcome = {
      candidate: value.candidate,
      before: input.before,
      after: value.after,
      delta: value.after - input.before,
      rank: strictlyBetter + 1,
    };
    return { outcome, index };
  });
  ranked.sort((a, b) => {
    const aBest = a.index === bestIndex ? 0 : 1;
    const bBest = b.index === bestIndex ? 0 : 1;
    return aBest - bBest || a.outcome.rank - b.outcome.rank || a.index - b.index;
  });

  let runnerUp: CandidateValue | null = null;
  values.forEach((value, index) => {
    if (index !== bestIndex && (runnerUp === null || better(value.after, runnerUp.after))) runnerUp = value;
  });
  const runnerUpValue = (runnerUp as CandidateValue | null)?.after;
  const margin =
    runnerUpValue === undefined ? Number.POSITIVE_INFINITY : direction === 'maximize' ? best.after - runnerUpValue : runnerUpValue - best.after;

  const tied = values.filter((v) => withinTolerance(v.after, best.after)).map((v) => v.candidate);
  const notes = [...(input.notes ?? [])];
  const bestDetail = input.details?.get(best.candidate);
  if (bestDetail !== undefined) notes.push(`${best.candidate}: ${bestDetail}`);
  if (tied.length > 1) {
    const rule =
      input.tieBreak === 'first-strictly-best' ? 'the first strictly best in table order (annotation tie-break)' : 'the first in table order within tolerance';
    notes.push(`${tied.length} candidates are within relative ${TIE_TOLERANCE} of the best; ${best.candidate} is chosen as ${rule}`);
  }
  if (input.mustBeat !== undefined && !better(best.after, input.mustBeat)) {
    notes.push(`no candidate is strictly better than the current value ${input.mustBeat}; the annotation procedure would have produced no answer`);
  }

  return {
    candidates: ranked.map((r) => r.outcome),
    best: best.candidate,
    margin,
    tied,
    objective: input.objective,
    candidateSet: input.candidateSet,
    notes,
  };
}
