import type { CellOutput, SerializedError } from '../../src-main/contract';

/**
 * What a cell is doing now, kept apart from what it contains (the saved Cell). Only
 * `transitionRuntime` changes it, so every state a cell can be in is listed in one place.
 */
export type CellRuntime =
  | { status: 'idle' }
  | { status: 'running'; requestId: string; startedAt: number }
  | { status: 'cancelling'; requestId: string; startedAt: number };

export type RuntimeMessage =
  | { type: 'run'; requestId: string; at: number }
  | { type: 'cancel' }
  | { type: 'finish'; output: CellOutput }
  | { type: 'fail'; error: SerializedError };

export const idleRuntime: CellRuntime = { status: 'idle' };

export function transitionRuntime(runtime: CellRuntime, message: RuntimeMessage): CellRuntime {
  switch (message.type) {
    case 'run':
      return { status: 'running', requestId: message.requestId, startedAt: message.at };
    case 'cancel':
      return runtime.status === 'running' ? { ...runtime, status: 'cancelling' } : runtime;
    case 'finish':
    case 'fail':
      return idleRuntime;
    default: {
      const unreachable: never = message;
      return unreachable;
    }
  }
}
