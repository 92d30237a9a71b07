import type { Fidelity } from '../../src-main/contract';
import type { ActionLibrarySummary, ActionLibraryView, ActionSignatureView, EditedActionView, ProgramErrorView, RunSummary, ConnectionReport, ModelSettingsView, ProviderSettingsInput, ReviewDecisionInput, RunProgress, TechniqueIdValue, TechniqueInfo, PlaybookTask } from '../../src-main/contract';
import type { DellmaCostEstimate, DellmaRunSettingsInput } from '../../src-main/contract/dellma';
import type { SliceContext } from './store';
import { notebookConnectionId } from './notebook-connection';

export type ModelSettingsForm = Omit<Exclude<ProviderSettingsInput, undefined>, 'apiKey'>;

export interface RunDraft {
  question: string;
  rules: string;
  connectionId: string;
  technique: TechniqueIdValue;
  mode: 'auto' | 'step';
  /** Check the decision with a simulator when one fits the data. */
  simulatorRules: 'stated' | 'compat' | 'off';
  /** Offer the model what-if experiments on a throwaway copy of the data (SQLite connections). */
  whatIf: boolean;
  /** Scenario parameters the question names (a DQA question's country and home node, or goods). */
  known: { country?: string; home?: string; goods?: string };
  /**
   * Each technique's own options as its panel set them (Pearl's `actionLibrary`, DeLLMa's
   * variant and sizes), by technique id, so switching technique and back keeps them; only the
   * chosen technique's go to `runs/start` as `techniqueOptions`, which its schema checks.
   */
  techniqueOptions?: Partial<Record<string, Record<string, unknown>>>;
  /** Fidelity to the technique's paper; app runs start at `product` (the labelled extensions on). */
  fidelity: Fidelity;
  /** An explicit temperature for the run's turns; absent: the fidelity's (paper: 0) or the model settings'. */
  temperature?: number;
}

export interface RunsSlice {
  model: ModelSettingsView | null;
  /** Live and just-finished runs, by run id. */
  runs: Record<string, RunProgress>;
  /** Streamed model text of each live run (the tail only). */
  streamedText: Record<string, string>;
  /** Per run, when each piece of the last `rateWindowMs` arrived (ms since the epoch, oldest first). */
  streamedTimes: Record<string, number[]>;
  /** The composer's contents when open (prefilled from a question cell), null when closed. */
  runDraft: RunDraft | null;
  /** Runs of the open notebook that the app stopped in the middle of. */
  interruptedRuns: RunSummary[];
  /** The techniques the main process has registered (empty until loaded). */
  techniques: TechniqueInfo[];

  loadModel(): Promise<void>;
  saveModel(settings: ModelSettingsForm, apiKey: string | undefined): Promise<void>;
  testModel(settings: ModelSettingsForm, apiKey: string | undefined): Promise<ConnectionReport>;
  openRunDraft(draft: Partial<RunDraft>): void;
  closeRunDraft(): void;
  startRun(draft: RunDraft): Promise<void>;
  /** Answers the review `key` names (`reviewKeyOf` of its request) of a run waiting for the analyst. */
  reviewRun(review: { runId: string; key: string }, decision: ReviewDecisionInput): Promise<void>;
  stopRun(runId: string): Promise<void>;
  setRunMode(runId: string, mode: 'auto' | 'step'): Promise<void>;
  loadInterruptedRuns(notebookId: string): Promise<void>;
  resumeRun(runId: string): Promise<void>;
  /** Re-runs a node of a finished Plan*RAG run (and its descendants) as a new run [ext]. */
  rerunNode(runId: string, node: string, change: { question?: string; pinned?: string }): Promise<void>;
  /** [ext] Ranks a batch of a finished DeLLMa run by hand: its re-fit arrives as new cells of the run. */
  rankDellmaBatch(runId: string, batch: number, lines: string[]): Promise<void>;
  /** [ext] Removes an analyst's re-fit (its cells go to the trash; the run log records it). */
  withdrawDellmaRefit(runId: string, node: string): Promise<void>;
  loadActiveRuns(): Promise<void>;
  loadTechniques(): Promise<void>;
  /** The workspace's playbooks per task type (the composer names the pinned one AutoPlan follows). */
  listPlaybooks(): Promise<PlaybookTask[]>;
  /** DeLLMa: the calls and tokens a run would cost, before it starts (the main process's estimate). */
  estimateDellma(question: string, rules: string, settings: DellmaRunSettingsInput): Promise<DellmaCostEstimate>;
  /** Every run of a notebook, newest first (the run history). */
  listRuns(notebookId: string): Promise<RunSummary[]>;
  /** Pearl's program cell: the parser's errors for an edited program. */
  checkProgram(program: string, actions: ActionSignatureView[]): Promise<{ valid: boolean; errors: ProgramErrorView[]; steps: number; newActions: string[] }>;
  /** Pearl's program cell: runs an edited program as a new run of the same question. */
  runProgram(fromRunId: string, program: string, mode: 'auto' | 'step'): Promise<void>;
  /** Pearl's step cells: runs a step again, and what depends on it, as a new run. */
  rerunStep(fromRunId: string, step: string, mode: 'auto' | 'step'): Promise<void>;
  /** Pearl's action libraries in the workspace (the seed first). */
  listActionLibraries(): Promise<ActionLibrarySummary[]>;
  getActionLibrary(id: string, version?: number): Promise<ActionLibraryView>;
  importActionLibrary(path: string): Promise<ActionLibrarySummary>;
  /** Saves an edit of a library's actions as its next version (the seed: as a new library). */
  saveActionLibrary(id: string, actions: EditedActionView[], note: string): Promise<ActionLibrarySummary>;
  /** Mines a library from the past questions on a connection (kept as a proposal), and the analyst's verdict on one. */
  mineActionLibrary(connectionId: string, from: string | undefined): Promise<ActionLibrarySummary>;
  /** Refines the library's demonstrations on the past questions of the data the simulator can judge; the kept ones are its next version. */
  refineActionLibrary(connectionId: string, id: string): Promise<{ library: ActionLibrarySummary | null; outcomes: { question: string; tries: number; kept: boolean }[] }>;
  decideActionLibrary(id: string, accept: boolean): Promise<ActionLibrarySummary>;
  /** Adds a program's new actions to the library its run planned with, as the next version. */
  promoteProgramActions(runId: string, program: string): Promise<ActionLibrarySummary>;
  browseActionLibrary(): Promise<string | null>;
}

