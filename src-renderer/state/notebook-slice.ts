import {
  WorkbenchError,
  defaultQuerySettings,
  type Cell,
  type CellKind,
  type NotebookSummary,
  type Provenance,
  type QueryDisplay,
  type QuerySettings,
} from '../../src-main/contract';
import { idleRuntime, transitionRuntime, type CellRuntime, type RuntimeMessage } from './cell-runtime';
import type { SliceContext } from './store';
import { restoreFailure, type CaptureOption } from './undo';

export type SaveState = 'saved' | 'pending' | 'saving' | 'error';

/** `display` (a query cell's table or chart) lives in the cell's data; the rest are the cell's own fields. */
type CellEdit = { source?: string; connectionId?: string | null; settings?: QuerySettings; display?: QueryDisplay };

function applyEdit(cell: Cell, { display, ...fields }: CellEdit): Cell {
  const edited = { ...cell, ...fields };
  return display && edited.kind === 'query' ? { ...edited, data: { ...edited.data, display } } : edited;
}

export interface NotebookSlice {
  notebooks: NotebookSummary[];
  currentNotebookId: string | null;
  cells: Cell[];
  runtimes: Record<string, CellRuntime>;
  saveStates: Record<string, SaveState>;
  /** The cell that should take keyboard focus next (after add, or Shift+Enter). */
  focusCellId: string | null;

  loadNotebooks(): Promise<void>;
  openNotebook(id: string): Promise<void>;
  /** Creates and opens a notebook; without a title it is the first free “Untitled N” (the + New button, Ctrl+Alt+N and the palette alike). */
  createNotebook(title?: string): Promise<void>;
  renameNotebook(id: string, title: string): Promise<void>;
  duplicateNotebook(id: string): Promise<void>;
  deleteNotebook(id: string): Promise<void>;

  addCell(
    kind: CellKind,
    options?: { afterCellId?: string | null; connectionId?: string | null; source?: string; provenance?: Provenance; settings?: Partial<QuerySettings> },
  ): Promise<Cell>;
  /** Applies an edit at once and saves it shortly after (autosave). */
  editCell(id: string, edit: CellEdit): void;
  /** Saves every pending edit now; resolves when the workspace has them. */
  flushEdits(): Promise<void>;
  /** Moves a cell to the trash; `capture` puts its restore on the undo stack. */
  deleteCell(id: string, options: CaptureOption): Promise<void>;
  /** Turns an analyst's query into a note or back (Jupyter's M and Y); `capture` makes it undoable. */
  changeCellKind(id: string, kind: 'query' | 'note', options: CaptureOption): Promise<void>;
  moveCell(id: string, direction: -1 | 1): Promise<void>;
  runCell(id: string, options?: { advance?: boolean }): Promise<void>;
  cancelCell(id: string): Promise<void>;
  setFocusCell(id: string | null): void;
}

const autosaveDelayMs = 350;

