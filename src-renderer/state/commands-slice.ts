import type { SliceContext } from './store';
import { undoDepth, type UndoEntry } from './undo';

/** Keyboard state of the notebook: the selected cell, edit requests, the palette, and undo. */
export interface CommandsSlice {
  /** The cell command-mode keys act on (Jupyter's selection). */
  selectedCellId: string | null;
  /** Asks a cell to take the keyboard for editing; `seq` makes a repeated request a new one. */
  editRequest: { cellId: string; seq: number } | null;
  /** Asks a cell to give the keyboard back to the notebook (command mode), closing a note's editor. */
  leaveRequest: { cellId: string; seq: number } | null;
  paletteOpen: boolean;
  undoStack: UndoEntry[];

  selectCell(id: string | null): void;
  requestEdit(id: string): void;
  requestLeave(id: string): void;
  setPaletteOpen(open: boolean): void;
  pushUndo(entry: UndoEntry): void;
  /** Forgets entries for a target restored some other way (e.g. from a notice). */
  dropUndo(targetId: string): void;
  /** Takes back the newest captured change; false when there is none. */
  undo(): Promise<boolean>;
}

export function createCommandsSlice({ set, get }: SliceContext): CommandsSlice {
  let seq = 0;
  return {
    selectedCellId: null,
    editRequest: null,
    leaveRequest: null,
    paletteOpen: false,
    undoStack: [],

    selectCell: (id) => set({ selectedCellId: id }),
    requestEdit: (id) => set({ selectedCellId: id, editRequest: { cellId: id, seq: ++seq } }),
    requestLeave: (id) => set({ leaveRequest: { cellId: id, seq: ++seq } }),
    setPaletteOpen: (open) => set({ paletteOpen: open }),
    pushUndo: (entry) => set({ undoStack: [...get().undoStack, entry].slice(-undoDepth) }),
    dropUndo: (targetId) => set({ undoStack: get().undoStack.filter((entry) => entry.targetId !== targetId) }),
    undo: async () => {
      const entry = get().undoStack.at(-1);
      if (!entry) return false;
      set({ undoStack: get().undoStack.slice(0, -1) });
      try {
        await entry.undo();
      } catch (error) {
        // Keep the entry so the analyst can try again.
        set({ undoStack: [...get().undoStack, entry] });
        throw error;
      }
      return true;
    },
  };
}
