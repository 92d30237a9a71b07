/**
 * JIT settings for a short batch run (`dwb dqa solve` with the simulator): most of such a run's
 * CPU went to V8's optimizing compiler, not to the work — about 0.3 s of background compiling
 * against 0.2 s on the main thread for the 234 dev solves — because every hot function was
 * compiled with its callees inlined, and many were compiled again after early deopts. Without
 * inlining, and optimizing only what stays hot a little longer, the compiler's share drops to
 * about a quarter while the main thread's time stays the same (measured: npm run
 * bench:simulators). Only this command sets them: a long-lived `dwb serve` keeps V8's defaults.
 * The flags only change what V8 compiles, never what the code computes.
 */
import { setFlagsFromString } from 'node:v8';

export const batchJitFlags = ['--no-turbo-inlining', '--interrupt-budget=250000'] as const;

export function tuneJitForBatch(): void {
  for (const flag of batchJitFlags) setFlagsFromString(flag);
}
