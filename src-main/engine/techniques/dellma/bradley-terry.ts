import { WorkbenchError } from '../../../contract/errors';
import type { Choice, Pair } from './ranking';

/**
 * Bradley–Terry strengths by iterative Luce spectral ranking (ILSR), the estimator the
 * reference code uses (choix `ilsr_pairwise` / `ilsr_top1`), written from its definition:
 *
 * - weights w = e^θ, rescaled so that Σw = n (as choix does between iterations; with
 *   alpha > 0 the fixed point depends on this scale, so it matters for matching values);
 * - a Markov chain whose every rate starts at `alpha` (the regulariser); each pair
 *   (winner, loser) adds 1/(w_winner + w_loser) to the rate loser → winner; a top-1 choice
 *   adds 1/(w_winner + Σ w_losers) to every loser → winner rate;
 * - the chain's stationary distribution π gives the new θ = log π − mean(log π);
 * - repeat until the L1 change of θ is ≤ tol·n.
 *
 * The result is centred: Σθ = 0. Without `alpha`, data with perfect separation (one ranking,
 * say) or a disconnected comparison graph has no finite estimate; that is detected and
 * reported instead of returning infinities.
 */
export interface BradleyTerryOptions {
  alpha: number;
  maxIterations?: number;
  tolerance?: number;
  /**
   * How each iteration's stationary distribution is solved: `auto` (the default) uses the
   * banded solver whenever alpha > 0, `dense` always the general one (for tests comparing
   * the two).
   */
  solver?: 'auto' | 'dense';
}

export interface BradleyTerryFit {
  theta: number[];
  iterations: number;
  converged: boolean;
}

export const defaultMaxIterations = 10_000;
export const defaultTolerance = 1e-8;

export function fitPairs(itemCount: number, pairs: readonly Pair[], options: BradleyTerryOptions): BradleyTerryFit {
  return ilsr(itemCount, options, (weights, rates) => {
    for (const [winner, loser] of pairs) addRate(rates, itemCount, loser, winner, 1 / ((weights[winner] as number) + (weights[loser] as number)));
  });
}

export function fitTop1(itemCount: number, choices: readonly Choice[], options: BradleyTerryOptions): BradleyTerryFit {
  return ilsr(itemCount, options, (weights, rates) => {
    for (const { winner, losers } of choices) {
      const total = losers.reduce((sum, loser) => sum + (weights[loser] as number), weights[winner] as number);
      for (const loser of losers) addRate(rates, itemCount, loser, winner, 1 / total);
    }
  });
}

function addRate(rates: Float64Array, n: number, from: number, to: number, amount: number): void {
  rates[from * n + to] = (rates[from * n + to] as number) + amount;
}

function ilsr(n: number, options: BradleyTerryOptions, addComparisons: (weights: Float64Array, rates: Float64Array) => void): BradleyTerryFit {
  const { alpha } = options;
  if (!(alpha >= 0) || !Number.isFinite(alpha)) throw new WorkbenchError('invalid-request', `The Bradley–Terry regulariser alpha must be a finite number ≥ 0, got ${alpha}.`);
  if (n === 0) return { theta: [], iterations: 0, converged: true };
  const maxIterations = options.maxIterations ?? defaultMaxIterations;
  const tolerance = options.tolerance ?? defaultTolerance;
  const banded = alpha > 0 && options.solver !== 'dense';
  let theta: number[] = new Array<number>(n).fill(0);
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    const weights = scaledWeights(theta);
    // The banded solver takes the comparison rates alone and adds alpha analytically.
    const rates = new Float64Array(n * n).fill(banded ? 0 : alpha);
    addComparisons(weights, rates);
    const next = centredLog(banded ? stationaryBanded(rates, n, alpha) : stationary(rates, n));
    const change = next.reduce((sum, value, index) => sum + Math.abs(value - (theta[index] as number)), 0);
    theta = next;
    if (change <= tolerance * n) return { theta, iterations: iteration, converged: true };
  }
  return { theta, iterations: maxIterations, converged: false };
}

/** e^(θ − mean θ), rescaled to sum to n. */
function scaledWeights(theta: readonly number[]): Float64Array {
  const n = theta.length;
  const mean = theta.reduce((sum, value) => sum + value, 0) / n;
  const weights = Float64Array.from(theta, (value) => Math.exp(value - mean));
  const total = weights.reduce((sum, value) => sum + value, 0);
  return weights.map((value) => (value * n) / total);
}

function centredLog(distribution: Float64Array): number[] {
  const logs = Array.from(distribution, (value) => Math.log(value));
  const mean = logs.reduce((sum, value) => sum + value, 0) / logs.length;
  return logs.map((value) => value - mean);
}

