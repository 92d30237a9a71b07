/**
 * How `threads: auto` picks a thread count. llama.cpp decodes fastest with one thread per core
 * on an idle machine, but on a busy one every thread waits for the slowest: with two threads on
 * two shared cores generation fell to a quarter of what one thread reached. So the count is
 * measured, not assumed: each candidate decodes a few tokens, the fastest wins, and a later
 * rate far from the one it was chosen at (the machine got busier or quieter) measures again.
 */

/** Tokens decoded per candidate count when measuring (after one warm-up token). */
export const probeTokens = 8;

/** The counts worth trying on a machine with `cores` threads: 1, 2, 4, … and the full count. */
export function candidateThreadCounts(cores: number): number[] {
  const counts = new Set<number>();
  for (let count = 1; count < cores; count *= 2) counts.add(count);
  counts.add(Math.max(1, cores));
  return [...counts];
}

/** The count with the highest measured rate; ties go to fewer threads (they leave the others free). */
export function fastestCount(measured: Record<number, number>): number {
  let best: { count: number; rate: number } | null = null;
  for (const [key, rate] of Object.entries(measured)) {
    const count = Number(key);
    if (!best || rate > best.rate || (rate === best.rate && count < best.count)) best = { count, rate };
  }
  if (!best) throw new Error('no thread count was measured');
  return best.count;
}

/**
 * Whether a generation's rate says the machine changed since the count was chosen: below half
 * of that rate (busier), or above one and a half times it (quieter, more threads may pay).
 */
export function rateCallsForMeasuring(rateNow: number, rateAtChoice: number): boolean {
  return rateNow < rateAtChoice * 0.5 || rateNow > rateAtChoice * 1.5;
}
