import { useWorkbench } from './store-context';

/** Notices at the bottom right; errors stay readable, undo actions are one click away. */
export function Toasts() {
  const toasts = useWorkbench((state) => state.toasts);
  const dismiss = useWorkbench((state) => state.dismissToast);
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((toast) => (
        <div key={toast.id} className={`toast toast-${toast.tone}`} role={toast.tone === 'error' ? 'alert' : 'status'} data-testid="toast">
          <span>{toast.message}</span>
          {toast.action && (
            <button
              className="ghost small"
              onClick={() => {
                toast.action?.run();
                dismiss(toast.id);
              }}
            >
              {toast.action.label}
            </button>
          )}
          <button className="icon" aria-label="Dismiss" onClick={() => dismiss(toast.id)}>
            ✕
          </button>
        </div>
      ))}
    </div>
  );
}
