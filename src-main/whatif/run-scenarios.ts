/**
 * Scenarios in the what-if sandbox (DeLLMa's exact outcomes): several labelled changes, and
 * for each scenario the ones it applies, in order, then the objective measured, inside one
 * transaction that is always rolled back. Same guarantees as ./run-whatif.ts: the copy lives
 * in a scratch folder removed in `finally`, and the source is digested before and after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionTarget } from '../contract/connections';
import { WorkbenchError } from '../contract/errors';
import type { Candidate, CopiedTable } from '../contract/whatif';
import { WHATIF_DEFAULT_TIMEOUT_MS } from '../contract/whatif';
import type { Connector } from '../connectors/connector';
import { whatIfSupport } from './connection-whatif';
import { openScenarioEvaluator, type ScenarioEvaluator } from './candidate-evaluator';
import { CANDIDATE_PARAMETER, type CandidateMeasure, type LabelledChange } from './sandbox-session';
import { fileSource, type SandboxSource } from './sandbox-source';
import { serverTablesSource, withCopiedTables } from './server-snapshot';

export interface ScenarioTrial {
  changes: LabelledChange[];
  objective: string;
  /** Each applies the changes numbered `steps`, in order, with `candidate` bound where a statement names it. */
  scenarios: { steps: number[]; candidate: Candidate }[];
  timeoutMs?: number;
}

/**
 * A scenario whose change or objective failed on the data of that scenario (a constraint, an
 * overflow, an objective giving NULL or text there): its message, while the other scenarios
 * still count. Only such data-dependent failures are kept per scenario; a statement that
 * cannot be compiled fails the whole run before any scenario, and a timeout or a stop ends it.
 */
export interface ScenarioFailure {
  failed: string;
}

export type ScenarioOutcome = CandidateMeasure | ScenarioFailure;

export const scenarioFailed = <T extends object>(outcome: T | ScenarioFailure | undefined): outcome is ScenarioFailure => outcome !== undefined && 'failed' in outcome;

/** Failures that belong to one scenario's data, not to the session. */
const PER_SCENARIO_CODES = new Set(['query-failed', 'invalid-request']);

export interface ScenarioRun {
  /** One per scenario, in order. */
  measures: ScenarioOutcome[];
  sourceDigestBefore: string;
  sourceDigestAfter: string;
  copiedTables?: CopiedTable[];
  isolation: 'process' | 'in-process';
  elapsedMs: number;
}

export async function runScenariosOnSource(source: SandboxSource, trial: ScenarioTrial, options: { scratchRoot?: string; signal?: AbortSignal } = {}): Promise<ScenarioRun> {
  const started = performance.now();
  const scratch = mkdtempSync(join(options.scratchRoot ?? tmpdir(), 'dwb-scenarios-'));
  try {
    const snapshot = await source.snapshot(scratch, options.signal);
    const evaluator = await openScenarioEvaluator({ kind: snapshot.kind, copyPath: snapshot.copyPath, changes: trial.changes, objective: trial.objective, timeoutMs: trial.timeoutMs ?? WHATIF_DEFAULT_TIMEOUT_MS }).catch((error: unknown) => {
      throw withCopiedTables(error, snapshot.copiedTables);
    });
    const measures: ScenarioOutcome[] = [];
    try {
      await checkObjectiveOnUnchangedData(evaluator, trial, options.signal);
      for (const scenario of trial.scenarios) {
        if (options.signal?.aborted) throw new WorkbenchError('cancelled', `stopped after ${measures.length} of ${trial.scenarios.length} scenarios`);
        try {
          measures.push(await evaluator.evaluate(scenario.steps, scenario.candidate, options.signal));
        } catch (error) {
          const failure = WorkbenchError.from(error);
          if (failure.code === 'cancelled') throw new WorkbenchError('cancelled', `stopped after ${measures.length} of ${trial.scenarios.length} scenarios`);
          if (!PER_SCENARIO_CODES.has(failure.code)) throw failure;
          measures.push({ failed: failure.message });
        }
      }
    } finally {
      await evaluator.close();
    }
    const sourceDigestAfter = await source.digest(options.signal);
    if (sourceDigestAfter !== snapshot.digest) throw new WorkbenchError('conflict', `${source.description} changed while the scenarios ran (another writer?); results discarded`);
    return {
      measures,
      sourceDigestBefore: snapshot.digest,
      sourceDigestAfter,
      ...(snapshot.copiedTables ? { copiedTables: snapshot.copiedTables } : {}),
      isolation: evaluator.isolation,
      elapsedMs: performance.now() - started,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The objective measured on the unchanged copy (no change applied) before any scenario runs.
 * Every scenario measures it there first, so an objective that fails on the unchanged data
 * would fail every scenario alike, after running them all; instead the run stops here with one
 * error naming the objective and the database's message. An objective that names the candidate
 * is tried with each distinct candidate and stops the run only when it fails for every one
 * (otherwise the scenarios of the failing candidates fail on their own, as any data failure).
 */
async function checkObjectiveOnUnchangedData(evaluator: ScenarioEvaluator, trial: ScenarioTrial, signal: AbortSignal | undefined): Promise<void> {
  const candidates = [...new Set(trial.scenarios.map((scenario) => scenario.candidate))];
  const tried = CANDIDATE_PARAMETER.test(trial.objective) ? candidates : candidates.slice(0, 1);
  let firstFailure: WorkbenchError | null = null;
  for (const candidate of tried) {
    try {
      await evaluator.evaluate([], candidate, signal);
      return;
    } catch (error) {
      const failure = WorkbenchError.from(error);
      if (failure.code === 'cancelled') throw new WorkbenchError('cancelled', `stopped after 0 of ${trial.scenarios.length} scenarios`);
      if (!PER_SCENARIO_CODES.has(failure.code)) throw failure;
      firstFailure ??= failure;
    }
  }
  if (firstFailure) {
    throw new WorkbenchError('invalid-request', `the objective fails on the unchanged data, so none of the ${trial.scenarios.length} scenarios was run (objective: ${trial.objective.trim()}): ${firstFailure.message}`);
  }
}

/** The scenario sandbox of a run's data; null when the data cannot be copied (graphs), with the reason. */
export type RunScenarios = { run(trial: ScenarioTrial, signal?: AbortSignal): Promise<ScenarioRun> } | { unsupported: string };

export function runScenariosFor(target: ConnectionTarget, connector: Connector): RunScenarios {
  const support = whatIfSupport(target);
  if (!support.supported) return { unsupported: support.reason };
  return {
    run: async (trial, signal) => {
      const source = support.copies === 'file' ? fileSource(support.path, support.kind) : await serverTablesSource(support.engine, connector, [...trial.changes.map((change) => change.text), trial.objective], { catalog: support.catalog });
      return runScenariosOnSource(source, trial, signal ? { signal } : {});
    },
  };
}
