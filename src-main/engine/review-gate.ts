/**
 * Step-through: before every query and every re-plan the run asks the gate, and waits. The
 * automatic gate approves at once; the notebook's gate waits for the analyst.
 */
export type ReviewRequest =
  | { subject: 'query'; step: number; query: string }
  | { subject: 'replan'; step: number; steps: string[]; reason: string };

export type ReviewDecision =
  | { action: 'approve' }
  /** Run the analyst's version instead: a query text, or plan steps for a re-plan. */
  | { action: 'edit'; query?: string; steps?: string[] }
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
