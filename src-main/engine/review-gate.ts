import type { RunEvent } from '../contract/run';

/**
 * Step-through: before every query and every re-plan the run asks the gate, and waits. The
 * automatic gate approves at once; the notebook's gate waits for the analyst. A review point
 * names the model step and, when the technique knows it, the plan node it concerns.
 */
export type ReviewRequest =
  /** `question`: the plan node's question with its parents' answers filled in (Plan*RAG), for the analyst to judge the query by. */
  | { subject: 'query'; step: number; node?: string; question?: string; query: string }
  | { subject: 'replan'; step: number; node?: string; steps: string[]; reason: string }
  /** DeLLMa: the forecast as `factor | value | likelihood` lines, before anything is sampled from it. */
  | { subject: 'forecast'; step: number; node?: string; steps: string[]; reason: string }
  /** DeLLMa: a ranking batch as `number | option | future` lines best first; reordered lines are the analyst's ranking. */
  | { subject: 'ranking'; step: number; node?: string; steps: string[]; reason: string }
  /** A plan graph (Plan*RAG) before it runs, as JSON; `problem` says why the analyst's last edit was refused. */
  | { subject: 'plan'; step: number; node?: string; plan: string; problem: string | null };

export type ReviewDecision =
  | { action: 'approve' }
  /** Run the analyst's version instead (a query text, plan steps for a re-plan, or a plan graph's JSON), with an optional note for the model. */
  | { action: 'edit'; query?: string; steps?: string[]; plan?: string; note?: string }
  | { action: 'skip'; note?: string }
  /** Approve, and pass a note to the model with the result. */
  | { action: 'note'; note: string }
  /** End the run here; the analyst continues by hand. */
  | { action: 'stop' };

export interface ReviewGate {
  /** True when decisions come from a person, so they are recorded as analyst events. */
  readonly interactive: boolean;
  review(request: ReviewRequest, signal?: AbortSignal): Promise<ReviewDecision>;
}

export const automaticGate: ReviewGate = { interactive: false, review: async () => ({ action: 'approve' }) };

/** Records what the analyst decided at a review point as an `analyst-review` event. */
export function recordReview(
  run: { emit(event: RunEvent): void },
  at: { step: number; node?: string | undefined },
  subject: 'query' | 'replan' | 'forecast' | 'ranking' | 'plan',
  original: string,
  decision: ReviewDecision,
): void {
  const edited = decision.action === 'edit' ? (decision.query ?? decision.steps?.join('\n') ?? decision.plan ?? null) : null;
  const note = analystNote(decision);
  run.emit({ type: 'analyst-review', step: at.step, ...(at.node ? { node: at.node } : {}), action: decision.action, subject, original, edited, note });
}

/** The note the analyst gave with a decision (approve with a note, an edit, a skip), or null. */
export function analystNote(decision: ReviewDecision): string | null {
  const note = decision.action === 'note' || decision.action === 'skip' || decision.action === 'edit' ? decision.note?.trim() : undefined;
  return note ? note : null;
}
