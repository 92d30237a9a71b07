/**
 * Kendall's τ-b [ext: the paper reports no rank agreement]: how far two scorings of the same
 * items order them alike. +1 when every pair is ordered the same way, −1 when every pair is
 * reversed. Pairs tied in one scoring count in the denominator as τ-b prescribes,
 * (C − D) / √((n₀ − n₁)(n₀ − n₂)), so a scoring with ties cannot reach ±1 against one without.
 * Null when fewer than two items, or when either scoring ties every pair (no order to compare).
 */
export function kendallTau(x: readonly number[], y: readonly number[]): number | null {
  const counts = pairCounts(x, y);
  return tauOf(counts);
}

/** Concordant and discordant pairs, and pairs tied in x, in y, over every pair of items. */
export interface PairCounts {
  pairs: number;
  concordant: number;
  discordant: number;
  tiedX: number;
  tiedY: number;
}

export function pairCounts(x: readonly number[], y: readonly number[]): PairCounts {
  if (x.length !== y.length) throw new Error(`Kendall τ needs two scorings of the same items, got ${x.length} and ${y.length} scores`);
  const counts: PairCounts = { pairs: 0, concordant: 0, discordant: 0, tiedX: 0, tiedY: 0 };
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const dx = Math.sign((x[i] as number) - (x[j] as number));
      const dy = Math.sign((y[i] as number) - (y[j] as number));
      counts.pairs++;
      if (dx === 0) counts.tiedX++;
      if (dy === 0) counts.tiedY++;
      if (dx !== 0 && dy !== 0) {
        if (dx === dy) counts.concordant++;
        else counts.discordant++;
      }
    }
  }
  return counts;
}

/** τ-b of counts, pooled over several groups when they are added up first. */
export function tauOf(counts: PairCounts): number | null {
  const denominator = Math.sqrt((counts.pairs - counts.tiedX) * (counts.pairs - counts.tiedY));
  return denominator > 0 ? (counts.concordant - counts.discordant) / denominator : null;
}

export function addCounts(a: PairCounts, b: PairCounts): PairCounts {
  return { pairs: a.pairs + b.pairs, concordant: a.concordant + b.concordant, discordant: a.discordant + b.discordant, tiedX: a.tiedX + b.tiedX, tiedY: a.tiedY + b.tiedY };
}
