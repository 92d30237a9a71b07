/**
 * JIT settings for a short batch run (`dwb dqa solve` with the simulator): most of such a run's
 * CPU went to V8's optimizing compiler, not to the work — about 0.3 s of background compiling
 * against 0.2 s on the main thread for the 234 dev solves — because every hot function was
 * compiled with its callees inlined, and many were compiled again after early deopts. Without
 * inlining, and optimizing only what stays hot a little longer, the compiler's share drops to
 * about a quarter while the main thread's time stays the same (measured: npm run
 * bench:simulators). Only this command sets them: a long-lived `dwb serve` keeps V8's defaults.
 * The flags only change what V8 compiles, never what the code computes. Round 6: with the
 * dump cache warm, a run is short enough that tiering up later still (400000 rather than
 * 250000) costs less than the compiles it avoids: ≈ 3–5 % less CPU warm, none more cold
 * (alternating runs, docs/simulators.md).
 */
import { setFlagsFromString } from 'node:v8';

export const batchJitFlags = ['--no-turbo-inlining', '--interrupt-budget=400000'] as const;

export function tuneJitForBatch(): void {
  for (const flag of batchJitFlags) setFlagsFromString(flag);
}