const streamTail = 600;
/** The run bar's tokens/s is measured over the pieces of the last five seconds. */
export const rateWindowMs = 5000;

export function createRunsSlice({ client, set, get }: SliceContext): RunsSlice {
  client.on('run-progress', (progress) => {
    set({ runs: { ...get().runs, [progress.runId]: progress } });
    // The notebook list shows cell counts; a finished run has added cells.
    if (progress.status !== 'running') void get().loadNotebooks();
  });
  client.on('run-token', ({ runId, text }) => {
    const previous = get().streamedText[runId] ?? '';
    const at = Date.now();
    // The arrival times of the last few seconds' pieces: the run bar's tokens/s and "last token … ago".
    const recent = (get().streamedTimes[runId] ?? []).filter((time) => at - time <= rateWindowMs);
    set({ streamedText: { ...get().streamedText, [runId]: (previous + text).slice(-streamTail) }, streamedTimes: { ...get().streamedTimes, [runId]: [...recent, at] } });
  });
  // The sidebar's cell counts follow a run as it writes: the open notebook's from its cells, any
  // other's from the workspace, asked at most once per burst of cells.
  let countsRefresh: ReturnType<typeof setTimeout> | null = null;
  const refreshCountsSoon = (): void => {
    if (countsRefresh !== null) return;
    countsRefresh = setTimeout(() => {
      countsRefresh = null;
      void get()
        .loadNotebooks()
        .catch(() => undefined);
    }, 250);
  };
  client.on('cell-change', ({ notebookId, cell }) => {
    if (get().currentNotebookId !== notebookId) {
      refreshCountsSoon();
      return;
    }
    const cells = get().cells;
    const index = cells.findIndex((existing) => existing.id === cell.id);
    const next = index >= 0 ? cells.map((existing) => (existing.id === cell.id ? cell : existing)) : [...cells, cell];
    set({ cells: next, notebooks: get().notebooks.map((notebook) => (notebook.id === notebookId ? { ...notebook, cellCount: next.length } : notebook)) });
  });

  return {
    model: null,
    runs: {},
    streamedText: {},
    streamedTimes: {},
    runDraft: null,
    interruptedRuns: [],
    techniques: [],

    loadModel: async () => set({ model: await client.invoke('model/get', {}) }),
    saveModel: async (settings, apiKey) => {
      set({ model: await client.invoke('model/save', { settings, ...(apiKey === undefined ? {} : { apiKey }) }) });
    },
    testModel: (settings, apiKey) => client.invoke('model/test', { settings, ...(apiKey === undefined ? {} : { apiKey }) }),

    openRunDraft: (draft) => {
      const connectionId = draft.connectionId ?? notebookConnectionId(get().cells, get().connections) ?? '';
      set({ runDraft: { question: '', rules: '', technique: 'planrag', mode: 'auto', simulatorRules: 'stated', whatIf: true, known: {}, fidelity: 'product', ...draft, connectionId } });
    },
    closeRunDraft: () => set({ runDraft: null }),

    startRun: async (draft) => {
      const notebookId = get().currentNotebookId;
      if (!notebookId) throw new Error('Open a notebook first');
      await get().flushEdits();
      const { simulatorRules, known, techniqueOptions, ...rest } = draft;
      const options = techniqueOptions?.[draft.technique];
      await client.invoke('runs/start', { notebookId, ...rest, simulator: { rules: simulatorRules, known }, ...(options && Object.keys(options).length > 0 ? { techniqueOptions: options } : {}) });
      set({ runDraft: null });
    },
    listActionLibraries: () => client.invoke('pearl/libraries/list', {}),
    getActionLibrary: (id, version) => client.invoke('pearl/libraries/get', { id, ...(version !== undefined ? { version } : {}) }),
    saveActionLibrary: (id, actions, note) => client.invoke('pearl/libraries/save', { id, actions, note }),
    mineActionLibrary: (connectionId, from) => client.invoke('pearl/libraries/mine', { connectionId, ...(from !== undefined ? { from } : {}) }),
    refineActionLibrary: (connectionId, id) => client.invoke('pearl/libraries/refine', { connectionId, id }),
    decideActionLibrary: (id, accept) => client.invoke('pearl/libraries/decide', { id, accept }),
    promoteProgramActions: (runId, program) => client.invoke('pearl/libraries/promote', { runId, program }),
    importActionLibrary: (path) => client.invoke('pearl/libraries/import', { path }),
    browseActionLibrary: async () => (await client.invoke('dialog/open-file', { title: 'Pearl action library', extensions: ['json'] })).path,
    checkProgram: (program, actions) => client.invoke('pearl/check', { program, actions }),
    runProgram: async (fromRunId, program, mode) => {
      await get().flushEdits();
      await client.invoke('pearl/run-program', { runId: fromRunId, program, mode });
    },
    rerunStep: async (fromRunId, step, mode) => {
      await get().flushEdits();
      await client.invoke('pearl/rerun-step', { runId: fromRunId, step, mode });
    },
    rankDellmaBatch: async (runId, batch, lines) => {
      await client.invoke('dellma/rank-batch', { runId, batch, lines });
      // The re-fit's cells sit after the run's own, which may not be the notebook's end: read the order back.
      const notebookId = get().currentNotebookId;
      if (!notebookId) return;
      await get().flushEdits();
      const notebook = await client.invoke('notebooks/get', { id: notebookId });
      if (get().currentNotebookId === notebookId) set({ cells: notebook.cells });
    },
    withdrawDellmaRefit: async (runId, node) => {
      const { removedCells } = await client.invoke('dellma/withdraw-refit', { runId, node });
      set({ cells: get().cells.filter((cell) => !removedCells.includes(cell.id)) });
    },
    reviewRun: async ({ runId, key }, decision) => {
      await client.invoke('runs/review', { runId, key, decision });
    },
    stopRun: async (runId) => {
      await client.invoke('runs/stop', { runId });
    },
    setRunMode: async (runId, mode) => {
      await client.invoke('runs/set-mode', { runId, mode });
    },
    loadInterruptedRuns: async (notebookId) => {
      const runs = await client.invoke('runs/list', { notebookId });
      set({ interruptedRuns: runs.filter((run) => run.status === 'interrupted') });
    },
    rerunNode: async (runId, node, change) => {
      await get().flushEdits();
      await client.invoke('runs/rerun-node', { runId, node, ...change });
    },
    resumeRun: async (runId) => {
      await client.invoke('runs/resume', { runId });
      set({ interruptedRuns: get().interruptedRuns.filter((run) => run.id !== runId) });
    },
    listRuns: (notebookId) => client.invoke('runs/list', { notebookId }),
    loadActiveRuns: async () => {
      const active = await client.invoke('runs/active', {});
      set({ runs: Object.fromEntries(active.map((progress) => [progress.runId, progress])) });
    },
    listPlaybooks: () => client.invoke('playbooks/list', {}),
    estimateDellma: (question, rules, settings) => {
      // The open notebook's attached documents enter every DeLLMa prompt, so they count too.
      const notebookId = get().currentNotebookId;
      return client.invoke('dellma/estimate', { question, rules, settings, ...(notebookId ? { notebookId } : {}) });
    },
    loadTechniques: async () => {
      set({ techniques: await client.invoke('runs/techniques', {}) });
    },
  };
}
