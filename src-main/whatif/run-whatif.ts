/**
 * What-if sandbox: on a throwaway copy, never the source, apply a parametrized change for each
 * candidate, measure an objective before and after, and rank the candidates. The copy lives in
 * a fresh scratch folder removed in `finally`; the source is digested before and after to prove
 * it untouched (./sandbox-source.ts says how each kind of source is read and copied).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { WorkbenchError } from '../contract/errors';
import { openEvaluator } from './candidate-evaluator';
import { withCopiedTables } from './server-snapshot';
import { rankCandidates, type Measured } from './rank-candidates';
import { fileSource, type SandboxSource } from './sandbox-source';
import type { WhatIfResult } from '../contract/whatif';
import { whatIfParamsSchema, whatIfTrialSchema, type WhatIfInput, type WhatIfTrial } from './whatif-params';

export interface WhatIfOptions {
  /** Parent folder for the scratch copy (default: the OS temp folder). */
  scratchRoot?: string;
  /** Stops between candidates (a candidate already running finishes or meets its time limit). */
  signal?: AbortSignal;
  /** Told after each candidate how many are done. */
  onProgress?: (done: number, total: number) => void;
}

function validate<S extends typeof whatIfParamsSchema | typeof whatIfTrialSchema>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') || 'parameters';
    throw new WorkbenchError('invalid-request', `what-if ${field}: ${issue?.message ?? 'invalid'}`);
  }
  const seen = new Set<string>();
  for (const candidate of parsed.data.candidates) {
    const key = `${typeof candidate}:${String(candidate)}`;
    if (seen.has(key)) throw new WorkbenchError('invalid-request', `what-if candidates: ${String(candidate)} is listed twice`);
    seen.add(key);
  }
  return parsed.data as z.output<S>;
}

/** A what-if on a database file (SQLite, DuckDB, CSV, Parquet). */
export async function runWhatIf(input: WhatIfInput, options: WhatIfOptions = {}): Promise<WhatIfResult> {
  const params = validate(whatIfParamsSchema, input);
  return runWhatIfOnSource(fileSource(params.source, params.kind), params, options);
}

/** A what-if on any source: a file, or tables copied from a server. */
export async function runWhatIfOnSource(source: SandboxSource, trial: z.input<typeof whatIfTrialSchema>, options: WhatIfOptions = {}): Promise<WhatIfResult> {
  const started = performance.now();
  const params: WhatIfTrial = validate(whatIfTrialSchema, trial);
  const scratch = mkdtempSync(join(options.scratchRoot ?? tmpdir(), 'dwb-whatif-'));
  try {
    const snapshot = await source.snapshot(scratch, options.signal);
    const evaluator = await openEvaluator({ kind: snapshot.kind, copyPath: snapshot.copyPath, change: params.change, objective: params.objective, timeoutMs: params.timeoutMs }).catch((error: unknown) => {
      throw withCopiedTables(error, snapshot.copiedTables);
    });
    const measured: Measured[] = [];
    const stopped = (): WorkbenchError => new WorkbenchError('cancelled', `the what-if was stopped after ${measured.length} of ${params.candidates.length} candidates`);
    // A worker process can be stopped in the middle of a candidate: closing it ends the wait at once.
    const stopWorker = (): void => void evaluator.close();
    if (evaluator.isolation === 'process') options.signal?.addEventListener('abort', stopWorker, { once: true });
    try {
      for (const candidate of params.candidates) {
        if (options.signal?.aborted) throw stopped();
        try {
          measured.push({ candidate, ...(await evaluator.evaluate(candidate)) });
        } catch (error) {
          throw options.signal?.aborted ? stopped() : error;
        }
        options.onProgress?.(measured.length, params.candidates.length);
      }
    } finally {
      options.signal?.removeEventListener('abort', stopWorker);
      await evaluator.close();
    }
    const sourceDigestAfter = await source.digest(options.signal);
    if (sourceDigestAfter !== snapshot.digest) {
      // Nothing here writes the source, so another program did: the copy may predate its change.
      throw new WorkbenchError('conflict', `${source.description} changed while the what-if ran (another writer?); results discarded`);
    }
    const ranking = rankCandidates(measured, params.direction, params.tolerance);
    const notes: string[] = [];
    const untouched = measured.filter((m) => m.changedRows === 0).map((m) => String(m.candidate));
    if (untouched.length > 0) notes.push(`the change modified no rows for ${untouched.length} candidate(s): ${untouched.slice(0, 10).join(', ')}${untouched.length > 10 ? ', …' : ''}`);
    if (ranking.tied.length > 1) notes.push(`${ranking.tied.length} candidates are within relative ${params.tolerance} of the best; ${String(ranking.best)} is the first of them in candidate order`);
    return {
      ...ranking,
      direction: params.direction,
      tolerance: params.tolerance,
      sourceDigestBefore: snapshot.digest,
      sourceDigestAfter,
      ...(snapshot.copiedTables ? { copiedTables: snapshot.copiedTables } : {}),
      isolation: evaluator.isolation,
      notes,
      elapsedMs: performance.now() - started,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
