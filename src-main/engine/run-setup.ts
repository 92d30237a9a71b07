import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ConnectionTarget } from '../contract/connections';
import { resolveFidelity, type RunFidelityRequest } from '../contract/fidelity';
import type { ProviderSettings } from '../contract/model';
import type { RunEvent } from '../contract/run';
import type { ForecastStore } from './techniques/dellma/forecast-store';
import type { RunDocument } from '../contract/documents';
import type { Connector } from '../connectors/connector';
import { openConnector } from '../connectors/open-connector';
import { canonicalJson } from '../audit/canonical-json';
import type { LoggedEvent } from '../audit/hash-chain';
import { runDetails, type RunDetails, type RunThreads } from './run-details';
import { producedByRecorder } from './produced-by-recorder';
import { modelFileIdentity, type ModelFileIdentity } from '../llm/local/model-file-hash';
import { recordedAppVersion } from '../native/version';
import { createOpenAiProvider } from '../llm/openai-provider';
import { createReplayProvider } from '../llm/replay-provider';
import { recordingProvider, writeTranscriptLine, type Transcript } from '../llm/transcript';
import type { ModelProvider } from '../llm/types';
import type { LocalModelSettings } from '../llm/local/local-settings';
import { planCheck, refuseAnalystProblems } from '../simulators/check-plan';
import type { RunSimulator, SimulatorChoice } from '../simulators/run-simulator';
import { runWhatIfFor } from '../whatif';
import { runScenariosFor } from '../whatif/run-scenarios';
import { defaultRunLimits, runDecision, type ResumeState, type RunLimits, type RunOutcome } from './decision-run';
import { MemoryCellSink } from './memory-cell-sink';
import { automaticGate, type ReviewGate } from './review-gate';
import { createRunCellWriter, type CellSink } from './run-cells';
import { RunLog } from './run-log';
import type { TechniqueHost } from './techniques/technique';
import { techniqueNamed } from './techniques/registry';
import type { TechniqueDefinition } from './techniques/technique';
import { WorkbenchError } from '../contract/errors';
import { techniqueFidelity } from './techniques/technique-extensions';
import type { KeptOutputs } from './techniques/pearl/rerun';

/**
 * Everything one decision run is wired from. The app (services/run-manager.ts), `dwb run`
 * (cli/run-command.ts) and the technique benchmark all describe a run this way and start it
 * with `executeRun`, so the provider, the transcript recorder, the hash-chained log, the cell
 * projection, the simulator, the what-if sandbox and the run's audit details are put together
 * in one place.
 */
export interface RunSetup {
  runId: string;
  question: string;
  rules: string;
  technique: string;
  connector: Connector;
  /** The saved target of the connection, for the run's fingerprint (a file's hash) and the what-if copy. */
  target: ConnectionTarget;
  connectionDescription: string;
  model: {
    /** The provider before recording; `executeRun` wraps it with the transcript recorder. */
    provider: ModelProvider;
    /** Written to the transcript header (never the key); null for a replay. */
    settings: ProviderSettings | LocalModelSettings | null;
    /** What the run-start event says of the model; by default the endpoint settings' own. */
    details?: RunDetails['settings'];
    /** A local model: loads it and says how its threads were chosen, for the run-start event. */
    threads?: () => Promise<RunThreads>;
    toolMode: 'tools' | 'text';
  };
  /** Where transcript lines go; `continueAt` when a resumed run goes on with an existing transcript. */
  transcript: { write(line: string): void; continueAt?: number };
  /**
   * Where the chained log entries go; `lastEntry` when a resumed run continues a chain, and
   * `earlier` its entries so far (the produced-by record at its end covers the whole run).
   */
  log: { append(entry: LoggedEvent): void; lastEntry?: LoggedEvent | null; earlier?: readonly LoggedEvent[]; now?: () => string };
  cells: { sink: CellSink; connectionId: string | null; afterCellId: string | null; knownQueryCells?: Map<string, string> };
  /** A resolved simulator (or none). Resolve it with `planCheck` (or `simulatorFor`) before starting. */
  simulator: RunSimulator | null;
  /** Why the decision will not be checked (the check plan's `unchecked`); absent: checked when it can be. */
  uncheckedReason?: string | null;
  whatIf: boolean;
  /** A learned playbook for the `autoplan` technique. */
  playbook?: string;
  /** A program for `pearl` to run instead of planning one (the program cell). */
  program?: string;
  /** The playbook version's hash, recorded in the run log with the text. */
  playbookVersion?: string;
  /** For `pearl` re-running one step: the earlier run's outputs to keep. */
  keptOutputs?: KeptOutputs;
  /** The technique's own options, checked against its schema (techniques/technique-options.ts). */
  techniqueOptions?: Record<string, unknown>;
  /** What the process lends the technique (workspace libraries, the CLI's files). */
  host?: TechniqueHost;
  /** A stable id of the question (a DQA question's id); DeLLMa's seed follows it (DecisionRunOptions.questionId). */
  questionId?: string;
  /** For `dellma`: the model's forecasts kept across runs (app runs: the workspace). */
  forecastStore?: ForecastStore;
  /** Documents the analyst attached; DeLLMa reads them into its context. */
  documents?: RunDocument[];
  /** The fidelity to the technique's paper and an explicit temperature (absent: `product`); resolved here and recorded in run-start. */
  fidelity?: RunFidelityRequest;
  limits?: Partial<RunLimits>;
  gate?: ReviewGate;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
  onCheckpoint?: (state: ResumeState) => void;
  resume?: ResumeState;
  /** A technique-specific start of a new run (see DecisionRunOptions.seed). */
  seed?: unknown;
  /** Told of every event after it is chained (progress lines, progress bars). */
  onEvent?: (entry: LoggedEvent) => void;
}

