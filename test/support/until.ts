/**
 * Polls `read` (sync or async) until it gives a value other than undefined, and returns that
 * value; fails after `timeoutMs`. For waiting on a workbench's events or a run's end in process.
 */
export async function until<T>(read: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
