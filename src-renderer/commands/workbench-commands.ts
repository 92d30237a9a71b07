import type { Cell, CellKind } from '../../src-main/contract';
import type { WorkbenchState } from '../state/store';
import { registerCommands, type Command, type CommandContext } from './registry';

const selectedCell = ({ state, cellId }: CommandContext): Cell | undefined => state.cells.find((cell) => cell.id === cellId);
const hasCell = (context: CommandContext): boolean => selectedCell(context) !== undefined;
const hasNotebook = ({ state }: CommandContext): boolean => state.currentNotebookId !== null;

/** Any failure of a command ends as a notice, never as an unhandled rejection. */
const reported =
  (what: string, action: (context: CommandContext) => Promise<unknown>) =>
  (context: CommandContext): Promise<void> =>
    action(context).then(
      () => undefined,
      (error: unknown) => context.state.reportError(error, what),
    );

const neighbour = (state: WorkbenchState, cellId: string | null, step: -1 | 1): Cell | undefined => {
  const index = state.cells.findIndex((cell) => cell.id === cellId);
  if (index < 0) return step === 1 ? state.cells[0] : state.cells.at(-1);
  return state.cells[index + step];
};

/** Starts whatever the cell runs; a note has nothing to run and just stops being edited. */
const runCellOfAnyKind = async (state: WorkbenchState, cell: Cell): Promise<void> => {
  if (cell.kind === 'query') await state.runCell(cell.id);
  else if (cell.kind === 'simulation') await state.runSimulationCell(cell.id);
  else if (cell.kind === 'whatif') await state.runWhatIfCell(cell.id);
};

const addBelowSelection = (kind: CellKind, label: string): Command => ({
  id: `cell.add-${kind}`,
  label,
  predicate: hasNotebook,
  perform: reported('Could not add a cell', (context) => context.state.addCell(kind, { afterCellId: selectedCell(context)?.id ?? context.state.cells.at(-1)?.id ?? null })),
});

