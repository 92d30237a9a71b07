import { WorkbenchError } from '../../src-main/contract';

/**
 * What Ctrl/Cmd+Z can take back.
 *
 * Each store mutation that can be taken back is told by its caller whether to record it, as
 * Excalidraw's `CaptureUpdateAction` is given per update: the caller knows why the change happens
 * (the analyst pressed Delete, or a run or a test tidies up), the store does not. `capture` puts
 * an entry on the undo stack, newest first; `never` changes the data and leaves the stack alone
 * (the change still has its notice and the trash). Text typed in an editor is never captured
 * here: the editor keeps its own undo.
 */
export type CapturePolicy = 'capture' | 'never';

/** The option every undoable mutation takes; required, so no call site decides by default. */
export interface CaptureOption {
  capture: CapturePolicy;
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
