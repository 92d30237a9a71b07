import { useState } from 'react';

export type DialogAction = 'testing' | 'saving';

/**
 * The state behind a dialog's Test and Save: which of them is running, and the last error.
 * `attempt` runs one, clearing the error first and keeping a failure's message.
 */
export function useDialogAction(): {
  busy: DialogAction | null;
  error: string | null;
  setError(error: string | null): void;
  attempt(kind: DialogAction, work: () => Promise<void>): Promise<void>;
} {
  const [busy, setBusy] = useState<DialogAction | null>(null);
  const [error, setError] = useState<string | null>(null);
  const attempt = async (kind: DialogAction, work: () => Promise<void>): Promise<void> => {
    setBusy(kind);
    setError(null);
    try {
      await work();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(null);
    }
  };
  return { busy, error, setError, attempt };
}

/**
 * The end of a settings dialog: the last error, then Test on the left (when the dialog has
 * one), Cancel and Save on the right. While one of them runs (`busy`), neither can be pressed
 * again. A disabled Save says why beside it (`saveHint`), rather than leaving the analyst to guess.
 */
export function DialogFooter(props: {
  error: string | null;
  busy: DialogAction | null;
  /** Omitted together where the dialog has nothing to test (the local model loads from its row). */
  testLabel?: string;
  testId?: string;
  onTest?(): void;
  saveLabel: string;
  saveDisabled?: boolean;
  /** Why Save is disabled; shown beside it while it is. */
  saveHint?: string | null;
  saveId: string;
  onSave(): void;
  onClose(): void;
}) {
  const saveDisabled = props.busy !== null || props.saveDisabled === true;
  const hint = props.saveDisabled === true && props.saveHint ? props.saveHint : null;
  const hintId = `${props.saveId}-hint`;
  return (
    <>
      {props.error && (
        <p className="form-error" role="alert">
          {props.error}
        </p>
      )}
      <footer className="dialog-footer">
        {props.onTest && (
          <button className="ghost" data-testid={props.testId} disabled={props.busy !== null} onClick={props.onTest}>
            {props.busy === 'testing' ? 'Testing…' : props.testLabel}
          </button>
        )}
        <span className="spacer" />
        {hint && (
          <span className="dialog-footer-hint" id={hintId} data-testid={hintId}>
            {hint}
          </span>
        )}
        <button className="ghost" onClick={props.onClose}>
          Cancel
        </button>
        <button className="primary" data-testid={props.saveId} disabled={saveDisabled} aria-describedby={hint ? hintId : undefined} onClick={props.onSave}>
          {props.busy === 'saving' ? 'Saving…' : props.saveLabel}
        </button>
      </footer>
    </>
  );
}
