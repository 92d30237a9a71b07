import { WorkbenchError } from '../../src-main/contract';
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
  /**
   * Forgets the entries, and dismisses the Undo notices, for a target restored some other way
   * (from a notice or the trash) or deleted for good (the trash emptied).
   */
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
    dropUndo: (targetId) =>
      set({
        undoStack: get().undoStack.filter((entry) => entry.targetId !== targetId),
        toasts: get().toasts.filter((toast) => toast.restores !== targetId),
      }),
    undo: async () => {
      const entry = get().undoStack.at(-1);
      if (!entry) return false;
      set({ undoStack: get().undoStack.slice(0, -1) });
      try {
        await entry.undo();
      } catch (error) {
        // Keep the entry so the analyst can try again, unless what it restores is gone for good.
        if (WorkbenchError.from(error).code !== 'not-found') set({ undoStack: [...get().undoStack, entry] });
        throw error;
      }
      return true;
    },
  };
}
