/**
 * Runs tasks one after another. A connector owns one engine session, and a query is several
 * round trips (begin, limit, run, rollback) that must not interleave with another query's.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