/** Every action of the notebook window, registered once: buttons, keys and the palette use these. */
export const workbenchCommands = registerCommands([
  {
    id: 'palette.open',
    label: 'Show all commands',
    shortcuts: ['Mod+Shift+P', 'Mod+K'],
    scope: 'anywhere',
    perform: ({ state }) => state.setPaletteOpen(true),
  },
  {
    id: 'notebook.new',
    label: 'New notebook',
    shortcuts: ['Mod+Alt+N'],
    scope: 'anywhere',
    perform: reported('Could not create a notebook', ({ state }) => state.createNotebook()),
  },
  {
    id: 'notebook.save',
    label: 'Save now (everything autosaves)',
    shortcuts: ['Mod+S'],
    scope: 'anywhere',
    perform: reported('Could not save', ({ state }) => state.flushEdits()),
  },
  {
    id: 'cell.run-advance',
    label: 'Run cell and select the next',
    shortcuts: ['Shift+Enter'],
    scope: 'cell',
    predicate: hasCell,
    perform: reported('Run failed', async (context) => {
      const cell = selectedCell(context);
      if (!cell) return;
      const { state } = context;
      // A query moves on by itself (and adds a query below the last cell, as Jupyter does).
      if (cell.kind === 'query') return state.runCell(cell.id, { advance: true });
      const next = neighbour(state, cell.id, 1);
      state.requestLeave(cell.id);
      if (next) {
        if (next.kind === 'query') state.setFocusCell(next.id);
        state.selectCell(next.id);
      }
      return runCellOfAnyKind(state, cell);
    }),
  },
  {
    id: 'cell.run',
    label: 'Run cell',
    shortcuts: ['Mod+Enter'],
    scope: 'cell',
    predicate: (context) => ['query', 'simulation', 'whatif'].includes(selectedCell(context)?.kind ?? ''),
    perform: reported('Run failed', async (context) => {
      const cell = selectedCell(context);
      if (cell) await runCellOfAnyKind(context.state, cell);
    }),
  },
  {
    id: 'cell.cancel',
    label: 'Cancel the running query',
    shortcuts: ['Mod+.'],
    scope: 'cell',
    predicate: (context) => context.state.runtimes[context.cellId ?? '']?.status === 'running' || context.state.whatIfRuns[context.cellId ?? ''] !== undefined,
    perform: reported('Cancel failed', async (context) => {
      const cell = selectedCell(context);
      if (cell?.kind === 'whatif') await context.state.cancelWhatIfCell(cell.id);
      else if (cell) await context.state.cancelCell(cell.id);
    }),
  },
  {
    id: 'cell.leave-editor',
    label: 'Leave the editor (command mode)',
    shortcuts: ['Escape'],
    scope: 'cell',
    predicate: hasCell,
    // The cell takes the focus itself, which hands the keys to command mode; see CellFrame.
    perform: ({ state, cellId }) => {
      if (cellId) state.requestLeave(cellId);
    },
  },
  {
    id: 'cell.edit',
    label: 'Edit the selected cell',
    shortcuts: ['Enter'],
    scope: 'command',
    predicate: hasCell,
    perform: ({ state, cellId }) => {
      if (cellId !== null) state.requestEdit(cellId);
    },
  },
  {
    id: 'cell.select-previous',
    label: 'Select the cell above',
    shortcuts: ['ArrowUp', 'K'],
    scope: 'command',
    predicate: ({ state }) => state.cells.length > 0,
    perform: ({ state, cellId }) => {
      const target = neighbour(state, cellId, -1);
      if (target) state.selectCell(target.id);
    },
  },
  {
    id: 'cell.select-next',
    label: 'Select the cell below',
    shortcuts: ['ArrowDown', 'J'],
    scope: 'command',
    predicate: ({ state }) => state.cells.length > 0,
    perform: ({ state, cellId }) => {
      const target = neighbour(state, cellId, 1);
      if (target) state.selectCell(target.id);
    },
  },
  {
    id: 'cell.insert-above',
    label: 'Add a query above',
    shortcuts: ['A'],
    scope: 'command',
    predicate: hasNotebook,
    perform: reported('Could not add a cell', ({ state, cellId }) => {
      const index = state.cells.findIndex((cell) => cell.id === cellId);
      const afterCellId = index > 0 ? (state.cells[index - 1]?.id ?? null) : null;
      return state.addCell('query', { afterCellId });
    }),
  },
  {
    id: 'cell.insert-below',
    label: 'Add a query below',
    shortcuts: ['B'],
    scope: 'command',
    predicate: hasNotebook,
    perform: reported('Could not add a cell', ({ state, cellId }) => state.addCell('query', { afterCellId: cellId ?? state.cells.at(-1)?.id ?? null })),
  },
  addBelowSelection('note', 'Add a note below'),
  addBelowSelection('simulation', 'Add a simulation below'),
  addBelowSelection('whatif', 'Add a what-if experiment below'),
  {
    id: 'cell.delete',
    label: 'Delete the selected cell',
    shortcuts: ['D D'],
    scope: 'command',
    predicate: hasCell,
    perform: reported('Delete failed', ({ state, cellId }) => (cellId ? state.deleteCell(cellId, { capture: 'capture' }) : Promise.resolve())),
  },
  {
    id: 'cell.to-note',
    label: 'Turn the query into a note',
    shortcuts: ['M'],
    scope: 'command',
    predicate: (context) => selectedCell(context)?.kind === 'query' && selectedCell(context)?.author === 'analyst',
    perform: reported('Could not change the cell', ({ state, cellId }) => state.changeCellKind(cellId ?? '', 'note', { capture: 'capture' })),
  },
  {
    id: 'cell.to-query',
    label: 'Turn the note into a query',
    shortcuts: ['Y'],
    scope: 'command',
    predicate: (context) => selectedCell(context)?.kind === 'note' && selectedCell(context)?.author === 'analyst',
    perform: reported('Could not change the cell', ({ state, cellId }) => state.changeCellKind(cellId ?? '', 'query', { capture: 'capture' })),
  },
  {
    id: 'cell.move-up',
    label: 'Move the cell up',
    shortcuts: ['Mod+Shift+ArrowUp'],
    scope: 'command',
    predicate: hasCell,
    perform: reported('Move failed', ({ state, cellId }) => state.moveCell(cellId ?? '', -1)),
  },
  {
    id: 'cell.move-down',
    label: 'Move the cell down',
    shortcuts: ['Mod+Shift+ArrowDown'],
    scope: 'command',
    predicate: hasCell,
    perform: reported('Move failed', ({ state, cellId }) => state.moveCell(cellId ?? '', 1)),
  },
  {
    id: 'edit.undo',
    label: 'Undo: restore the last deleted cell or cell-kind change',
    shortcuts: ['Mod+Z'],
    scope: 'command',
    predicate: ({ state }) => state.undoStack.length > 0,
    perform: reported('Could not undo', ({ state }) => state.undo()),
  },
  {
    id: 'run.new',
    label: 'Ask the model to decide…',
    predicate: (context) => hasNotebook(context) && context.state.runDraft === null,
    perform: ({ state }) => state.openRunDraft({}),
  },
  ...(['system', 'light', 'dark'] as const).map(
    (choice): Command => ({
      id: `theme.${choice}`,
      label: choice === 'system' ? 'Theme: follow the system' : `Theme: ${choice}`,
      predicate: ({ state }) => state.theme !== choice,
      perform: ({ state }) => state.setTheme(choice),
    }),
  ),
  {
    id: 'example.dellma-agriculture',
    label: 'Open the DeLLMa agriculture example',
    perform: reported('Could not open the DeLLMa example', ({ state }) => state.openAgricultureExample()),
  },
  {
    id: 'run.history',
    label: 'Show the run history',
    predicate: (context) => hasNotebook(context) && !context.state.runHistoryOpen,
    perform: ({ state }) => {
      state.setMainView('notebook');
      state.setRunHistoryOpen(true);
    },
  },
  {
    id: 'search.open',
    label: 'Search all notebooks',
    shortcuts: ['Mod+Shift+F'],
    scope: 'anywhere',
    perform: ({ state }) => state.setMainView('search'),
  },
  {
    id: 'trash.open',
    label: 'Open the trash',
    perform: ({ state }) => state.setMainView('trash'),
  },
  {
    id: 'benchmarks.open',
    label: 'Open the benchmarks',
    perform: ({ state }) => state.setMainView('benchmarks'),
  },
  {
    id: 'playbooks.open',
    label: 'Open the playbooks',
    perform: ({ state }) => state.setMainView('playbooks'),
  },
  {
    id: 'model.settings',
    label: 'Set up the model…',
    perform: ({ state }) => state.setModelSettingsOpen(true),
  },
  {
    id: 'report.export',
    label: 'Export report…',
    predicate: hasNotebook,
    perform: reported('Could not open the export dialog', ({ state }) =>
      state.currentNotebookId ? state.openReportDialog({ notebookId: state.currentNotebookId, runId: null }) : Promise.resolve(),
    ),
  },
]);
