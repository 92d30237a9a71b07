/**
 * Text and JSON forms of a solve run: one line per question for people, one JSON object per
 * question for tools (`--out results.jsonl`), and the two accuracy lines.
 */
import type { SolveRun, QuestionVerdict } from './solve-questions';
import type { DbKind } from './scenario-databases';
import type { RuleSet } from './simulation';

/**
 * e.g. `B30  decision=3197  tied(2)=3197,3198  annotated=3198  disagree (annotation tied)`, or
 * `L5  error=<why>  annotated=krakow  disagree` when the question could not be decided.
 */
export function verdictLine(verdict: QuestionVerdict): string {
  const parts = [verdict.id, verdict.decision === null ? `error=${(verdict.error ?? 'unknown').replace(/\s+/g, ' ')}` : `decision=${verdict.decision}`];
  if (verdict.tied.length > 1) parts.push(`tied(${verdict.tied.length})=${verdict.tied.join(',')}`);
  parts.push(`annotated=${verdict.annotation}`);
  parts.push(verdict.agrees ? 'agree' : verdict.agreesWithTies ? 'disagree (annotation tied)' : 'disagree');
  return parts.join('  ');
}

export function accuracyLines(run: Pick<SolveRun, 'correct' | 'correctWithTies' | 'total'>): [string, string] {
  return [`accuracy: ${run.correct}/${run.total}`, `accuracy (ties counted): ${run.correctWithTies}/${run.total}`];
}

export interface VerdictRecord {
  id: string;
  /** null when the question could not be decided (see `error`). */
  decision: string | null;
  error: string | null;
  tied: string[];
  annotation: string;
  agrees: boolean;
  agreesWithTies: boolean;
  rules: RuleSet;
  db: DbKind;
  database: string;
  via: string | null;
  objective: string | null;
  candidateSet: string | null;
  /** Best minus runner-up in the objective's favourable direction; null when there is no runner-up (JSON has no Infinity). */
  margin: number | null;
  notes: string[];
  candidates: { candidate: string; before: number; after: number; delta: number; rank: number }[];
}

export function verdictRecord(verdict: QuestionVerdict, rules: RuleSet, db: DbKind): VerdictRecord {
  const { result } = verdict;
  return {
    id: verdict.id,
    decision: verdict.decision,
    error: verdict.error,
    tied: verdict.tied,
    annotation: verdict.annotation,
    agrees: verdict.agrees,
    agreesWithTies: verdict.agreesWithTies,
    rules,
    db,
    database: verdict.database,
    via: verdict.via,
    objective: result?.objective ?? null,
    candidateSet: result?.candidateSet ?? null,
    margin: result !== null && Number.isFinite(result.margin) ? result.margin : null,
    notes: result?.notes ?? [],
    candidates: (result?.candidates ?? []).map(({ candidate, before, after, delta, rank }) => ({ candidate, before, after, delta, rank })),
  };
}
