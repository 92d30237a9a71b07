/**
 * Failure categories of the PlanRAG paper (section 6): CAN wrong candidate set, MIS a critical
 * value never retrieved, DEEP data or equations misused, QUR query errors, OTH anything else.
 * A category is assigned only where the run log and the simulator prove it; the rest stay
 * `unlabelled` for the analyst, with the evidence gathered so far.
 */
import type { CandidateMatch } from './candidate-match';
import { appearsIn, isDistinctive, type CriticalValue } from './critical-values';
import type { RunFacts } from './run-facts';

export const failureCategories = ['CAN', 'MIS', 'DEEP', 'QUR', 'OTH'] as const;
export type FailureCategory = (typeof failureCategories)[number];

export interface FailureLabel {
  /** null for a right decision. */
  category: FailureCategory | 'unlabelled' | null;
  /** True when the rules below assigned it; false when it is open or was set by an analyst. */
  automatic: boolean;
  evidence: string[];
}

export interface ClassifyInput {
  correct: boolean;
  /** Among the candidates tied with the best: not a failure, the question is reported apart. */
  correctWithTies?: boolean;
  match: CandidateMatch;
  candidateCount: number;
  /** 1-based rank of the matched candidate under the simulator, when matched. */
  rank: number | null;
  facts: RunFacts;
  critical: CriticalValue[];
}

const clip = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text).replace(/\s+/g, ' ');

/** The failed query after which no query succeeded: the run never recovered from it. */
export function unrecoveredQueryError(facts: RunFacts): { queryId: string; query: string; error: string } | null {
  let failed: { queryId: string; query: string; error: string } | null = null;
  for (const query of facts.queries) {
    if (query.ok === true) failed = null;
    else if (query.ok === false) failed = { queryId: query.queryId, query: query.query, error: query.error ?? 'unknown error' };
  }
  return failed;
}

/** The critical values no observation ever showed (only values distinctive enough to be searched for). */
export function missedValues(facts: RunFacts, critical: readonly CriticalValue[]): { missed: CriticalValue[]; seen: CriticalValue[]; skipped: CriticalValue[] } {
  const text = facts.observations.join('\n');
  const missed: CriticalValue[] = [];
  const seen: CriticalValue[] = [];
  const skipped: CriticalValue[] = [];
  for (const value of critical) {
    if (!isDistinctive(value.value)) skipped.push(value);
    else if (appearsIn(value.value, text)) seen.push(value);
    else missed.push(value);
  }
  return { missed, seen, skipped };
}

export function classifyFailure(input: ClassifyInput): FailureLabel {
  if (input.correct) return { category: null, automatic: true, evidence: [] };
  const { facts, match } = input;
  if (input.correctWithTies === true) return { category: null, automatic: true, evidence: [`${match.matched ?? ''} is tied with the simulator's best: no failure, the question is reported apart`] };
  const evidence: string[] = [];
  const failedQueries = facts.queries.filter((query) => query.ok === false).length;
  if (failedQueries > 0) evidence.push(`${failedQueries} of ${facts.queries.length} queries failed`);

  if (match.rule === 'none' || match.rule === 'ambiguous' || match.rule === 'negated') {
    const why =
      match.rule === 'ambiguous'
        ? `names several candidates (${match.alternatives.join(', ')}), not one`
        : match.rule === 'negated'
          ? `negates or sets aside ${match.alternatives.join(', ')} instead of choosing a candidate`
          : `is not one of the ${input.candidateCount} candidates`;
    return { category: 'CAN', automatic: true, evidence: [`the decision "${clip(match.raw ?? '')}" ${why}`, ...evidence] };
  }
  const unrecovered = unrecoveredQueryError(facts);
  if (unrecovered) {
    return { category: 'QUR', automatic: true, evidence: [`query ${unrecovered.queryId} failed and no later query succeeded: ${clip(unrecovered.error)}`, `query: ${clip(unrecovered.query)}`, ...evidence] };
  }
  if (match.rule === 'no-decision') {
    return { category: 'OTH', automatic: true, evidence: [`the run ended ${facts.status ?? 'without an end'} without a decision${facts.message ? `: ${clip(facts.message)}` : ''}`, ...evidence] };
  }
  const { missed, seen, skipped } = missedValues(facts, input.critical);
  if (missed.length > 0) {
    return {
      category: 'MIS',
      automatic: true,
      evidence: [...missed.map((value) => `${value.label} = ${value.value} never appears in any observation`), ...seen.map((value) => `${value.label} = ${value.value} was seen`), ...evidence],
    };
  }
  evidence.push(`decided ${match.matched ?? ''}, ranked ${input.rank ?? '?'} of ${input.candidateCount} by the simulator`);
  if (seen.length > 0) evidence.push(`critical values seen: ${seen.map((value) => value.label).join('; ')}`);
  if (skipped.length > 0) evidence.push(`not searched for (too common to prove retrieval): ${skipped.map((value) => `${value.label} = ${value.value}`).join('; ')}`);
  return { category: 'unlabelled', automatic: false, evidence };
}