/**
 * The run's gate, refusing a review its technique does not declare (`reviews`): the composer and
 * the run bar tell the analyst what step-through stops for from the declaration, so a stop outside
 * it is a technique's mistake, surfaced as the run's failure. The automatic gate is held to it too,
 * so every run checks the declaration.
 */
function declaredReviewsOnly(gate: ReviewGate, technique: TechniqueDefinition): ReviewGate {
  const declared = new Set(technique.reviews.map((point) => point.subject));
  return {
    interactive: gate.interactive,
    review: async (request, signal) => {
      if (!declared.has(request.subject)) throw new WorkbenchError('internal', `${technique.label} stopped for a review of a ${request.subject}, which its definition does not declare (reviews: ${[...declared].join(', ') || 'none'})`);
      return gate.review(request, signal);
    },
  };
}

/** Wires a run from its set-up and runs it to its end; never throws for the model's or the data's mistakes. */
export async function executeRun(setup: RunSetup): Promise<RunOutcome> {
  const log = new RunLog(setup.runId, setup.log.now, setup.log.lastEntry ?? null);
  log.onEntry((entry) => setup.log.append(entry));
  log.onEntry(
    createRunCellWriter(setup.cells.sink, {
      runId: setup.runId,
      connectionId: setup.cells.connectionId,
      afterCellId: setup.cells.afterCellId,
      ...(setup.cells.knownQueryCells ? { knownQueryCells: setup.cells.knownQueryCells } : {}),
    }),
  );
  if (setup.onEvent) log.onEntry(setup.onEvent);

  const { settings } = setup.model;
  const provider = recordingProvider(setup.model.provider, (line) => setup.transcript.write(writeTranscriptLine(line)), {
    ...(settings ? { settings } : {}),
    ...(setup.log.now ? { now: setup.log.now } : {}),
    ...(setup.transcript.continueAt !== undefined ? { continueAt: setup.transcript.continueAt } : {}),
  });
  const whatIf = runWhatIfFor(setup.target, setup.connector, setup.whatIf);
  // What the run cannot offer whatever its fidelity, so the record says what the model was offered.
  const unavailable = [...(setup.simulator ? [] : ['simulate-tool']), ...(whatIf ? [] : ['whatif-tool'])];
  const fidelity = resolveFidelity(techniqueFidelity(techniqueNamed(setup.technique)), setup.fidelity ?? { fidelity: 'product' }, unavailable);
  // The run-start event records the data's fingerprint, the model settings and the fidelity for the audit trail.
  const details = setup.model.details ?? (settings !== null && 'baseUrl' in settings ? settings : null);
  // A local model is loaded first so the run-start event records its thread choice; a load that
  // fails here is left to the first model call, which reports it as the run's failure.
  const threads = setup.model.threads ? await setup.model.threads().catch(() => null) : null;
  const withDetails = await runDetails({ connector: setup.connector, target: setup.target, settings: details, fidelity, threads });
  // What produced the result, written into the decision and run-end events. A resumed run whose
  // earlier events are not at hand gets no record at its end rather than one without its start.
  const earlier = setup.resume ? (setup.log.earlier?.map((entry) => entry.event) ?? null) : [];
  const recorder = earlier ? producedByRecorder({ earlier, productVersion: recordedAppVersion(), modelFile: settings !== null && 'modelPath' in settings ? await modelFileOf(settings.modelPath) : null }) : null;
  const recordProducedBy = (event: RunEvent): RunEvent => (recorder ? recorder.record(event) : event);
  const outcome = await runDecision({
    question: setup.question,
    rules: setup.rules,
    technique: setup.technique,
    connector: setup.connector,
    connectionDescription: setup.connectionDescription,
    provider,
    toolMode: setup.model.toolMode,
    limits: { ...defaultRunLimits, ...setup.limits },
    gate: declaredReviewsOnly(setup.gate ?? automaticGate, techniqueNamed(setup.technique)),
    emit: (event) => log.append(recordProducedBy(withDetails(event))),
    ...(setup.signal ? { signal: setup.signal } : {}),
    ...(setup.onToken ? { onToken: setup.onToken } : {}),
    ...(setup.simulator ? { simulator: setup.simulator } : {}),
    ...(setup.uncheckedReason ? { uncheckedReason: setup.uncheckedReason } : {}),
    ...(whatIf ? { whatIf } : {}),
    scenarios: runScenariosFor(setup.target, setup.connector),
    ...(setup.resume ? { resume: setup.resume } : {}),
    ...(setup.seed !== undefined ? { seed: setup.seed } : {}),
    ...(setup.playbook !== undefined ? { playbook: setup.playbook } : {}),
    ...(setup.program !== undefined ? { program: setup.program } : {}),
    ...(setup.playbookVersion !== undefined ? { playbookVersion: setup.playbookVersion } : {}),
    ...(setup.keptOutputs ? { keptOutputs: setup.keptOutputs } : {}),
    ...(setup.techniqueOptions ? { techniqueOptions: setup.techniqueOptions } : {}),
    ...(setup.host ? { host: setup.host } : {}),
    ...(setup.questionId !== undefined ? { questionId: setup.questionId } : {}),
    ...(setup.forecastStore ? { forecastStore: setup.forecastStore } : {}),
    ...(setup.documents?.length ? { documents: setup.documents } : {}),
    fidelity,
    ...(setup.onCheckpoint ? { onCheckpoint: setup.onCheckpoint } : {}),
  });
  // The outcome says who decided, as the log does (a fallback, a tool-assisted decision).
  const decidedBy = outcome.decision === null ? null : (recorder?.decidedBy() ?? null);
  return decidedBy ? { ...outcome, decidedBy } : outcome;
}

