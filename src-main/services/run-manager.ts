import type { EventName, EventPayload } from '../contract/api';
import { WorkbenchError } from '../contract/errors';
import type { RunProgress, RunStatus } from '../contract/run';
import type { Connector } from '../connectors/connector';
import { defaultRunLimits, runDecision } from '../engine/decision-run';
import type { ReviewDecision, ReviewGate, ReviewRequest } from '../engine/review-gate';
import { createRunCellWriter } from '../engine/run-cells';
import { RunLog } from '../engine/run-log';
import type { TechniqueId } from '../engine/techniques';
import { createOpenAiProvider } from '../llm/openai-provider';
import { recordingProvider, writeTranscriptLine } from '../llm/transcript';
import type { ModelProvider } from '../llm/types';
import type { ProviderSettings } from '../contract/model';
import type { Environment } from '../workspace/clock';
import type { NotebookStore } from '../workspace/notebook-store';
import type { RunStore } from '../workspace/run-store';

interface LiveRun {
  progress: RunProgress;
  controller: AbortController;
  answerReview: ((decision: ReviewDecision) => void) | null;
}

export interface RunStart {
  notebookId: string;
  connectionId: string;
  connectionName: string;
  question: string;
  rules: string;
  technique: TechniqueId;
  mode: 'auto' | 'step';
  maxSteps?: number;
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
      modelSettings(): ProviderSettings | null;
      /** Injected by tests to drive a run without HTTP; defaults to the OpenAI-compatible provider. */
      providerFor?: (settings: ProviderSettings) => ModelProvider;
      emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
    },
  ) {}

  async start(request: RunStart): Promise<{ runId: string }> {
    const settings = this.dependencies.modelSettings();
    if (!settings) throw new WorkbenchError('invalid-request', 'Set up a model endpoint first (Model settings in the sidebar)');
    const { notebooks, runs, environment } = this.dependencies;
    const notebook = notebooks.get(request.notebookId);
    const connector = await this.dependencies.connector(request.connectionId);
    const runId = `run-${environment.newId()}`;
    const startedAt = environment.now();
    runs.create({ id: runId, notebookId: request.notebookId, connectionId: request.connectionId, technique: request.technique, mode: request.mode, question: request.question, createdAt: startedAt });

    const maxSteps = request.maxSteps ?? defaultRunLimits.maxSteps;
    const run: LiveRun = {
      progress: { runId, notebookId: request.notebookId, technique: request.technique, status: 'running', step: 0, maxSteps, startedAt, totalTokens: 0, pendingReview: null, message: null },
      controller: new AbortController(),
      answerReview: null,
    };
    this.live.set(runId, run);

    const log = new RunLog(runId, environment.now);
    log.onEntry((entry) => runs.appendEvent(entry));
    log.onEntry(
      createRunCellWriter(
        {
          insert: (draft, afterCellId) => {
            const cell = notebooks.insertCell({ ...draft, notebookId: request.notebookId, afterCellId });
            this.dependencies.emit('cell-change', { notebookId: request.notebookId, cell });
            return cell.id;
          },
          saveOutput: (cellId, output) => {
            notebooks.saveOutput(cellId, output);
            this.dependencies.emit('cell-change', { notebookId: request.notebookId, cell: notebooks.getCell(cellId) });
          },
        },
        { runId, connectionId: request.connectionId, afterCellId: notebook.cells.at(-1)?.id ?? null },
      ),
    );
    log.onEntry(({ event }) => {
      if (event.type === 'model-response') this.update(run, { step: event.step, totalTokens: run.progress.totalTokens + (event.usage?.totalTokens ?? 0) });
    });

    let transcriptSeq = 0;
    const provider = recordingProvider(
      (this.dependencies.providerFor ?? createOpenAiProvider)(settings),
      (line) => runs.appendTranscriptLine(runId, transcriptSeq++, writeTranscriptLine(line)),
      { settings, now: environment.now },
    );
    const gate: ReviewGate =
      request.mode === 'step'
        ? { interactive: true, review: (review, signal) => this.waitForReview(run, review, signal) }
        : { interactive: false, review: async () => ({ action: 'approve' }) };

    this.dependencies.emit('run-progress', run.progress);
    const ended = runDecision({
      question: request.question,
      rules: request.rules,
      technique: request.technique,
      connector,
      connectionDescription: `${request.connectionName} (${connector.engine})`,
      provider,
      toolMode: settings.toolMode === 'text' ? 'text' : 'tools',
      limits: { ...defaultRunLimits, maxSteps },
      gate,
      emit: (event) => log.append(event),
      signal: run.controller.signal,
      onToken: (text) => this.dependencies.emit('run-token', { runId, text }),
    })
      .then(
        (outcome) => this.end(run, outcome.status, outcome.decision, outcome.message),
        (error: unknown) => this.end(run, 'failed', null, `The run failed unexpectedly: ${WorkbenchError.from(error).message}`),
      )
      .finally(() => this.ending.delete(ended));
    this.ending.add(ended);
    return { runId };
  }

  review(runId: string, decision: ReviewDecision): void {
    const run = this.liveRun(runId);
    if (!run.answerReview) throw new WorkbenchError('conflict', 'This run is not waiting for a review');
    run.answerReview(decision);
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
