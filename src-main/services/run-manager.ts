import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { EventName, EventPayload } from '../contract/api';
import type { Cell } from '../contract/notebook';
import { techniqueIdSchema } from '../contract/run';
import type { LoggedEvent } from '../audit/hash-chain';
import { resumeStateFor } from '../engine/resume-state';
import type { ConnectionTarget } from '../contract/connections';
import { readTranscript } from '../llm/transcript';
import { WorkbenchError } from '../contract/errors';
import type { RunProgress, RunStatus } from '../contract/run';
import type { Connector } from '../connectors/connector';
import { defaultRunLimits, type ResumeState } from '../engine/decision-run';
import { executeRun } from '../engine/run-setup';
import { techniqueNamed } from '../engine/techniques/registry';
import type { ReviewDecision, ReviewGate, ReviewRequest } from '../engine/review-gate';
import type { CellSink } from '../engine/run-cells';
import { simulatorFor, type RunSimulator } from '../simulators/run-simulator';
import { createOpenAiProvider } from '../llm/openai-provider';
import type { LocalModelSettings } from '../llm/local/local-settings';
import type { ModelProvider } from '../llm/types';
import type { ProviderSettings } from '../contract/model';
import type { Environment } from '../workspace/clock';
import type { NotebookStore } from '../workspace/notebook-store';
import type { RunStore } from '../workspace/run-store';

/** The model a run uses, with what its records say about it. */
interface RunModel {
  provider: ModelProvider;
  /** For the transcript header (never an API key: the recorder strips it). */
  recordedSettings: ProviderSettings | LocalModelSettings;
  /** For the run-start event: endpoint (a file: URL for a local model), model name, sampling. */
  details: Pick<ProviderSettings, 'baseUrl' | 'model' | 'temperature' | 'maxTokens'>;
  toolMode: 'tools' | 'text';
  /** The model's context window, which the run keeps its prompts inside; null when unknown. */
  contextTokens: number | null;
}

interface LiveRun {
  progress: RunProgress;
  controller: AbortController;
  answerReview: ((decision: ReviewDecision) => void) | null;
}

/** What a run is started with; stored with the run so an interrupted one can be resumed. */
const runStartSchema = z.object({
  notebookId: z.string(),
  connectionId: z.string(),
  connectionName: z.string(),
  question: z.string(),
  rules: z.string(),
  technique: techniqueIdSchema,
  mode: z.enum(['auto', 'step']),
  maxSteps: z.number().int().optional(),
  simulatorRules: z.enum(['stated', 'compat', 'off']),
  /** Absent in runs stored before the what-if tool existed: those offered no `whatif`. */
  whatIf: z.boolean().default(false),
  known: z.object({ country: z.string().optional(), home: z.string().optional(), goods: z.string().optional() }),
});
export type RunStart = z.infer<typeof runStartSchema>;

/** The query cells a run already wrote, by query id, so a resumed run's evidence links to them. */
function queryCellsOf(cells: Cell[], runId: string): Map<string, string> {
  return new Map(
    cells
      .flatMap((cell) => (cell.kind === 'query' && cell.provenance.runId === runId && cell.data.queryId ? [[cell.data.queryId, cell.id] as const] : [])),
  );
}

/**
 * Runs decision makers inside the workspace: each run's events go to the run log in the
 * database, become cells of its notebook as they happen, and are pushed to every client. In
 * step mode the run waits at each query and re-plan until `review` answers.
 */
export class RunManager {
  private readonly live = new Map<string, LiveRun>();
  private readonly ending = new Set<Promise<void>>();

  constructor(
    private readonly dependencies: {
      notebooks: NotebookStore;
      runs: RunStore;
      environment: Environment;
      connector(connectionId: string): Promise<Connector>;
      /** The saved target of a connection, for the run's fingerprint (file hash). */
      connectionTarget(connectionId: string): ConnectionTarget;
      modelSettings(): ProviderSettings | null;
      /** Injected by tests to drive a run without HTTP; defaults to the OpenAI-compatible provider. */
      providerFor?: (settings: ProviderSettings) => ModelProvider;
      /** The local model selected in the model manager, which runs use instead of the endpoint; null: none. */
      localModel?: () => { provider: ModelProvider; settings: LocalModelSettings; contextTokens?: number | null } | null;
      emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
    },
  ) {}