/** The GGUF file's identity; null when it cannot be read (the run itself then reports the file). */
async function modelFileOf(path: string): Promise<ModelFileIdentity | null> {
  try {
    return await modelFileIdentity(path);
  } catch {
    return null;
  }
}

/** What `runToDirectory` runs: one question against one database with one model. */
export interface DirectoryRunRequest {
  /** Created if missing; notebook.json, run-log.jsonl and transcript.jsonl are (over)written. */
  outDir: string;
  question: string;
  rules: string;
  technique: string;
  /**
   * The database: a target opened (and closed) for this run, the password used for this run
   * only; or an open connector the caller owns and closes.
   */
  connection: { target: ConnectionTarget; description: string } & ({ password?: string | null } | { connector: Connector });
  /** A live endpoint, a recorded transcript replayed, or any provider (tests, benchmarks). */
  model:
    | { settings: ProviderSettings }
    | { replay: Transcript; toolMode: 'tools' | 'text' }
    | {
        provider: ModelProvider;
        settings: ProviderSettings | LocalModelSettings | null;
        details?: RunDetails['settings'];
        /** A local model: loads it and says how its threads were chosen (for run-start). */
        threads?: () => Promise<RunThreads>;
        toolMode: 'tools' | 'text';
      };
  simulator: SimulatorChoice;
  whatIf: boolean;
  /** A learned playbook for the `autoplan` technique. */
  playbook?: string;
  /** The playbook version's hash, recorded in the run log with the text. */
  playbookVersion?: string;
  /** The technique's own options, checked against its schema (techniques/technique-options.ts). */
  techniqueOptions?: Record<string, unknown>;
  /** What the process lends the technique (the CLI: action library files). */
  host?: TechniqueHost;
  /** A stable id of the question (a DQA question's id); DeLLMa's seed follows it. */
  questionId?: string;
  /** Documents attached to the run (`--document`); DeLLMa reads them into its context. */
  documents?: RunDocument[];
  /** The fidelity to the technique's paper and an explicit temperature (absent: `product`). */
  fidelity?: RunFidelityRequest;
  limits?: Partial<RunLimits>;
  signal?: AbortSignal;
  runId?: string;
  /** Told of every event after it is chained (progress lines). */
  onEvent?: (event: RunEvent) => void;
  /** Told of each piece of a model reply as it is decoded (the CLI's live progress). */
  onToken?: (text: string) => void;
}

