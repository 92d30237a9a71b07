/**
 * The end of a settings dialog: the last error, then Test on the left, Cancel and Save on the
 * right. While one of them runs (`busy`), neither can be pressed again.
 */
export function DialogFooter(props: {
  error: string | null;
  busy: 'testing' | 'saving' | null;
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