  /** The model runs use: the selected local model, else the configured endpoint. */
  private runModel(): RunModel {
    const local = this.dependencies.localModel?.() ?? null;
    if (local) {
      const { settings } = local;
      return {
        provider: local.provider,
        recordedSettings: settings,
        details: { baseUrl: pathToFileURL(settings.modelPath).href, model: basename(settings.modelPath), temperature: settings.temperature, maxTokens: settings.maxTokens },
        toolMode: 'tools',
        contextTokens: local.contextTokens ?? null,
      };
    }
    const settings = this.dependencies.modelSettings();
    if (!settings) throw new WorkbenchError('invalid-request', 'Set up a model endpoint first (Model settings in the sidebar)');
    return {
      provider: (this.dependencies.providerFor ?? createOpenAiProvider)(settings),
      recordedSettings: settings,
      details: settings,
      toolMode: settings.toolMode === 'text' ? 'text' : 'tools',
      contextTokens: null,
    };
  }

  async start(request: RunStart): Promise<{ runId: string }> {
    techniqueNamed(request.technique); // an unknown technique is refused before anything is stored
    const settings = this.runModel();
    const { notebooks, runs, environment } = this.dependencies;
    const notebook = notebooks.get(request.notebookId);
    const connector = await this.dependencies.connector(request.connectionId);
    const simulator = await simulatorFor(connector, { rules: request.simulatorRules, known: request.known });
    const runId = `run-${environment.newId()}`;
    const startedAt = environment.now();
    runs.create({
      id: runId,
      notebookId: request.notebookId,
      connectionId: request.connectionId,
      technique: request.technique,
      mode: request.mode,
      question: request.question,
      createdAt: startedAt,
      request,
    });
    await this.launch({ runId, request, settings, connector, simulator, notebookCells: notebook.cells, startedAt, resume: null });
    return { runId };
  }

  /**
   * Carries on a run the app stopped in the middle of: its log and transcript say where it
   * stood; the chain, the transcript and the notebook continue from there.
   */
  async resume(runId: string): Promise<void> {
    const settings = this.runModel();
    const { notebooks, runs, environment } = this.dependencies;
    const stored = runStartSchema.safeParse(runs.interruptedRequest(runId));
    if (!stored.success) throw new WorkbenchError('unsupported', 'This run was started by an older version and cannot be resumed');
    const request = stored.data;
    const entries = runs.events(runId);
    const transcript = readTranscript(runs.transcript(runId));
    const notebook = notebooks.get(request.notebookId);
    const connector = await this.dependencies.connector(request.connectionId);
    const simulator = await simulatorFor(connector, { rules: request.simulatorRules, known: request.known });
    runs.markResumed(runId);
    await this.launch({
      runId,
      request,
      settings,
      connector,
      simulator,
      notebookCells: notebook.cells,
      startedAt: environment.now(),
      resume: {
        state: resumeStateFor(entries, transcript, runs.checkpoint(runId)),
        lastEntry: entries.at(-1) ?? null,
        transcriptLines: runs.transcriptLineCount(runId),
        exchanges: transcript.exchanges.length,
      },
    });
  }

