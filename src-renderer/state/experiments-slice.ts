import { simulationSpecSchema, whatIfSpecSchema, WorkbenchError, type Cell, type CellOutput, type Scenario } from '../../src-main/contract';
import type { CheckPlan } from '../../src-main/contract/simulation';
import { parseJsonObject } from './json-source';
import type { SliceContext } from './store';

/**
 * Experiment cells: simulations of the DQA business rules, and what-if experiments on a
 * throwaway copy of the analyst's own data. Each runs the cell's specification in the main
 * process and keeps the result (or the error) with the cell.
 */
export interface WhatIfProgress {
  requestId: string;
  /** Candidates done and in all; null until the first report. */
  done: number | null;
  total: number | null;
}

export interface ExperimentsSlice {
  /** What-if cells running now, by cell id. */
  whatIfRuns: Record<string, WhatIfProgress>;
  detectScenario(connectionId: string): Promise<Scenario | null>;
  /** How a run of `question` on the connection would have its decision checked (the composer's preview). */
  checkPlan(request: { connectionId: string; question: string; known: { country?: string; home?: string; goods?: string }; simulatorRules: 'stated' | 'compat' | 'off' }): Promise<CheckPlan>;
  runSimulationCell(cellId: string): Promise<void>;
  /** Why a connection cannot host what-if experiments (`reason`), or where they run when it can (`note`, null when on the data itself). */
  whatIfSupport(connectionId: string): Promise<{ reason: string | null; note: string | null }>;
  runWhatIfCell(cellId: string): Promise<void>;
  /** Stops a running what-if cell after the candidate under way (its result is not kept). */
  cancelWhatIfCell(cellId: string): Promise<void>;
  /** An analyst's editable copy of a cell the model or the engine wrote, placed right after it. */
  copyCellForEditing(cellId: string): Promise<Cell>;
}

export function createExperimentsSlice({ client, set, get }: SliceContext): ExperimentsSlice {
  let requestCounter = 0;
  const setRun = (cellId: string, progress: WhatIfProgress | null): void => {
    const runs = { ...get().whatIfRuns };
    if (progress === null) delete runs[cellId];
    else runs[cellId] = progress;
    set({ whatIfRuns: runs });
  };
  client.on('whatif-progress', ({ requestId, done, total }) => {
    const entry = Object.entries(get().whatIfRuns).find(([, progress]) => progress.requestId === requestId);
    if (entry) setRun(entry[0], { requestId, done, total });
  });

  /** Flushes pending edits, then returns the cell and its connection, or says what is missing. */
  const readyCell = async (cellId: string, missingData: string): Promise<Cell & { connectionId: string }> => {
    await get().flushEdits();
    const cell = get().cells.find((candidate) => candidate.id === cellId);
    if (!cell) throw new WorkbenchError('not-found', 'The cell no longer exists');
    if (!cell.connectionId) throw new WorkbenchError('invalid-request', missingData);
    return { ...cell, connectionId: cell.connectionId };
  };
  const showOutput = (cellId: string, output: CellOutput): void =>
    set({ cells: get().cells.map((existing) => (existing.id === cellId ? { ...existing, output } : existing)) });
  const showError = (cellId: string, connectionId: string, ranAt: string, error: unknown): void =>
    showOutput(cellId, { status: 'error', error: WorkbenchError.from(error).toJSON(), ranAt, connectionId });

  return {
    whatIfRuns: {},
    detectScenario: async (connectionId) => (await client.invoke('simulations/detect', { connectionId })).scenario,
    checkPlan: (request) => client.invoke('simulations/check-plan', request),
    runSimulationCell: async (cellId) => {
      const cell = await readyCell(cellId, 'Choose the data to simulate first');
      const spec = simulationSpecSchema.safeParse(parseJsonObject(cell.source));
      if (!spec.success) throw new WorkbenchError('invalid-request', 'Fill in the scenario parameters first');
      const ranAt = new Date().toISOString();
      try {
        const simulation = await client.invoke('simulations/run', { connectionId: cell.connectionId, spec: spec.data, cellId });
        showOutput(cellId, { status: 'simulated', simulation, ranAt, connectionId: cell.connectionId });
      } catch (error) {
        showError(cellId, cell.connectionId, ranAt, error);
      }
    },
    whatIfSupport: async (connectionId) => {
      const { reason, note } = await client.invoke('whatif/support', { connectionId });
      return { reason, note };
    },
    runWhatIfCell: async (cellId) => {
      const cell = await readyCell(cellId, 'Choose the database to experiment on first');
      const spec = whatIfSpecSchema.safeParse(parseJsonObject(cell.source));
      if (!spec.success) {
        const issue = spec.error.issues[0];
        throw new WorkbenchError('invalid-request', `${issue?.path.join('.') || 'The experiment'}: ${issue?.message ?? 'incomplete'}`);
      }
      const ranAt = new Date().toISOString();
      const requestId = `whatif-${Date.now()}-${++requestCounter}`;
      setRun(cellId, { requestId, done: null, total: null });
      try {
        const whatif = await client.invoke('whatif/run', { connectionId: cell.connectionId, spec: spec.data, cellId, requestId });
        showOutput(cellId, { status: 'whatif', whatif, ranAt, connectionId: cell.connectionId });
      } catch (error) {
        showError(cellId, cell.connectionId, ranAt, error);
      } finally {
        setRun(cellId, null);
      }
    },
    cancelWhatIfCell: async (cellId) => {
      const running = get().whatIfRuns[cellId];
      if (running) await client.invoke('whatif/cancel', { requestId: running.requestId });
    },
    copyCellForEditing: async (cellId) => {
      const original = get().cells.find((candidate) => candidate.id === cellId);
      if (!original) throw new WorkbenchError('not-found', 'The cell no longer exists');
      const copy = await client.invoke('cells/insert', {
        notebookId: original.notebookId,
        afterCellId: original.id,
        kind: original.kind,
        author: 'analyst',
        source: original.source,
        connectionId: original.connectionId,
        settings: original.settings,
        provenance: { derivedFrom: original.id },
      });
      const cells = [...get().cells];
      cells.splice(cells.findIndex((cell) => cell.id === original.id) + 1, 0, copy);
      set({ cells, focusCellId: copy.id });
      return copy;
    },
  };
}
