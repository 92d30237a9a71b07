import { WorkbenchError } from '../../src-main/contract';

/**
 * What Ctrl/Cmd+Z can take back, and the policy that decides what is captured.
 *
 * Policy, per kind of change (Excalidraw names this per update, `CaptureUpdateAction`):
 * - `capture`: the analyst removed something (a cell, an attached document) or turned a query
 *   into a note or back — undoable, newest first;
 * - `never`: cells a run writes, and text typed in an editor (the editor keeps its own undo).
 */
export type CapturePolicy = 'capture' | 'never';

export type UndoableChange = { kind: 'delete-cell'; by: 'analyst' | 'run' } | { kind: 'remove-document' } | { kind: 'change-cell-kind' } | { kind: 'run-writes-cell' } | { kind: 'edit-text' };

export function capturePolicy(change: UndoableChange): CapturePolicy {
  switch (change.kind) {
    case 'delete-cell':
      return change.by === 'analyst' ? 'capture' : 'never';
    case 'remove-document':
    case 'change-cell-kind':
      return 'capture';
    case 'run-writes-cell':
    case 'edit-text':
      return 'never';
    default: {
      const unreachable: never = change;
      return unreachable;
    }
  }
}

export interface UndoEntry {
  /** Shown in the palette and the notice, e.g. “Restore deleted cell”. */
  label: string;
  /** The cell or notebook the entry brings back; used to drop the entry when it is restored otherwise. */
  targetId: string;
  undo(): Promise<void>;
}

/**
 * A restore that found nothing in the trash (emptied since the delete) said `No cell <uuid> in
 * the trash`; this says it in words, without the internal id.
 */
export function restoreFailure(error: unknown, what: string): WorkbenchError {
  const failure = WorkbenchError.from(error);
  if (failure.code !== 'not-found') return failure;
  return new WorkbenchError('not-found', `${what} was deleted for good when the trash was emptied; it cannot be restored`);
}

/** At most this many steps are kept; older ones fall off. */
export const undoDepth = 50;
