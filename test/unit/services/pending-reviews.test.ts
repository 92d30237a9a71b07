import { describe, expect, it } from 'vitest';
import type { ReviewRequest } from '../../../src-main/engine/review-gate';
import { PendingReviews } from '../../../src-main/services/pending-reviews';

const query = (step: number, node?: string): ReviewRequest => ({ subject: 'query', step, ...(node ? { node } : {}), query: `SELECT ${step}` });

describe('PendingReviews', () => {
  it('keeps reviews waiting at once apart by step and node, answers each by its key, the oldest without one', async () => {
    const seen: string[][] = [];
    const reviews = new PendingReviews((pending) => seen.push(pending.map((request) => `${request.step}:${request.node ?? ''}`)));
    const first = reviews.wait(query(2, 'out1'));
    const second = reviews.wait(query(3, 'out2'));
    const third = reviews.wait(query(4));
    expect(reviews.list().map((request) => request.step)).toEqual([2, 3, 4]);
    reviews.answer('3:out2', { action: 'skip' });
    await expect(second).resolves.toEqual({ action: 'skip' });
    expect(() => reviews.answer('3:out2', { action: 'approve' })).toThrow('This run is not waiting for review 3:out2 (waiting: 2:out1, 4)');
    reviews.answer(undefined, { action: 'approve' });
    await expect(first).resolves.toEqual({ action: 'approve' });
    reviews.answer('4', { action: 'note', note: 'n' });
    await expect(third).resolves.toEqual({ action: 'note', note: 'n' });
    expect(() => reviews.answer(undefined, { action: 'approve' })).toThrow('This run is not waiting for a review');
    expect(seen).toEqual([['2:out1'], ['2:out1', '3:out2'], ['2:out1', '3:out2', '4:'], ['2:out1', '4:'], ['4:'], []]);
  });

  it('lets a second review under a key already waiting wait its turn instead of replacing the first', async () => {
    const reviews = new PendingReviews(() => undefined);
    const first = reviews.wait(query(5, 'Q1.1'));
    const again = reviews.wait({ subject: 'replan', step: 5, node: 'Q1.1', steps: ['s'], reason: 'r' });
    await Promise.resolve();
    expect(reviews.list().map((request) => request.subject)).toEqual(['query']);
    reviews.answer('5:Q1.1', { action: 'approve' });
    await expect(first).resolves.toEqual({ action: 'approve' });
    await new Promise<void>((resolve) => {
      const poll = (): void => (reviews.size === 1 ? resolve() : void setImmediate(poll));
      poll();
    });
    expect(reviews.list().map((request) => request.subject)).toEqual(['replan']);
    reviews.answer('5:Q1.1', { action: 'stop' });
    await expect(again).resolves.toEqual({ action: 'stop' });
  });

  it('answers a stop when the run is aborted, and every waiting review at once on answerAll', async () => {
    const reviews = new PendingReviews(() => undefined);
    const controller = new AbortController();
    const aborted = reviews.wait(query(1, 'a'), controller.signal);
    const other = reviews.wait(query(2, 'b'));
    const third = reviews.wait(query(3, 'c'));
    controller.abort();
    await expect(aborted).resolves.toEqual({ action: 'stop' });
    expect(reviews.size).toBe(2);
    reviews.answerAll({ action: 'approve' });
    await expect(Promise.all([other, third])).resolves.toEqual([{ action: 'approve' }, { action: 'approve' }]);
    expect(reviews.size).toBe(0);
    await expect(reviews.wait(query(4), controller.signal)).resolves.toEqual({ action: 'stop' });
  });
});