  private async launch(context: {
    runId: string;
    request: RunStart;
    settings: RunModel;
    connector: Connector;
    simulator: RunSimulator | null;
    notebookCells: Cell[];
    startedAt: string;
    resume: { state: ResumeState; lastEntry: LoggedEvent | null; transcriptLines: number; exchanges: number } | null;
  }): Promise<void> {
    const { runId, request, settings, connector, simulator, startedAt, resume } = context;
    const { notebooks, runs, environment } = this.dependencies;
    const maxSteps = request.maxSteps ?? defaultRunLimits.maxSteps;
    const run: LiveRun = {
      progress: {
        runId,
        notebookId: request.notebookId,
        technique: request.technique,
        status: 'running',
        mode: request.mode,
        step: resume?.state.steps ?? 0,
        maxSteps,
        startedAt,
        totalTokens: resume?.state.tokens ?? 0,
        pendingReview: null,
        message: null,
      },
      controller: new AbortController(),
      answerReview: null,
    };
    this.live.set(runId, run);

    let transcriptSeq = resume?.transcriptLines ?? 0;
    // The mode can change while the run goes (pause, resume), so the gate reads it each time.
    const gate: ReviewGate = {
      get interactive() {
        return run.progress.mode === 'step';
      },
      review: (review, signal) => (run.progress.mode === 'step' ? this.waitForReview(run, review, signal) : Promise.resolve({ action: 'approve' })),
    };
    const cells: CellSink = {
      insert: (draft, afterCellId) => {
        const cell = notebooks.insertCell({ ...draft, notebookId: request.notebookId, afterCellId });
        this.dependencies.emit('cell-change', { notebookId: request.notebookId, cell });
        return cell.id;
      },
      saveOutput: (cellId, output) => {
        notebooks.saveOutput(cellId, output);
        this.dependencies.emit('cell-change', { notebookId: request.notebookId, cell: notebooks.getCell(cellId) });
      },
    };

    this.dependencies.emit('run-progress', run.progress);
    const ended = executeRun({
      runId,
      question: request.question,
      rules: request.rules,
      technique: request.technique,
      connector,
      target: this.dependencies.connectionTarget(request.connectionId),
      connectionDescription: `${request.connectionName} (${connector.engine})`,
      model: { provider: settings.provider, settings: settings.recordedSettings, details: settings.details, toolMode: settings.toolMode },
      transcript: {
        write: (line) => runs.appendTranscriptLine(runId, transcriptSeq++, line),
        ...(resume ? { continueAt: resume.exchanges } : {}),
      },
      log: { append: (entry) => runs.appendEvent(entry), lastEntry: resume?.lastEntry ?? null, now: environment.now },
      cells: {
        sink: cells,
        connectionId: request.connectionId,
        afterCellId: context.notebookCells.at(-1)?.id ?? null,
        knownQueryCells: queryCellsOf(context.notebookCells, runId),
      },
      simulator,
      whatIf: request.whatIf,
      limits: { maxSteps, ...(settings.contextTokens ? { contextTokens: settings.contextTokens } : {}) },
      gate,
      signal: run.controller.signal,
      onToken: (text) => this.dependencies.emit('run-token', { runId, text }),
      onEvent: ({ event }) => {
        if (event.type === 'model-response') this.update(run, { step: event.step, totalTokens: run.progress.totalTokens + (event.usage?.totalTokens ?? 0) });
      },
      ...(resume ? { resume: resume.state } : {}),
      onCheckpoint: (state) => runs.saveCheckpoint(runId, state),
    })
      .then(
        (outcome) => this.end(run, outcome.status, outcome.decision, outcome.message),
        (error: unknown) => this.end(run, 'failed', null, `The run failed unexpectedly: ${WorkbenchError.from(error).message}`),
      )
      .finally(() => this.ending.delete(ended));
    this.ending.add(ended);
  }

  review(runId: string, decision: ReviewDecision): void {
    const run = this.liveRun(runId);
    if (!run.answerReview) throw new WorkbenchError('conflict', 'This run is not waiting for a review');
    run.answerReview(decision);
  }

  /** Pausing takes effect at the next query or re-plan; resuming also approves what is waiting. */
  setMode(runId: string, mode: 'auto' | 'step'): void {
    const run = this.liveRun(runId);
    this.update(run, { mode });
    if (mode === 'auto') run.answerReview?.({ action: 'approve' });
  }

  stop(runId: string): void {
    const run = this.liveRun(runId);
    run.controller.abort();
    run.answerReview?.({ action: 'stop' });
  }

  active(): RunProgress[] {
    return [...this.live.values()].map((run) => run.progress);
  }

  /** Stops every run and waits until each has written its end to the log. */
  async stopAll(): Promise<void> {
    for (const run of this.live.values()) this.stop(run.progress.runId);
    await Promise.all([...this.ending]);
  }

  private waitForReview(run: LiveRun, review: ReviewRequest, signal: AbortSignal | undefined): Promise<ReviewDecision> {
    return new Promise((resolve) => {
      const answer = (decision: ReviewDecision): void => {
        run.answerReview = null;
        signal?.removeEventListener('abort', onAbort);
        this.update(run, { pendingReview: null });
        resolve(decision);
      };
      const onAbort = (): void => answer({ action: 'stop' });
      signal?.addEventListener('abort', onAbort, { once: true });
      run.answerReview = answer;
      this.update(run, { pendingReview: review });
    });
  }

  private end(run: LiveRun, status: Exclude<RunStatus, 'running'>, decision: string | null, message: string | null): void {
    this.dependencies.runs.finish(run.progress.runId, { status, decision, message, endedAt: this.dependencies.environment.now() });
    this.update(run, { status, message, pendingReview: null });
    this.live.delete(run.progress.runId);
  }

  private update(run: LiveRun, change: Partial<RunProgress>): void {
    run.progress = { ...run.progress, ...change };
    this.dependencies.emit('run-progress', run.progress);
  }

  private liveRun(runId: string): LiveRun {
    const run = this.live.get(runId);
    if (!run) throw new WorkbenchError('not-found', `No run ${runId} is going`);
    return run;
  }
}
