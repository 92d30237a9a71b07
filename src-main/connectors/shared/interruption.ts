import { WorkbenchError } from '../../contract/errors';

export type InterruptReason = 'timeout' | 'cancelled';

/**
 * Watches one running query for its deadline and its abort signal and calls `interrupt` once,
 * with whichever came first. The connector asks the engine to stop in `interrupt` and, once the
 * engine has answered, reads `reason` to report 'timeout' or 'cancelled' whatever error (or
 * partial success) the engine gave, since engines word interruptions inconsistently.
 */
export class QueryInterruption {
  private firedReason: InterruptReason | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort = (): void => this.fire('cancelled');

  constructor(
    private readonly deadlineMs: number,
    private readonly signal: AbortSignal | undefined,
    private readonly interrupt: (reason: InterruptReason) => void,
  ) {
    this.timer = setTimeout(() => this.fire('timeout'), deadlineMs);
    // An already-aborted signal never dispatches 'abort' again: honour it on the next tick.
    if (signal?.aborted === true) queueMicrotask(this.onAbort);
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get reason(): InterruptReason | null {
    return this.firedReason;
  }

  /** The error to report when the query was interrupted, or null when it ran its course. */
  error(engine: string, timeoutMs: number): WorkbenchError | null {
    if (this.firedReason === 'timeout') {
      return new WorkbenchError('timeout', `${engine}: query exceeded its ${timeoutMs} ms time limit and was stopped`);
    }
    if (this.firedReason === 'cancelled') return new WorkbenchError('cancelled', `${engine}: query cancelled`);
    return null;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }

  private fire(reason: InterruptReason): void {
    if (this.firedReason !== null) return;
    this.firedReason = reason;
    this.interrupt(reason);
  }
}

/** Refuses to start a query whose signal is already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, engine: string): void {
  if (signal?.aborted === true) throw new WorkbenchError('cancelled', `${engine}: query cancelled before it started`);
}
