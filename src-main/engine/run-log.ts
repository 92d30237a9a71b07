import type { RunEvent } from '../contract/run';
import { chainEntry, type LoggedEvent } from '../audit/hash-chain';
import { wellFormed } from '../audit/well-formed';

/**
 * Appends a run's events to a hash chain and hands each entry to its listeners (the notebook
 * projection, the event bus, a file). The chain is what reports are verified against.
 */
export class RunLog {
  private last: LoggedEvent | null = null;
  private readonly listeners: ((entry: LoggedEvent) => void)[] = [];

  constructor(
    readonly runId: string,
    private readonly now: () => string = () => new Date().toISOString(),
    /** The last entry of a log being continued (a resumed run); the chain goes on from it. */
    continueFrom: LoggedEvent | null = null,
  ) {
    this.last = continueFrom;
  }

  onEntry(listener: (entry: LoggedEvent) => void): void {
    this.listeners.push(listener);
  }

  append(event: RunEvent): LoggedEvent {
    // No lone surrogate reaches the chain: a signed bundle of it must read one way (well-formed.ts).
    const entry = chainEntry(this.last, this.runId, this.now(), wellFormed(event));
    this.last = entry;
    for (const listener of this.listeners) listener(entry);
    return entry;
  }
}
