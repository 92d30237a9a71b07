/**
 * From a model's ranking of one minibatch to comparisons [paper §3.3, FormatRank].
 * Positions here are 0-based within the batch; the model speaks 1-based numbers.
 */

/** What repair did to a ranking, so it can be shown and audited. */
export interface RankRepair {
  /** Positions (0-based) in the final order. */
  order: number[];
  /** 1-based numbers the model gave that are not in the batch, dropped [ext]. */
  outOfRange: number[];
  /** 1-based numbers the model repeated; the first occurrence is kept [ext]. */
  duplicates: number[];
  /** 1-based numbers the model left out, appended in ascending order [code: appended]. */
  missing: number[];
}

/**
 * Repairs a 1-based ranking of a batch of `size` items into a permutation. Missing items are
 * appended in ascending order, as the reference code appends them (it uses set order);
 * duplicates and out-of-range numbers are dropped, keeping the first occurrence [ext: the
 * reference code does not handle them]. Non-integers count as out of range.
 */
export function repairRank(rank: readonly number[], size: number): RankRepair {
  const seen = new Set<number>();
  const order: number[] = [];
  const outOfRange: number[] = [];
  const duplicates: number[] = [];
  for (const number of rank) {
    if (!Number.isInteger(number) || number < 1 || number > size) outOfRange.push(number);
    else if (seen.has(number)) duplicates.push(number);
    else {
      seen.add(number);
      order.push(number - 1);
    }
  }
  const missing: number[] = [];
  for (let number = 1; number <= size; number++) {
    if (!seen.has(number)) {
      missing.push(number);
      order.push(number - 1);
    }
  }
  return { order, outOfRange, duplicates, missing };
}

/** True when repair changed nothing. */
export function isClean(repair: RankRepair): boolean {
  return repair.outOfRange.length === 0 && repair.duplicates.length === 0 && repair.missing.length === 0;
}

/** A pairwise comparison: `winner` preferred to `loser` (global item ids). */
export type Pair = [winner: number, loser: number];

/** A top-1 choice: `winner` preferred to every one of `losers`. */
export interface Choice {
  winner: number;
  losers: number[];
}

/** Rank2Pairs (DeLLMa-Pairs): every earlier item beats every later one, b(b−1)/2 pairs. */
export function rankToPairs(order: readonly number[]): Pair[] {
  const pairs: Pair[] = [];
  for (let i = 0; i < order.length; i++) for (let j = i + 1; j < order.length; j++) pairs.push([order[i] as number, order[j] as number]);
  return pairs;
}

/** One-vs-All (DeLLMa-Top1): the first item beats each of the others, as one choice datum. */
export function rankToTop1(order: readonly number[]): Choice | null {
  if (order.length < 2) return null;
  const [winner, ...losers] = order;
  return { winner: winner as number, losers };
}
