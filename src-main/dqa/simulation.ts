/**
 * Types shared by the DQA scenario simulators (Locating, Building) and the ranking that
 * turns per-candidate objective values into a decision.
 *
 * Two rule sets exist because the benchmark's annotations were produced by a simulator that
 * departs from the business rules printed in the questions (see RULES.md):
 * - `compat` reproduces what the annotation procedure did, float for float, so that its
 *   best decision matches the annotated answer (including the annotation's tie-break);
 * - `stated` is a clean simulation of the rules as the question text states them.
 */

export type RuleSet = 'compat' | 'stated';

export interface SolveOptions {
  rules: RuleSet;
}

export type ObjectiveDirection = 'maximize' | 'minimize';

export interface CandidateOutcome {
  candidate: string;
  /**
   * Objective without the decision: the same rule set's simulation with no merchant / no
   * expansion, so that `delta` is the decision's own effect. One exception: Building under
   * `compat` uses the stored current_price, because that is what the annotation compared
   * against (a winner had to be strictly below it).
   */
  before: number;
  /** Objective after applying this candidate decision. */
  after: number;
  /** after - before */
  delta: number;
  /** 1 + number of candidates strictly better (beyond the rule set's tie tolerance). */
  rank: number;
}

export interface DecisionResult {
  /** Every candidate considered, best first; equal objectives keep table order. */
  candidates: CandidateOutcome[];
  best: string;
  /** How much better `best` is than the best other candidate (>= 0 unless tied; Infinity when alone). */
  margin: number;
  /** Candidates within relative tolerance TIE_TOLERANCE of the best, including it, in table order. */
  tied: string[];
  /** Human description, e.g. "SWE profit at baltic_sea (maximize)". */
  objective: string;
  /** Which candidates were considered and any proven pruning. */
  candidateSet: string;
  /** Facts a reader should know about this answer (e.g. ties, no improving candidate). */
  notes: string[];
}

/** Relative tolerance under which two objective values are reported as tied. */
export const TIE_TOLERANCE = 1e-9;

export function withinTolerance(a: number, b: number, tolerance: number = TIE_TOLERANCE): boolean {
  if (a === b) return true;
  return Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
}