/**
 * Stationary distribution of the continuous-time chain with off-diagonal rates
 * `rates[i·n + j]` (i → j): solves πQ = 0 with Σπ = 1 by Gaussian elimination with
 * partial pivoting on Qᵀ, its last equation replaced by the normalisation. A chain that is
 * not irreducible (items nobody compared, or perfect separation without alpha) makes the
 * system singular or π non-positive, which is an error, not a silent infinity.
 */
function stationary(rates: Float64Array, n: number): Float64Array {
  // a = Qᵀ with row n−1 replaced by ones; b = e_{n−1}.
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    let outflow = 0;
    for (let j = 0; j < n; j++) if (j !== i) outflow += rates[i * n + j] as number;
    for (let j = 0; j < n; j++) a[j * n + i] = j === i ? -outflow : (rates[i * n + j] as number);
  }
  for (let j = 0; j < n; j++) a[(n - 1) * n + j] = 1;
  const b = new Float64Array(n);
  b[n - 1] = 1;
  for (let column = 0; column < n; column++) {
    let pivot = column;
    for (let row = column + 1; row < n; row++) if (Math.abs(a[row * n + column] as number) > Math.abs(a[pivot * n + column] as number)) pivot = row;
    const pivotValue = a[pivot * n + column] as number;
    if (Math.abs(pivotValue) < 1e-300) throw separationError();
    if (pivot !== column) {
      for (let k = 0; k < n; k++) {
        const swap = a[column * n + k] as number;
        a[column * n + k] = a[pivot * n + k] as number;
        a[pivot * n + k] = swap;
      }
      const swap = b[column] as number;
      b[column] = b[pivot] as number;
      b[pivot] = swap;
    }
    for (let row = column + 1; row < n; row++) {
      const factor = (a[row * n + column] as number) / pivotValue;
      if (factor === 0) continue;
      for (let k = column; k < n; k++) a[row * n + k] = (a[row * n + k] as number) - factor * (a[column * n + k] as number);
      b[row] = (b[row] as number) - factor * (b[column] as number);
    }
  }
  const pi = new Float64Array(n);
  for (let row = n - 1; row >= 0; row--) {
    let sum = b[row] as number;
    for (let k = row + 1; k < n; k++) sum -= (a[row * n + k] as number) * (pi[k] as number);
    pi[row] = sum / (a[row * n + row] as number);
  }
  if (pi.some((value) => !(value > 0) || !Number.isFinite(value))) throw separationError();
  return pi;
}

/**
 * The same stationary distribution, faster, for alpha > 0. With comparison rates R (i → j)
 * and alpha on every off-diagonal rate, πQ = 0 with Σπ = 1 is equivalent to A π = alpha·1
 * where A = diag(r + alpha·n) − Rᵀ and r are R's row sums. A's columns are strictly
 * diagonally dominant (each column sums to alpha·n > 0), so elimination needs no pivoting
 * and keeps A's band: items are only compared inside a minibatch of consecutive items, so
 * R is banded (half-width < b) and a solve costs n·w² instead of n³.
 */
function stationaryBanded(rates: Float64Array, n: number, alpha: number): Float64Array {
  let width = 0;
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    let outflow = 0;
    for (let j = 0; j < n; j++) {
      const rate = rates[i * n + j] as number;
      if (j === i || rate === 0) continue;
      outflow += rate;
      a[j * n + i] = -rate;
      width = Math.max(width, Math.abs(i - j));
    }
    a[i * n + i] = (a[i * n + i] as number) + outflow + alpha * n;
  }
  const b = new Float64Array(n).fill(alpha);
  for (let column = 0; column < n; column++) {
    const pivotValue = a[column * n + column] as number;
    const last = Math.min(n - 1, column + width);
    for (let row = column + 1; row <= last; row++) {
      const factor = (a[row * n + column] as number) / pivotValue;
      if (factor === 0) continue;
      for (let k = column; k <= last; k++) a[row * n + k] = (a[row * n + k] as number) - factor * (a[column * n + k] as number);
      b[row] = (b[row] as number) - factor * (b[column] as number);
    }
  }
  const pi = new Float64Array(n);
  for (let row = n - 1; row >= 0; row--) {
    let sum = b[row] as number;
    const last = Math.min(n - 1, row + width);
    for (let k = row + 1; k <= last; k++) sum -= (a[row * n + k] as number) * (pi[k] as number);
    pi[row] = sum / (a[row * n + row] as number);
  }
  const total = pi.reduce((sum, value) => sum + value, 0);
  if (!(total > 0) || pi.some((value) => !(value > 0) || !Number.isFinite(value))) throw separationError();
  return pi.map((value) => value / total);
}

function separationError(): WorkbenchError {
  return new WorkbenchError(
    'invalid-request',
    'The comparisons have no finite Bradley–Terry estimate (perfect separation or items never compared); fit with a regulariser alpha > 0.',
  );
}
