/**
 * Judges one finished run with the exact simulator (compat rules, which reproduce the
 * annotations): the decision is matched to a candidate, compared with the best and with the
 * tied-best set, flagged when the question has no meaningful unique answer, and labelled
 * with a failure category when wrong.
 */
import type { PreparedScenario, ScenarioQuestion } from '../dqa/prepared-scenario';
import { solvePrepared } from '../dqa/prepared-scenario';
import type { DecisionResult } from '../dqa/simulation';
import { kendallTau } from '../engine/techniques/dellma/kendall';
import { matchDecision } from './candidate-match';
import { withinTolerance } from '../dqa/simulation';
import { criticalValues } from './critical-values';
import { classifyFailure } from './failure-category';
import type { QuestionFlag, QuestionResult } from './question-result';
import type { RunFacts } from './run-facts';
import { decisionKey } from '../contract/produced-by';

/** Below this relative margin a decision is taken at floating-point level, not by the data. */
export const FLOAT_LEVEL_MARGIN = 1e-6;

export function questionFlags(result: DecisionResult, annotation: string): QuestionFlag[] {
  const flags: QuestionFlag[] = [];
  if (result.tied.length > 1) flags.push('tie');
  const best = result.candidates[0]?.after ?? 0;
  if (result.tied.length === 1 && Number.isFinite(result.margin) && Math.abs(result.margin) <= FLOAT_LEVEL_MARGIN * Math.max(1, Math.abs(best))) flags.push('float-level');
  if (result.notes.some((note) => note.includes('no candidate is strictly better'))) flags.push('no-improvement');
  if (result.best !== annotation) flags.push('annotation-differs');
  return flags;
}

export interface JudgeInput {
  base: Pick<QuestionResult, 'id' | 'scenario' | 'technique' | 'db' | 'dump' | 'questionsFile' | 'variant'>;
  annotation: string;
  scenarioQuestion: ScenarioQuestion;
  prepared: PreparedScenario;
  outcome: { status: NonNullable<QuestionResult['status']>; decision: string | null; message: string | null; wallMs: number };
  facts: RunFacts;
  now?: () => string;
}

export function judgeRun(input: JudgeInput): QuestionResult {
  const simulation = solvePrepared(input.prepared, input.scenarioQuestion, 'compat');
  const names = simulation.candidates.map((candidate) => candidate.candidate);
  const match = matchDecision(input.outcome.decision, names);
  const rank = match.matched === null ? null : (simulation.candidates.find((candidate) => candidate.candidate === match.matched)?.rank ?? null);
  const correct = match.matched !== null && match.matched === simulation.best;
  const correctWithTies = match.matched !== null && simulation.tied.includes(match.matched);
  const critical = criticalValues(input.prepared, 'goods' in input.scenarioQuestion ? { goods: input.scenarioQuestion.goods } : {}, simulation.best);
  const failure = classifyFailure({ correct, correctWithTies, match, candidateCount: names.length, rank, facts: input.facts, critical });
  return {
    format: 'decision-workbench/benchmark-question',
    version: 1,
    ...input.base,
    status: input.outcome.status,
    message: input.outcome.message,
    error: null,
    match,
    simulator: {
      best: simulation.best,
      tied: simulation.tied,
      annotation: input.annotation,
      margin: Number.isFinite(simulation.margin) ? simulation.margin : null,
      candidateCount: names.length,
      rank,
      notes: simulation.notes,
    },
    correct,
    correctWithTies,
    flags: questionFlags(simulation, input.annotation),
    steps: input.facts.steps,
    promptTokens: input.facts.promptTokens,
    completionTokens: input.facts.completionTokens,
    totalTokens: input.facts.totalTokens,
    largestPromptTokens: input.facts.largestPromptTokens,
    criticalPathMs: input.facts.criticalPathMs,
    ...(input.facts.utilityEstimates ? { utilityTau: utilityTau(input.facts.utilityEstimates, simulation) } : {}),
    ...(input.facts.playbook !== null ? { playbook: input.facts.playbook } : {}),
    wallMs: input.outcome.wallMs,
    failure,
    decidedAt: (input.now ?? (() => new Date().toISOString()))(),
    ...producedByFields(input.facts.producedBy, input.outcome.decision, input.base.variant),
  };
}

/** Who decided and what produced it, as result.json keeps them; the benchmark's own variant text names the variant. */
function producedByFields(producedBy: RunFacts['producedBy'], decision: string | null, variant: string | undefined): Pick<QuestionResult, 'decidedBy' | 'toolAssisted' | 'producedBy'> {
  if (producedBy === null) return {};
  const origin = decision === null ? null : producedBy.decidedBy;
  return {
    ...(origin ? { decidedBy: decisionKey(origin), toolAssisted: origin.toolAssisted !== null } : {}),
    producedBy: { ...producedBy, variant: variant ?? producedBy.variant },
  };
}

/** A question that could not be run at all (its dump would not import, the database would not open): wrong, category OTH. */
export function failedQuestion(base: JudgeInput['base'], annotation: string, error: string, wallMs: number): QuestionResult {
  return {
    format: 'decision-workbench/benchmark-question',
    version: 1,
    ...base,
    status: null,
    message: null,
    error,
    match: { raw: null, matched: null, rule: 'no-decision', alternatives: [] },
    simulator: null,
    correct: false,
    correctWithTies: false,
    flags: [],
    steps: 0,
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    largestPromptTokens: 0,
    criticalPathMs: null,
    wallMs,
    failure: { category: 'OTH', automatic: true, evidence: [`the run could not start: ${error}`] },
    decidedAt: new Date().toISOString(),
  };
}

/**
 * [ext] How well DeLLMa's expected utilities order its options against the simulator: τ-b
 * between the estimates and each option's place in the simulator's order (best first; options
 * whose objectives tie share a place). Options the simulator does not know are left out.
 */
export function utilityTau(estimates: readonly { action: string; expected: number | null }[], simulation: DecisionResult): number | null {
  const placeOf = (name: string): number | null => {
    const index = simulation.candidates.findIndex((candidate) => candidate.candidate === name);
    if (index < 0) return null;
    const after = simulation.candidates[index]?.after ?? 0;
    return simulation.candidates.findIndex((candidate) => withinTolerance(candidate.after, after));
  };
  const pairs = estimates.flatMap((row) => {
    const place = placeOf(row.action);
    return row.expected === null || place === null ? [] : [[row.expected, -place] as const];
  });
  return kendallTau(
    pairs.map(([expected]) => expected),
    pairs.map(([, place]) => place),
  );
}
