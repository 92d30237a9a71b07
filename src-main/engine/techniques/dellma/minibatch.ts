import { WorkbenchError } from '../../../contract/errors';

/** A window of consecutive items: global positions `start … start + size − 1`. */
export interface Window {
  index: number;
  start: number;
  size: number;
}

/** ⌊b(1−q)⌋, as the reference code's `int(b*(1-q))`; must be at least 1. */
export function stride(batch: number, overlap: number): number {
  if (!Number.isInteger(batch) || batch < 1) throw new WorkbenchError('invalid-request', `The minibatch size must be a positive whole number, got ${batch}.`);
  if (!(overlap >= 0 && overlap < 1)) throw new WorkbenchError('invalid-request', `The overlap must be at least 0 and below 1, got ${overlap}.`);
  // The small epsilon keeps 32·(1−0.25) = 24 from flooring to 23 through binary round-off.
  const step = Math.floor(batch * (1 - overlap) + 1e-9);
  if (step < 1) throw new WorkbenchError('invalid-request', `Minibatch ${batch} with overlap ${overlap} gives a stride of 0; lower the overlap.`);
  return step;
}

/**
 * Overlapping minibatches [paper Alg. 2]: windows of `batch` items starting every
 * ⌊b(1−q)⌋ items; the first window that reaches the end is the last (it may be shorter).
 * Consecutive full windows share b − stride items.
 */
export function windows(itemCount: number, batch: number, overlap: number): Window[] {
  const step = stride(batch, overlap);
  const result: Window[] = [];
  for (let start = 0; start < itemCount || result.length === 0; start += step) {
    const size = Math.min(batch, itemCount - start);
    result.push({ index: result.length, start, size });
    if (start + batch >= itemCount) break;
  }
  return result;
}

/** Local item numbers shown to the model are 1..size; this maps one back to its global position. */
export function globalPosition(window: Window, localNumber: number): number {
  if (!Number.isInteger(localNumber) || localNumber < 1 || localNumber > window.size) {
    throw new WorkbenchError('invalid-request', `Item ${localNumber} is not in minibatch ${window.index + 1} (items 1 to ${window.size}).`);
  }
  return window.start + localNumber - 1;
}