export function createNotebookSlice({ client, set, get }: SliceContext): NotebookSlice {
  const pendingEdits = new Map<string, CellEdit>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  let requestCounter = 0;

  const setSaveState = (id: string, state: SaveState): void => set({ saveStates: { ...get().saveStates, [id]: state } });
  const replaceCell = (cell: Cell): void => set({ cells: get().cells.map((existing) => (existing.id === cell.id ? cell : existing)) });
  const applyRuntime = (id: string, message: RuntimeMessage): void => {
    const current = get().runtimes[id] ?? idleRuntime;
    set({ runtimes: { ...get().runtimes, [id]: transitionRuntime(current, message) } });
  };

  // A running cell's rows as they stream in (the run's requestId tells this run from an earlier one).
  client.on('query-rows', ({ requestId, cellId, columns, rows, rowCount }) => {
    if (cellId === undefined || get().runtimes[cellId] === undefined) return;
    applyRuntime(cellId, { type: 'rows', requestId, rows, rowCount, at: Date.now(), ...(columns ? { columns } : {}) });
  });

  const saveCell = async (id: string): Promise<void> => {
    clearTimeout(timers.get(id));
    timers.delete(id);
    const edit = pendingEdits.get(id);
    if (!edit) return;
    pendingEdits.delete(id);
    setSaveState(id, 'saving');
    try {
      const saved = await client.invoke('cells/update', { id, ...edit });
      // Keep what the analyst typed since this save started; take the rest from the workspace.
      if (!pendingEdits.has(id)) {
        replaceCell({ ...saved, output: get().cells.find((cell) => cell.id === id)?.output ?? saved.output });
        setSaveState(id, 'saved');
      }
    } catch (error) {
      // Put the edit back so the next attempt (or flush) retries it: nothing typed is dropped.
      pendingEdits.set(id, { ...edit, ...pendingEdits.get(id) });
      setSaveState(id, 'error');
      get().reportError(error, 'Could not save the cell');
    }
  };

  const refreshNotebookList = async (): Promise<void> => {
    set({ notebooks: await client.invoke('notebooks/list', {}) });
  };

  return {
    notebooks: [],
    currentNotebookId: null,
    cells: [],
    runtimes: {},
    saveStates: {},
    focusCellId: null,

    loadNotebooks: refreshNotebookList,

    openNotebook: async (id) => {
      await get().flushEdits();
      const notebook = await client.invoke('notebooks/get', { id });
      // Undo entries restore cells into the open notebook, so they do not outlive it.
      set({ currentNotebookId: id, cells: notebook.cells, runtimes: {}, saveStates: {}, focusCellId: null, selectedCellId: null, undoStack: [] });
      window.localStorage.setItem('dwb:last-notebook', id);
    },

    createNotebook: async (title) => {
      const notebook = await client.invoke('notebooks/create', { title: title ?? untitledTitle(get().notebooks) });
      await refreshNotebookList();
      await get().openNotebook(notebook.id);
    },

    renameNotebook: async (id, title) => {
      await client.invoke('notebooks/rename', { id, title });
      await refreshNotebookList();
    },

    duplicateNotebook: async (id) => {
      await get().flushEdits();
      const copy = await client.invoke('notebooks/duplicate', { id });
      await refreshNotebookList();
      await get().openNotebook(copy.id);
    },

    deleteNotebook: async (id) => {
      await get().flushEdits();
      const title = get().notebooks.find((notebook) => notebook.id === id)?.title ?? 'Notebook';
      await client.invoke('notebooks/delete', { id });
      await refreshNotebookList();
      if (get().currentNotebookId === id) {
        const next = get().notebooks[0];
        if (next) await get().openNotebook(next.id);
        else set({ currentNotebookId: null, cells: [] });
      }
      get().notify({
        tone: 'info',
        message: `Deleted “${title}”`,
        restores: id,
        action: {
          label: 'Undo',
          run: () => {
            void client
              .invoke('notebooks/restore', { id })
              .catch((error: unknown) => {
                throw restoreFailure(error, `“${title}”`);
              })
              .then(refreshNotebookList)
              .then(() => get().openNotebook(id))
              .catch((error: unknown) => get().reportError(error, 'Could not restore the notebook'));
          },
        },
      });
    },

    addCell: async (kind, options = {}) => {
      const notebookId = get().currentNotebookId;
      if (!notebookId) throw new WorkbenchError('invalid-request', 'Open a notebook first');
      const neighbour = neighbourWithConnection(get().cells, options.afterCellId);
      const connectionId =
        kind === 'query' || kind === 'simulation' || kind === 'whatif'
          ? (options.connectionId ?? neighbour?.connectionId ?? get().connections[0]?.id ?? null)
          : null;
      const cell = await client.invoke('cells/insert', {
        notebookId,
        kind,
        author: 'analyst',
        source: options.source ?? '',
        connectionId,
        // A row cap or timeout is chosen for one query (a 1,000,000-row export, a slow join): a new
        // cell starts from the defaults rather than inheriting what its neighbour needed.
        settings: { ...defaultQuerySettings, ...options.settings },
        ...(options.provenance ? { provenance: options.provenance } : {}),
        ...(options.afterCellId === undefined ? {} : { afterCellId: options.afterCellId }),
      });
      const cells = [...get().cells];
      const afterIndex =
        options.afterCellId === undefined ? cells.length - 1 : options.afterCellId === null ? -1 : cells.findIndex((c) => c.id === options.afterCellId);
      cells.splice(afterIndex + 1, 0, cell);
      set({ cells, focusCellId: cell.id, selectedCellId: cell.id });
      void refreshNotebookList();
      return cell;
    },

    editCell: (id, edit) => {
      set({ cells: get().cells.map((cell) => (cell.id === id ? applyEdit(cell, edit) : cell)) });
      pendingEdits.set(id, { ...pendingEdits.get(id), ...edit });
      setSaveState(id, 'pending');
      clearTimeout(timers.get(id));
      timers.set(
        id,
        setTimeout(() => void saveCell(id), autosaveDelayMs),
      );
    },

    flushEdits: async () => {
      await Promise.all([...pendingEdits.keys()].map((id) => saveCell(id)));
    },

    deleteCell: async (id, { capture }) => {
      await saveCell(id);
      const index = get().cells.findIndex((cell) => cell.id === id);
      await client.invoke('cells/delete', { id });
      const remaining = get().cells.filter((cell) => cell.id !== id);
      // The selection stays where the cell was: on the one below, or above at the end.
      const nextSelected = get().selectedCellId === id ? (remaining[Math.min(index, remaining.length - 1)]?.id ?? null) : get().selectedCellId;
      set({ cells: remaining, selectedCellId: nextSelected });
      void refreshNotebookList();
      const restore = async (): Promise<void> => {
        get().dropUndo(id);
        const cell = await client.invoke('cells/restore', { id }).catch((error: unknown) => {
          throw restoreFailure(error, 'The cell');
        });
        const cells = [...get().cells];
        cells.splice(Math.min(index, cells.length), 0, cell);
        set({ cells, selectedCellId: cell.id });
        void refreshNotebookList();
      };
      if (capture === 'capture') get().pushUndo({ label: 'Restore the deleted cell', targetId: id, undo: restore });
      get().notify({
        tone: 'info',
        message: 'Cell deleted — Ctrl+Z restores it',
        restores: id,
        action: {
          label: 'Undo',
          run: () => void restore().catch((error: unknown) => get().reportError(error, 'Could not restore the cell')),
        },
      });
    },

    changeCellKind: async (id, kind, { capture }) => {
      const cell = get().cells.find((candidate) => candidate.id === id);
      if (!cell || cell.kind === kind || (cell.kind !== 'query' && cell.kind !== 'note') || cell.author !== 'analyst') return;
      // A running query would save its output onto the note; it is cancelled or finished first.
      if ((get().runtimes[id] ?? idleRuntime).status === 'running') throw new WorkbenchError('invalid-request', 'Cancel the running query first');
      await saveCell(id);
      const previous = { kind: cell.kind, connectionId: cell.connectionId };
      const connectionId = kind === 'query' ? (neighbourWithConnection(get().cells, id)?.connectionId ?? get().connections[0]?.id ?? null) : null;
      const apply = async (change: { kind: 'query' | 'note'; connectionId: string | null }): Promise<void> => {
        const changed = await client.invoke('cells/change-kind', { id, ...change });
        const { [id]: _dropped, ...runtimes } = get().runtimes;
        set({ cells: get().cells.map((existing) => (existing.id === id ? changed : existing)), runtimes, selectedCellId: id });
      };
      await apply({ kind, connectionId });
      if (capture === 'capture') {
        get().pushUndo({ label: `Turn the ${kind} back into a ${previous.kind}`, targetId: id, undo: () => apply(previous) });
      }
    },

    moveCell: async (id, direction) => {
      const cells = [...get().cells];
      const index = cells.findIndex((cell) => cell.id === id);
      const target = index + direction;
      if (index < 0 || target < 0 || target >= cells.length) return;
      const [cell] = cells.splice(index, 1);
      if (!cell) return;
      cells.splice(target, 0, cell);
      set({ cells });
      const afterCellId = target === 0 ? null : (cells[target - 1]?.id ?? null);
      await client.invoke('cells/move', { id, afterCellId });
    },

    runCell: async (id, options = {}) => {
      const cell = get().cells.find((candidate) => candidate.id === id);
      if (!cell || cell.kind !== 'query') return;
      if ((get().runtimes[id] ?? idleRuntime).status !== 'idle') return;
      if (options.advance) {
        const index = get().cells.findIndex((candidate) => candidate.id === id);
        const next = get().cells[index + 1];
        if (next) set(next.kind === 'query' ? { focusCellId: next.id, selectedCellId: next.id } : { selectedCellId: next.id });
        else void get().addCell('query', { afterCellId: id, connectionId: cell.connectionId });
      }
      await saveCell(id);
      const problem = connectionProblem(cell, get().connections);
      if (problem !== null || !cell.connectionId) {
        get().notify({ tone: 'error', message: problem ?? noConnectionChosen });
        return;
      }
      const requestId = `run-${Date.now()}-${++requestCounter}`;
      applyRuntime(id, { type: 'run', requestId, at: Date.now() });
      const ranAt = new Date().toISOString();
      try {
        const result = await client.invoke('query/run', {
          requestId,
          connectionId: cell.connectionId,
          text: cell.source,
          settings: cell.settings,
          cellId: id,
        });
        const output = { status: 'ok' as const, result, ranAt, connectionId: cell.connectionId };
        set({ cells: get().cells.map((existing) => (existing.id === id ? { ...existing, output } : existing)) });
        applyRuntime(id, { type: 'finish', output });
      } catch (caught) {
        const error = WorkbenchError.from(caught).toJSON();
        const output = { status: 'error' as const, error, ranAt, connectionId: cell.connectionId };
        set({ cells: get().cells.map((existing) => (existing.id === id ? { ...existing, output } : existing)) });
        applyRuntime(id, { type: 'fail', error });
      }
    },

    cancelCell: async (id) => {
      const runtime = get().runtimes[id];
      if (!runtime || runtime.status !== 'running') return;
      applyRuntime(id, { type: 'cancel' });
      await client.invoke('query/cancel', { requestId: runtime.requestId });
    },

    setFocusCell: (id) => set({ focusCellId: id }),
  };
}

