import { WorkbenchError } from '../contract/errors';
import { reviewKeyOf } from '../contract/run';
import type { ReviewDecision, ReviewRequest } from '../engine/review-gate';

interface Waiting {
  request: ReviewRequest;
  answer(decision: ReviewDecision): void;
  /** Settles once the analyst (or a stop) answered it. */
  settled: Promise<void>;
}

/**
 * The reviews one live run waits on, by key (`reviewKeyOf`: step and node). Several can wait at
 * once — the nodes of a plan graph's level, Pearl's parallel steps, when the analyst pauses
 * while they are in flight — and each is answered by its own key, so none is lost. Told of
 * every change, oldest first, for the run's progress.
 */
export class PendingReviews {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly changed: (pending: ReviewRequest[]) => void) {}

  get size(): number {
    return this.waiting.size;
  }

  /**
   * Waits for the answer to `request`; a stop when `signal` aborts. A review whose key is
   * already waiting (a technique asking twice at one step and node) waits its turn, so one key
   * never stands for two questions.
   */
  async wait(request: ReviewRequest, signal?: AbortSignal): Promise<ReviewDecision> {
    const key = reviewKeyOf(request);
    for (let earlier = this.waiting.get(key); earlier; earlier = this.waiting.get(key)) await earlier.settled;
    if (signal?.aborted) return { action: 'stop' };
    let settle = (): void => undefined;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    return new Promise<ReviewDecision>((resolve) => {
      const onAbort = (): void => answer({ action: 'stop' });
      const answer = (decision: ReviewDecision): void => {
        if (this.waiting.get(key)?.answer !== answer) return;
        this.waiting.delete(key);
        signal?.removeEventListener('abort', onAbort);
        this.changed(this.list());
        settle();
        resolve(decision);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(key, { request, answer, settled });
      this.changed(this.list());
    });
  }

  /** Answers the review `key` names, or the oldest without a key; a conflict when it is not waiting. */
  answer(key: string | undefined, decision: ReviewDecision): void {
    const oldest = this.waiting.keys().next();
    const chosen = key ?? (oldest.done ? undefined : oldest.value);
    const waiting = chosen === undefined ? undefined : this.waiting.get(chosen);
    if (!waiting) {
      if (this.waiting.size === 0) throw new WorkbenchError('conflict', 'This run is not waiting for a review');
      throw new WorkbenchError('conflict', `This run is not waiting for review ${key} (waiting: ${[...this.waiting.keys()].join(', ')})`);
    }
    waiting.answer(decision);
  }

  /** Answers every waiting review the same way (resuming approves them all; a stop stops them all). */
  answerAll(decision: ReviewDecision): void {
    for (const waiting of [...this.waiting.values()]) waiting.answer(decision);
  }

  /** The waiting reviews, oldest first. */
  list(): ReviewRequest[] {
    return [...this.waiting.values()].map((waiting) => waiting.request);
  }
}
