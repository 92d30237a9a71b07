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
 * The end of a settings dialog: the last error, then Test on the left, Cancel and Save on the
 * right. While one of them runs (`busy`), neither can be pressed again.
 */
export function DialogFooter(props: {
  error: string | null;
  busy: DialogAction | null;
  testLabel: string;
  saveLabel: string;
  saveDisabled?: boolean;
  testId: string;
  saveId: string;
  onTest(): void;
  onSave(): void;
  onClose(): void;
}) {
  return (
    <>
      {props.error && (
        <p className="form-error" role="alert">
          {props.error}
        </p>
      )}
      <footer className="dialog-footer">
        <button className="ghost" data-testid={props.testId} disabled={props.busy !== null} onClick={props.onTest}>
          {props.busy === 'testing' ? 'Testing…' : props.testLabel}
        </button>
        <span className="spacer" />
        <button className="ghost" onClick={props.onClose}>
          Cancel
        </button>
        <button className="primary" data-testid={props.saveId} disabled={props.busy !== null || props.saveDisabled === true} onClick={props.onSave}>
          {props.busy === 'saving' ? 'Saving…' : props.saveLabel}
        </button>
      </footer>
    </>
  );
}
