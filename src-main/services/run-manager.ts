import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EventName, EventPayload } from '../contract/api';
import type { Cell } from '../contract/notebook';
import type { RunDocument } from '../contract/documents';
import { jsonForecastStore } from '../engine/techniques/dellma/forecast-store';
import type { LoggedEvent } from '../audit/hash-chain';
import { resumeStateFor } from '../engine/resume-state';
import { rerunSeed } from '../engine/techniques/plan-dag/rerun';
import type { ConnectionTarget } from '../contract/connections';
import { readTranscript } from '../llm/transcript';
import { WorkbenchError } from '../contract/errors';
import { decisionCheck, type RunProgress, type RunStatus } from '../contract/run';
import type { Connector } from '../connectors/connector';
import { defaultRunLimits, type ResumeState } from '../engine/decision-run';
import { checkedSimulator, executeRun } from '../engine/run-setup';
import type { RunThreads } from '../engine/run-details';
import { techniqueNamed } from '../engine/techniques/registry';
import type { TechniqueDefinition, TechniqueHost } from '../engine/techniques/technique';
import { checkedTechniqueOptions, refuseTechniqueOptions } from '../engine/techniques/technique-options';
import { plannedLibraryReference } from '../engine/techniques/pearl/options';
import { readStoredRunStart, type RunStart } from './run-start';
import { requirePlaybook } from '../engine/techniques/playbook-required';
import type { DecisionOrigin } from '../contract/produced-by';
import type { ActionLibrary } from '../engine/techniques/pearl/library';
import { mineActions, type MiningResult } from '../engine/techniques/pearl/mining';
import { refineDemonstration } from '../engine/techniques/pearl/refine';
import type { Demonstration } from '../engine/techniques/pearl/library';
import { recogniseScenario } from '../simulators/scenario';
import type { ReviewDecision, ReviewGate } from '../engine/review-gate';
import { PendingReviews } from './pending-reviews';
import type { CellSink } from '../engine/run-cells';
import { simulatorFor, type RunSimulator } from '../simulators/run-simulator';
import { createOpenAiProvider } from '../llm/openai-provider';
import type { LocalModelSettings } from '../llm/local/local-settings';
import type { ModelProvider } from '../llm/types';
import type { ProviderSettings } from '../contract/model';
import type { Environment } from '../workspace/clock';
import type { NotebookStore } from '../workspace/notebook-store';
import type { RunStore } from '../workspace/run-store';
import { connectionTaskType, type PlaybookStore } from '../engine/techniques/autoplan/playbook-store';

export type { RunStart } from './run-start';

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
  /** A local model's thread choice (loads it), for the run-start event. */
  threads?: () => Promise<RunThreads>;
}