/** The first “Untitled N” no notebook has as its title. */
export function untitledTitle(notebooks: readonly { title: string }[]): string {
  const taken = new Set(notebooks.map((notebook) => notebook.title));
  for (let n = 1; ; n++) if (!taken.has(`Untitled ${n}`)) return `Untitled ${n}`;
}

const noConnectionChosen = 'Choose a connection for this cell first';

/**
 * Why a cell cannot run on its connection, in words, or null when it can. A removed connection
 * (in the trash or gone) leaves its id on the cell; the workspace would answer with that id.
 */
export function connectionProblem(cell: Pick<Cell, 'connectionId'>, connections: readonly { id: string }[]): string | null {
  if (!cell.connectionId) return noConnectionChosen;
  if (!connections.some((connection) => connection.id === cell.connectionId)) return 'This cell’s connection was removed: choose a connection for it';
  return null;
}

/**
 * The cell a new cell takes its connection from: the nearest one with a connection at or above
 * `afterCellId` (the top when null), else the nearest below it.
 */
export function neighbourWithConnection(cells: readonly Cell[], afterCellId: string | null | undefined): Cell | undefined {
  const anchor = afterCellId === undefined ? cells.length - 1 : afterCellId === null ? -1 : cells.findIndex((cell) => cell.id === afterCellId);
  for (let index = anchor; index >= 0; index--) if (cells[index]?.connectionId) return cells[index];
  for (let index = anchor + 1; index < cells.length; index++) if (cells[index]?.connectionId) return cells[index];
  return undefined;
}
