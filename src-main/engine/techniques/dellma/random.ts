/**
 * The seeded generator every random choice of a DeLLMa run draws from, so a run is
 * reproducible from its seed. Algorithm: mulberry32 (a 32-bit state advanced by the odd
 * constant 0x6D2B79F5 and mixed by two xor-shift-multiply rounds), giving floats in [0, 1)
 * with 2^-32 resolution. Not cryptographic; plenty for Monte-Carlo sampling of a few
 * thousand states. The seed is any integer; only its low 32 bits are used.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n) };
}

/** Index drawn with the given probabilities (which sum to 1; round-off falls on the last). */
export function drawIndex(random: Random, probabilities: readonly number[]): number {
  const u = random.next();
  let cumulative = 0;
  for (let index = 0; index < probabilities.length; index++) {
    cumulative += probabilities[index] ?? 0;
    if (u < cumulative) return index;
  }
  return probabilities.length - 1;
}

/** Fisher–Yates shuffle of a copy. */
export function shuffled<T>(random: Random, items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = random.int(index + 1);
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}