/** How a run into a directory ended, with what it cost. */
export interface DirectoryRunResult extends RunOutcome {
  runId: string;
  outDir: string;
  promptTokens: number;
  completionTokens: number;
  /** From before the connector was opened to after the notebook was written. */
  wallTimeMs: number;
}

/**
 * Runs one decision into `outDir` exactly as `dwb run --out` does: the notebook
 * (notebook.json), the hash-chained run log (run-log.jsonl) and the model transcript
 * (transcript.jsonl). Throws only for set-up errors (the database cannot be opened); a run
 * that fails on the way ends with its status and message, and its files are still written.
 */
export async function runToDirectory(request: DirectoryRunRequest): Promise<DirectoryRunResult> {
  const started = performance.now();
  const outDir = resolve(request.outDir);
  mkdirSync(outDir, { recursive: true });
  const transcriptPath = join(outDir, 'transcript.jsonl');
  const logPath = join(outDir, 'run-log.jsonl');
  writeFileSync(transcriptPath, '');
  writeFileSync(logPath, '');

  const owned = !('connector' in request.connection);
  const connector =
    'connector' in request.connection ? request.connection.connector : await openConnector(request.connection.target, request.connection.password ?? null);
  try {
    const runId = request.runId ?? `run-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const sink = new MemoryCellSink(runId);
    const usage = { promptTokens: 0, completionTokens: 0 };
    const outcome = await executeRun({
      runId,
      question: request.question,
      rules: request.rules,
      technique: request.technique,
      connector,
      target: request.connection.target,
      connectionDescription: request.connection.description,
      model: modelOf(request.model),
      transcript: { write: (line) => appendFileSync(transcriptPath, line) },
      log: { append: (entry) => appendFileSync(logPath, `${canonicalJson(entry)}\n`) },
      cells: { sink, connectionId: null, afterCellId: null },
      ...(await checkedSimulator(connector, request.simulator, request.question)),
      whatIf: request.whatIf,
      ...(request.playbook !== undefined ? { playbook: request.playbook } : {}),
      ...(request.playbookVersion !== undefined ? { playbookVersion: request.playbookVersion } : {}),
      ...(request.techniqueOptions ? { techniqueOptions: request.techniqueOptions } : {}),
      ...(request.host ? { host: request.host } : {}),
      ...(request.questionId !== undefined ? { questionId: request.questionId } : {}),
      ...(request.documents?.length ? { documents: request.documents } : {}),
      ...(request.fidelity ? { fidelity: request.fidelity } : {}),
      ...(request.limits ? { limits: request.limits } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.onToken ? { onToken: request.onToken } : {}),
      onEvent: ({ event }) => {
        if (event.type === 'model-response' && event.usage) {
          usage.promptTokens += event.usage.promptTokens;
          usage.completionTokens += event.usage.completionTokens;
        }
        request.onEvent?.(event);
      },
    });
    writeFileSync(
      join(outDir, 'notebook.json'),
      `${JSON.stringify({ format: 'decision-workbench/notebook', version: 1, title: firstLine(request.question), runId, cells: sink.cells }, null, 2)}\n`,
    );
    return { ...outcome, runId, outDir, ...usage, wallTimeMs: performance.now() - started };
  } finally {
    if (owned) await connector.close();
  }
}

function modelOf(model: DirectoryRunRequest['model']): RunSetup['model'] {
  if ('replay' in model) return { provider: createReplayProvider(model.replay), settings: null, toolMode: model.toolMode };
  if ('provider' in model) return model;
  return { provider: createOpenAiProvider(model.settings), settings: model.settings, toolMode: model.settings.toolMode === 'text' ? 'text' : 'tools' };
}

function firstLine(text: string): string {
  return (text.trim().split('\n').find((line) => line.trim() && !/^=+$/.test(line.trim())) ?? 'Decision run').slice(0, 120);
}

/**
 * The simulator a run checks its decision with, its parameters read from the question where
 * the request names none, and why the decision will not be checked when it cannot be. A
 * parameter given explicitly (`--country`, the composer) that the data lacks is refused here.
 */
export async function checkedSimulator(connector: Connector, choice: SimulatorChoice, question: string): Promise<{ simulator: RunSimulator | null; uncheckedReason: string | null }> {
  const plan = await planCheck(connector, { ...choice, question });
  refuseAnalystProblems(plan);
  return { simulator: plan.simulator, uncheckedReason: plan.unchecked };
}