interface LiveRun {
  progress: RunProgress;
  controller: AbortController;
  /** The reviews the run waits on, by key (step and node), so two waiting at once are both answered. */
  reviews: PendingReviews;
  /** Settles once the run has written its end. */
  ended: Promise<void>;
}


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
      /** A workspace action library by id (Pearl runs that name one). */
      actionLibrary?: (id: string) => ActionLibrary;
      /** Counts the library actions a Pearl run's steps called toward that library's usage. */
      recordActionUsage?: (id: string, actionsCalled: string[]) => void;
      /** Injected by tests to drive a run without HTTP; defaults to the OpenAI-compatible provider. */
      providerFor?: (settings: ProviderSettings) => ModelProvider;
      /** The local model selected in the model manager, which runs use instead of the endpoint; null: none. */
      localModel?: () => { provider: ModelProvider; settings: LocalModelSettings; contextTokens?: number | null; threads?: () => Promise<RunThreads> } | null;
      /** The workspace's playbooks, for techniques that follow one (AutoPlan). */
      playbooks?: PlaybookStore;
      /** The documents attached to a notebook, as a run receives them; absent: none. */
      documents?: (notebookId: string) => RunDocument[];
      /** The JSON file where DeLLMa runs keep the model's forecasts for later runs with the same context; absent: none kept. */
      forecastStorePath?: string;
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
        ...(local.threads ? { threads: local.threads } : {}),
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

  /**
   * The playbook version an AutoPlan run follows: the one the request names (checked to exist),
   * else the pinned one of the data's task type (DQA scenario, or else the connection, × relational
   * or graph); none without.
   */
  private async playbookFor(request: RunStart, technique: TechniqueDefinition, connector: Connector): Promise<string | undefined> {
    const store = this.dependencies.playbooks;
    if (!technique.usesPlaybook || !store) return undefined;
    if (request.playbook !== undefined) return store.find(request.playbook).version.hash;
    const schema = await connector.schema();
    const scenario = recogniseScenario(schema) ?? connectionTaskType(request.connectionId);
    return store.pinned(scenario, schema.kind === 'relational' ? 'rdb' : 'gdb')?.hash;
  }

  async start(input: RunStart, seed?: unknown): Promise<{ runId: string }> {
    // The technique is resolved once (an unknown one refused before anything is stored) and passed down.
    const technique = techniqueNamed(input.technique);
    // Its own options, checked with its own schema; then what it refuses about the question or what the options refer to.
    const techniqueOptions = checkedTechniqueOptions(technique, input.techniqueOptions);
    refuseTechniqueOptions(technique, { question: input.question, options: techniqueOptions, host: this.techniqueHost() });
    const settings = this.runModel();
    const { notebooks, runs, environment } = this.dependencies;
    const notebook = notebooks.get(input.notebookId);
    const connector = await this.dependencies.connector(input.connectionId);
    const playbook = await this.playbookFor(input, technique, connector);
    requirePlaybook(technique.id, playbook, 'none was chosen for the run and none is pinned for this data');
    // The notebook's attached documents go with the request (and so with a resume or a re-run) for the techniques that read them.
    const documents = input.documents ?? (technique.usesDocuments ? (this.dependencies.documents?.(input.notebookId) ?? []) : []);
    const { techniqueOptions: _given, ...rest } = input;
    const request: RunStart = { ...rest, ...(techniqueOptions ? { techniqueOptions } : {}), ...(playbook !== undefined ? { playbook } : {}), ...(documents.length ? { documents } : {}) };
    // Parameters read from the question where the composer left them empty; the analyst's own, when not in the data, are refused here.
    const check = await checkedSimulator(connector, request.simulator, request.question);
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
    await this.launch({ runId, request, technique, settings, connector, ...check, notebookCells: notebook.cells, startedAt, resume: null, seed });
    return { runId };
  }

  /** What the workspace lends techniques: its action libraries and their usage counts. */
  private techniqueHost(): TechniqueHost {
    const { actionLibrary, recordActionUsage } = this.dependencies;
    return { ...(actionLibrary ? { actionLibrary } : {}), ...(recordActionUsage ? { recordActionUsage: (id, called) => recordActionUsage(id, [...called]) } : {}) };
  }

  /** A stored run's request in today's shape (older shapes read into it), or the error saying it cannot be. */
  private storedRequest(runId: string, stored: unknown, refusal: string): RunStart {
    const request = readStoredRunStart(stored);
    if (!request) throw new WorkbenchError('unsupported', refusal);
    return request;
  }

  /**
   * Mines Pearl actions from the analyst's own past questions on a connection (and their rules'
   * formula terms, mining.ts), with the run model; the DQA templates alone give too few.
   */
  async mineFromPastQuestions(connectionId: string, from: ActionLibrary | undefined, signal?: AbortSignal): Promise<MiningResult & { questions: number }> {
    const questions = this.dependencies.runs.pastQuestions(connectionId);
    if (questions.length === 0) throw new WorkbenchError('invalid-request', 'No question has been asked of this data yet: ask a few first, then mine actions from them');
    const settings = this.runModel();
    const connector = await this.dependencies.connector(connectionId);
    const scenario = recogniseScenario(await connector.schema()) ?? 'any';
    const schema = connector.engine === 'kuzu' || connector.engine === 'neo4j' ? 'graph' : 'relational';
    const result = await mineActions({ questions, provider: settings.provider, scenario, schema, ...(from ? { library: from } : {}), ...(signal ? { signal } : {}) });
    return { ...result, questions: questions.length };
  }

  /**
   * Refines a library's demonstrations (refine.ts) on the analyst's past questions of a
   * connection whose parameters the run named (country and home node, or goods), so that the
   * simulator knows each one's best decision; the others cannot be judged and are left out.
   */
  async refineOnPastQuestions(connectionId: string, library: ActionLibrary): Promise<{ outcomes: { question: string; tries: number; kept: boolean }[]; demonstrations: Demonstration[] }> {
    const connector = await this.dependencies.connector(connectionId);
    const scenario = recogniseScenario(await connector.schema());
    const judged = this.dependencies.runs.pastQuestions(connectionId).flatMap((past) => {
      const stored = readStoredRunStart(this.dependencies.runs.request(past.id));
      const known = stored?.simulator.known ?? {};
      return known.country && (known.home || known.goods) ? [{ ...past, known, simulatorRules: stored?.simulator.rules === 'stated' ? ('stated' as const) : ('compat' as const) }] : [];
    });
    if (scenario === null) throw new WorkbenchError('invalid-request', 'This data is not a scenario the simulator knows, so it cannot judge a demonstration');
    if (judged.length === 0) throw new WorkbenchError('invalid-request', 'No past question on this data names what the simulator needs (the country and home node, or goods): ask one with them first, then refine');
    const settings = this.runModel();
    const outcomes: { question: string; tries: number; kept: boolean }[] = [];
    const demonstrations: Demonstration[] = [];
    for (const past of judged) {
      const simulator = await simulatorFor(connector, { rules: past.simulatorRules, known: past.known });
      if (!simulator) continue;
      const result = await refineDemonstration({ question: past.question, rules: past.rules, scenario, connector, provider: settings.provider, toolMode: settings.toolMode, simulator, library });
      outcomes.push({ question: past.question, tries: result.attempts.length, kept: result.accepted !== null });
      if (result.accepted) demonstrations.push(result.accepted);
    }
    return { outcomes, demonstrations };
  }

  /** The workspace library a program-running (Pearl) run planned with: the one it named, else the seed (the app offers no other). */
  libraryIdOf(runId: string): string {
    const stored = this.storedRequest(runId, this.dependencies.runs.request(runId), `Run ${runId} was started by an older version and names no library`);
    this.requireProgramRun(runId, stored, 'it has no action library');
    return plannedLibraryReference(stored.techniqueOptions);
  }

  /** Refuses a run whose technique runs no analyst program (only those have steps, a program and a library). */
  private requireProgramRun(runId: string, stored: RunStart, what: string): void {
    const technique = techniqueNamed(stored.technique);
    if (!technique.runsPrograms) throw new WorkbenchError('invalid-request', `Run ${runId} used ${technique.label}, which runs no program: ${what}`);
  }

  /**
   * Re-runs one step of a Pearl run and every step that depends on it, as a new run of the same
   * program: the other steps keep the outputs they had (recorded as kept), so only the step and
   * what follows from it ask the model and the database again.
   */
  async rerunStep(fromRunId: string, stepId: string, mode: 'auto' | 'step'): Promise<{ runId: string }> {
    const stored = this.storedRequest(fromRunId, this.dependencies.runs.request(fromRunId), `Run ${fromRunId} was started by an older version; start a new Pearl run instead`);
    this.requireProgramRun(fromRunId, stored, 'it has no steps to re-run');
    let program: string | null = null;
    const outputs: Record<string, string> = {};
    for (const { event } of this.dependencies.runs.events(fromRunId)) {
      if (event.type !== 'tool') continue;
      const input = event.input as { valid?: unknown; program?: unknown; output?: unknown };
      if (event.tool === 'pearl-program' && input.valid === true && typeof input.program === 'string') program = input.program;
      if (event.tool === 'pearl-step' && event.node && typeof input.output === 'string') outputs[event.node] = input.output;
    }
    if (program === null) throw new WorkbenchError('invalid-request', `Run ${fromRunId} ran no program, so it has no step to re-run`);
    if (!(stepId in outputs)) throw new WorkbenchError('invalid-request', `Run ${fromRunId} has no finished step ${stepId} to re-run (its steps: ${Object.keys(outputs).join(', ') || 'none'})`);
    return this.start({ ...stored, mode, program, keptOutputs: { fromRunId, step: stepId, outputs } });
  }

  /**
   * Runs an analyst's Pearl program as a new run, with the connection, question, rules and
   * simulator of the run it was edited from.
   */
  async runProgram(fromRunId: string, program: string, mode: 'auto' | 'step'): Promise<{ runId: string }> {
    const stored = this.storedRequest(fromRunId, this.dependencies.runs.request(fromRunId), `Run ${fromRunId} was started by an older version; start a new Pearl run instead`);
    this.requireProgramRun(fromRunId, stored, 'it has no program to run again');
    const { keptOutputs: _kept, ...request } = stored;
    return this.start({ ...request, mode, program });
  }

  /**
   * A new run that re-runs one node of an ended or paused Plan*RAG run and its descendants [ext]
   * (engine/techniques/plan-dag/rerun.ts); same question, data and settings as that run.
   */
  async rerunNode(fromRunId: string, rerun: { node: string; question?: string | undefined; pinned?: string | undefined }): Promise<{ runId: string }> {
    // A run paused at a review point is stopped there, and the re-run starts from what it had answered.
    const live = this.live.get(fromRunId);
    if (live && live.reviews.size === 0) throw new WorkbenchError('conflict', 'This run is still going; pause it (it waits at its next review point) or let it end, then re-run the node');
    if (live) {
      this.stop(fromRunId);
      await live.ended;
    }
    const stored = this.storedRequest(fromRunId, this.dependencies.runs.request(fromRunId), 'This run was started by an older version and cannot be re-run');
    const seed = rerunSeed(this.dependencies.runs.events(fromRunId).map((entry) => entry.event), { fromRun: fromRunId, ...rerun });
    return this.start(stored, seed);
  }

  /**
   * Carries on a run the app stopped in the middle of: its log and transcript say where it
   * stood; the chain, the transcript and the notebook continue from there.
   */
  async resume(runId: string): Promise<void> {
    const settings = this.runModel();
    const { notebooks, runs, environment } = this.dependencies;
    const request = this.storedRequest(runId, runs.interruptedRequest(runId), 'This run was started by an older version and cannot be resumed');
    const technique = techniqueNamed(request.technique);
    const entries = runs.events(runId);
    const transcript = readTranscript(runs.transcript(runId));
    const notebook = notebooks.get(request.notebookId);
    const connector = await this.dependencies.connector(request.connectionId);
    const check = await checkedSimulator(connector, request.simulator, request.question);
    runs.markResumed(runId);
    await this.launch({
      runId,
      request,
      technique,
      settings,
      connector,
      ...check,
      notebookCells: notebook.cells,
      startedAt: environment.now(),
      resume: {
        state: resumeStateFor(entries, transcript, runs.checkpoint(runId)),
        lastEntry: entries.at(-1) ?? null,
        earlier: entries,
        transcriptLines: runs.transcriptLineCount(runId),
        exchanges: transcript.exchanges.length,
      },
    });
  }

  private playbookText(hash: string | undefined): { playbook: string; playbookVersion: string } | Record<string, never> {
    if (hash === undefined || !this.dependencies.playbooks) return {};
    const { version } = this.dependencies.playbooks.find(hash);
    return { playbook: version.playbook, playbookVersion: version.hash };
  }

  private async launch(context: {
    runId: string;
    request: RunStart;
    /** The run's technique, resolved once by `start` or `resume`. */
    technique: TechniqueDefinition;
    settings: RunModel;
    connector: Connector;
    simulator: RunSimulator | null;
    /** Why the decision will not be checked (the check plan's reason), or null. */
    uncheckedReason: string | null;
    notebookCells: Cell[];
    startedAt: string;
    resume: { state: ResumeState; lastEntry: LoggedEvent | null; earlier: readonly LoggedEvent[]; transcriptLines: number; exchanges: number } | null;
    seed?: unknown;
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
        pendingReviews: [],
        queryLanguage: context.connector.engine === 'kuzu' || context.connector.engine === 'neo4j' ? 'cypher' : 'sql',
        message: null,
      },
      controller: new AbortController(),
      reviews: new PendingReviews((pending) => this.update(run, { pendingReview: pending[0] ?? null, pendingReviews: pending })),
      ended: Promise.resolve(),
    };
    this.live.set(runId, run);

    let transcriptSeq = resume?.transcriptLines ?? 0;
    // The mode can change while the run goes (pause, resume), so the gate reads it each time.
    const gate: ReviewGate = {
      get interactive() {
        return run.progress.mode === 'step';
      },
      review: (review, signal) => (run.progress.mode === 'step' ? run.reviews.wait(review, signal) : Promise.resolve({ action: 'approve' })),
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
      rewrite: (cellId, content) => {
        this.dependencies.emit('cell-change', { notebookId: request.notebookId, cell: notebooks.rewriteRunCell(cellId, content) });
      },
    };

    this.dependencies.emit('run-progress', run.progress);
    const ended = executeRun({
      runId,
      question: request.question,
      rules: request.rules,
      technique: context.technique.id,
      connector,
      target: this.dependencies.connectionTarget(request.connectionId),
      connectionDescription: `${request.connectionName} (${connector.engine})`,
      model: { provider: settings.provider, settings: settings.recordedSettings, details: settings.details, toolMode: settings.toolMode, ...(settings.threads ? { threads: settings.threads } : {}) },
      transcript: {
        write: (line) => runs.appendTranscriptLine(runId, transcriptSeq++, line),
        ...(resume ? { continueAt: resume.exchanges } : {}),
      },
      log: { append: (entry) => runs.appendEvent(entry), lastEntry: resume?.lastEntry ?? null, ...(resume ? { earlier: resume.earlier } : {}), now: environment.now },
      cells: {
        sink: cells,
        connectionId: request.connectionId,
        afterCellId: context.notebookCells.at(-1)?.id ?? null,
        knownQueryCells: queryCellsOf(context.notebookCells, runId),
      },
      simulator,
      uncheckedReason: context.uncheckedReason,
      whatIf: request.whatIf,
      ...this.playbookText(request.playbook),
      limits: { maxSteps, ...(settings.contextTokens ? { contextTokens: settings.contextTokens } : {}) },
      gate,
      signal: run.controller.signal,
      onToken: (text) => this.dependencies.emit('run-token', { runId, text }),
      onEvent: ({ event }) => {
        if (event.type === 'run-start' && event.model.threads) this.update(run, { threads: { count: event.model.threads.count, auto: event.model.threads.auto } });
        if (event.type === 'model-response') this.update(run, { step: event.step, totalTokens: run.progress.totalTokens + (event.usage?.totalTokens ?? 0) });
        if (event.type === 'decision') this.update(run, { check: decisionCheck(event) });
        // Who decided, for the run bar: a fallback or a tool-assisted decision says so there.
        if (event.type === 'decision' && event.origin) this.update(run, { decidedBy: event.origin });
      },
      ...(resume ? { resume: resume.state } : {}),
      ...(request.program !== undefined ? { program: request.program } : {}),
      ...(request.techniqueOptions ? { techniqueOptions: request.techniqueOptions } : {}),
      host: this.techniqueHost(),
      fidelity: { fidelity: request.fidelity, ...(request.temperature !== undefined ? { temperature: request.temperature } : {}) },
      ...(request.documents?.length ? { documents: request.documents } : {}),
      ...(this.dependencies.forecastStorePath ? { forecastStore: jsonForecastStore(this.dependencies.forecastStorePath, runId) } : {}),
      ...(context.seed !== undefined ? { seed: context.seed } : {}),
      ...(request.keptOutputs ? { keptOutputs: request.keptOutputs } : {}),
      onCheckpoint: (state) => runs.saveCheckpoint(runId, state),
    })
      .then(
        (outcome) => {
          this.end(run, outcome.status, outcome.decision, outcome.message, outcome.decidedBy ?? null);
        },
        (error: unknown) => {
          this.end(run, 'failed', null, `The run failed unexpectedly: ${WorkbenchError.from(error).message}`);
        },
      )
      .finally(() => this.ending.delete(ended));
    this.ending.add(ended);
    run.ended = ended;
  }

  /** Answers the review `key` names (`reviewKeyOf`), or the oldest waiting without one. */
  review(runId: string, decision: ReviewDecision, key?: string): void {
    this.liveRun(runId).reviews.answer(key, decision);
  }

  /** Pausing takes effect at the next query or re-plan; resuming also approves every review waiting. */
  setMode(runId: string, mode: 'auto' | 'step'): void {
    const run = this.liveRun(runId);
    this.update(run, { mode });
    if (mode === 'auto') run.reviews.answerAll({ action: 'approve' });
  }

  stop(runId: string): void {
    const run = this.liveRun(runId);
    run.controller.abort();
    run.reviews.answerAll({ action: 'stop' });
  }

  active(): RunProgress[] {
    return [...this.live.values()].map((run) => run.progress);
  }

  /** Stops every run and waits until each has written its end to the log. */
  async stopAll(): Promise<void> {
    for (const run of this.live.values()) this.stop(run.progress.runId);
    await Promise.all([...this.ending]);
  }

  private end(run: LiveRun, status: Exclude<RunStatus, 'running'>, decision: string | null, message: string | null, decidedBy: DecisionOrigin | null = null): void {
    const check = decision === null ? null : (run.progress.check ?? null);
    this.dependencies.runs.finish(run.progress.runId, { status, decision, decidedBy, check, message, endedAt: this.dependencies.environment.now() });
    this.update(run, { status, message, pendingReview: null, pendingReviews: [] });
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
