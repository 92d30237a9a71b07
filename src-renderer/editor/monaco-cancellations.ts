/**
 * Monaco rejects the promise of a pending delayed task with its own cancellation error when an
 * editor is disposed (an edited query approved, a cell removed) and nothing awaits it, so the
 * browser reports an unhandled rejection for what is normal teardown (microsoft/monaco-editor
 * #4702, #4859). Only that exact error is silenced; every other rejection is reported as usual.
 */
function isMonacoCancellation(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'Canceled' && reason.message === 'Canceled';
}

export function silenceMonacoCancellations(target: Window): void {
  target.addEventListener('unhandledrejection', (event) => {
    if (isMonacoCancellation(event.reason)) event.preventDefault();
  });
}
