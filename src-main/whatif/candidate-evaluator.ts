/**
 * Two ways to run the sandbox session, chosen by what this build can start:
 * - `process`: in a worker process (./worker.ts) over the worker channel the connectors use;
 *   a candidate that overruns its time limit gets its process killed, so a runaway statement
 *   cannot hang the caller;
 * - `in-process`: when the bundle has no `whatif-worker.js` entry; the session runs here and
 *   the time limit is checked after each candidate (a single runaway statement cannot be
 *   stopped this way, which the result's `isolation` says).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WorkbenchError } from '../contract/errors';
import { startWorker, WorkerChannel } from '../connectors/worker-host';
import type { WhatIfRequest } from './protocol';
import type { CandidateMeasure, LabelledChange } from './sandbox-session';
import { openScenarioSession, openSession, type SandboxKind } from './sandbox-kind';
import type { Candidate } from '../contract/whatif';

export interface CandidateEvaluator {
  readonly isolation: 'process' | 'in-process';
  evaluate(candidate: Candidate): Promise<CandidateMeasure>;
  close(): Promise<void>;
}

export interface EvaluatorOptions {
  kind: SandboxKind;
  copyPath: string;
  change: string;
  objective: string;
  timeoutMs: number;
}

const BUNDLED_WORKER = 'whatif-worker.js';

/** From source (tests, tsx) the worker is forked from its TypeScript file; from the bundle it needs its own entry. */
export function workerAvailable(): boolean {
  return __filename.endsWith('.ts') || existsSync(join(__dirname, BUNDLED_WORKER));
}

function timedOut(candidate: Candidate, timeoutMs: number): WorkbenchError {
  return new WorkbenchError('timeout', `candidate ${String(candidate)}: the change and objective took longer than ${timeoutMs} ms`);
}

async function processEvaluator(options: EvaluatorOptions): Promise<CandidateEvaluator> {
  const channel = new WorkerChannel(() => startWorker({ bundledName: BUNDLED_WORKER, sourceFile: join(__dirname, 'worker.ts'), args: [] }));
  const request = <T>(message: WhatIfRequest, timeoutMs: number): Promise<T> => channel.request<T>(message, { timeoutMs });
  try {
    // Opening also validates the statements, so a bad change fails before any candidate.
    await request<null>({ type: 'open', kind: options.kind, copyPath: options.copyPath, change: options.change, objective: options.objective }, Math.max(options.timeoutMs, 30_000));
  } catch (error) {
    await channel.close();
    throw error;
  }
  return {
    isolation: 'process',
    evaluate: async (candidate) => {
      try {
        return await request<CandidateMeasure>({ type: 'evaluate', candidate }, options.timeoutMs);
      } catch (error) {
        if (error instanceof WorkbenchError && error.code === 'timeout') throw timedOut(candidate, options.timeoutMs);
        throw error;
      }
    },
    close: () => channel.close(),
  };
}

async function inProcessEvaluator(options: EvaluatorOptions): Promise<CandidateEvaluator> {
  const session = await openSession(options.kind, options.copyPath, options.change, options.objective);
  return {
    isolation: 'in-process',
    evaluate: async (candidate) => {
      const started = performance.now();
      const measure = await session.evaluate(candidate);
      if (performance.now() - started > options.timeoutMs) throw timedOut(candidate, options.timeoutMs);
      return measure;
    },
    close: async () => session.close(),
  };
}

export async function openEvaluator(options: EvaluatorOptions): Promise<CandidateEvaluator> {
  return workerAvailable() ? processEvaluator(options) : inProcessEvaluator(options);
}

/** Like a candidate evaluator, for scenario sessions (./run-scenarios.ts): each evaluation applies the changes numbered `steps`. */
export interface ScenarioEvaluator {
  readonly isolation: 'process' | 'in-process';
  /** `signal` stops a running scenario at once where it runs in a worker process (the process is killed). */
  evaluate(steps: readonly number[], candidate: Candidate, signal?: AbortSignal): Promise<CandidateMeasure>;
  close(): Promise<void>;
}

export interface ScenarioEvaluatorOptions {
  kind: SandboxKind;
  copyPath: string;
  changes: LabelledChange[];
  objective: string;
  timeoutMs: number;
}

export async function openScenarioEvaluator(options: ScenarioEvaluatorOptions): Promise<ScenarioEvaluator> {
  const overran = (candidate: Candidate): WorkbenchError => new WorkbenchError('timeout', `scenario for ${String(candidate)}: the changes and objective took longer than ${options.timeoutMs} ms`);
  if (!workerAvailable()) {
    const session = await openScenarioSession(options.kind, options.copyPath, options.changes, options.objective);
    return {
      isolation: 'in-process',
      evaluate: async (steps, candidate) => {
        const started = performance.now();
        const measure = await session.evaluateSteps(steps, candidate);
        if (performance.now() - started > options.timeoutMs) throw overran(candidate);
        return measure;
      },
      close: async () => session.close(),
    };
  }
  const channel = new WorkerChannel(() => startWorker({ bundledName: BUNDLED_WORKER, sourceFile: join(__dirname, 'worker.ts'), args: [] }));
  try {
    await channel.request<null>({ type: 'open-scenarios', kind: options.kind, copyPath: options.copyPath, changes: options.changes, objective: options.objective } satisfies WhatIfRequest, { timeoutMs: Math.max(options.timeoutMs, 30_000) });
  } catch (error) {
    await channel.close();
    throw error;
  }
  return {
    isolation: 'process',
    evaluate: async (steps, candidate, signal) => {
      try {
        return await channel.request<CandidateMeasure>({ type: 'evaluate-steps', steps: [...steps], candidate } satisfies WhatIfRequest, { timeoutMs: options.timeoutMs, ...(signal ? { signal } : {}) });
      } catch (error) {
        if (error instanceof WorkbenchError && error.code === 'timeout') throw overran(candidate);
        throw error;
      }
    },
    close: () => channel.close(),
  };
}
