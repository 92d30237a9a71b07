import { WorkbenchError } from '../contract/errors';

/** How a bounded call is limited and what it says when the limit is hit. */
export interface DeadlineOptions {
  timeoutMs: number;
  /** The caller's cancel signal. */
  signal?: AbortSignal;
  /** Message of the `timeout` error. */
  timeoutMessage: string;
  /** Message of the `cancelled` error. */
  cancelMessage?: string;
}

/**
 * Runs `work` with a signal that aborts at the deadline or when the caller cancels, and
 * settles as soon as either happens, whether or not `work` has noticed.
 *
 * Why not rely on the SDK: its own timeout stops at the response headers (a server that sends
 * headers and then stalls would hang a stream forever), its retry backoff sleeps without
 * watching the signal, and an aborted stream simply ends as if complete. Racing the work
 * against the deadline makes every call bounded whatever the SDK does.
 */
export async function withDeadline<T>(options: DeadlineOptions, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const cancelled = () => new WorkbenchError('cancelled', options.cancelMessage ?? 'The model request was cancelled.');
  if (options.signal?.aborted) throw cancelled();

  const controller = new AbortController();
  let ended: WorkbenchError | null = null;
  let rejectEnded: (error: WorkbenchError) => void = () => undefined;
  const endedPromise = new Promise<never>((_resolve, reject) => (rejectEnded = reject));
  const end = (error: WorkbenchError) => {
    if (ended) return;
    ended = error;
    controller.abort(error);
    rejectEnded(error);
  };

  const timer = setTimeout(() => end(new WorkbenchError('timeout', options.timeoutMessage)), options.timeoutMs);
  const onCancel = () => end(cancelled());
  options.signal?.addEventListener('abort', onCancel, { once: true });

  const running = work(controller.signal);
  // The losing side of the race still settles later; nobody else listens to it.
  running.catch(() => undefined);
  endedPromise.catch(() => undefined);
  try {
    const result = await Promise.race([running, endedPromise]);
    // An aborted SDK stream ends quietly, so a result that arrives after the end is not trusted.
    if (ended) throw ended;
    return result;
  } catch (error) {
    throw ended ?? error;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCancel);
  }
}
