import type { WorkbenchError } from '../../contract/errors';
import { QueryInterruption } from './interruption';

/**
 * Grace past a server-side limit (statement_timeout, transaction timeout) before the client
 * interrupts on its own: the server normally stops the query first and says so itself.
 */
export const serverFirstGraceMs = 1500;

/** A server that has not stopped the query by then after being asked (network gone) is given up on. */
const defaultHardStopGraceMs = 5000;

/** One query against a server session that must be stoppable at its deadline or on cancel. */
export interface InterruptibleRun<T> {
  /** Engine name for messages, e.g. 'PostgreSQL'. */
  engine: string;
  /** The limit the caller asked for; named in the timeout message. */
  timeoutMs: number;
  /** When the client steps in: the limit itself, or later when the server enforces it first. */
  deadlineMs: number;
  signal?: AbortSignal;
  /** Starts the work; `stopped()` turns true once an interruption fired (checked between round trips). */
  run(stopped: () => boolean): Promise<T>;
  /**
   * Asks the server to stop the query (cancel, KILL, RESET). Awaited before the run settles,
   * so a late stop request can never hit the session's next query.
   */
  interrupt(): Promise<void>;
  /** The server did not stop within the hard-stop grace after `interrupt` (network gone): give the session up. */
  abandon(): void;
  /** The engine's error mapping for failures that were not interruptions. */
  toError(error: unknown): WorkbenchError;
}

/**
 * Runs a query that the client can interrupt. Whatever the server answers after an
 * interruption (an error, or a normal-looking row: MariaDB's SLEEP() returns 1 when killed),
 * the result is 'timeout' or 'cancelled', decided by what fired first.
 */
export async function runInterruptible<T>(spec: InterruptibleRun<T>): Promise<T> {
  let pendingInterrupt: Promise<void> = Promise.resolve();
  let hardStop: NodeJS.Timeout | undefined;
  let giveUp: (error: Error) => void = () => undefined;
  const givenUp = new Promise<never>((_, reject) => {
    giveUp = reject;
  });
  givenUp.catch(() => undefined);
  const interruption = new QueryInterruption(spec.deadlineMs, spec.signal, () => {
    pendingInterrupt = spec.interrupt().catch(() => undefined);
    hardStop = setTimeout(() => {
      spec.abandon();
      giveUp(new Error(`${spec.engine}: the server did not stop the query`));
    }, defaultHardStopGraceMs);
  });
  const running = spec.run(() => interruption.reason !== null);
  running.catch(() => undefined);
  try {
    const value = await Promise.race([running, givenUp]);
    const interrupted = interruption.error(spec.engine, spec.timeoutMs);
    if (interrupted !== null) throw interrupted;
    return value;
  } catch (error) {
    throw interruption.error(spec.engine, spec.timeoutMs) ?? spec.toError(error);
  } finally {
    clearTimeout(hardStop);
    interruption.dispose();
    await pendingInterrupt;
  }
}
