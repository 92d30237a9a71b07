/**
 * Runs `work` on every item with at most `size` in flight at once; items start in order.
 * Stops starting new items once `signal` aborts; items already started finish on their own.
 */
export async function runPool<T>(items: readonly T[], size: number, work: (item: T, index: number) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length && !signal?.aborted) {
      const index = next;
      next += 1;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(size, items.length)) }, lane));
}
