import type { CellOutput, CellValue, ResultColumn, SerializedError } from '../../src-main/contract';

/** A running query's rows so far: the preview's rows as they streamed in, and the count of all read. */
export interface StreamedRows {
  columns: ResultColumn[];
  rows: CellValue[][];
  rowCount: number;
  /** Time since the run started, as of the last batch. */
  elapsedMs: number;
}

/**
 * What a cell is doing now, kept apart from what it contains (the saved Cell). Only
 * `transitionRuntime` changes it, so every state a cell can be in is listed in one place.
 */
export type CellRuntime =
  | { status: 'idle' }
  | { status: 'running'; requestId: string; startedAt: number; streamed?: StreamedRows }
  | { status: 'cancelling'; requestId: string; startedAt: number; streamed?: StreamedRows };

export type RuntimeMessage =
  | { type: 'run'; requestId: string; at: number }
  | { type: 'cancel' }
  | { type: 'rows'; requestId: string; columns?: ResultColumn[]; rows: CellValue[][]; rowCount: number; at: number }
  | { type: 'finish'; output: CellOutput }
  | { type: 'fail'; error: SerializedError };

export const idleRuntime: CellRuntime = { status: 'idle' };

export function transitionRuntime(runtime: CellRuntime, message: RuntimeMessage): CellRuntime {
  switch (message.type) {
    case 'run':
      return { status: 'running', requestId: message.requestId, startedAt: message.at };
    case 'cancel':
      return runtime.status === 'running' ? { ...runtime, status: 'cancelling' } : runtime;
    case 'rows': {
      if (runtime.status === 'idle' || runtime.requestId !== message.requestId) return runtime;
      const columns = message.columns ?? runtime.streamed?.columns ?? [];
      const rows = message.rows.length === 0 ? (runtime.streamed?.rows ?? []) : [...(runtime.streamed?.rows ?? []), ...message.rows];
      return { ...runtime, streamed: { columns, rows, rowCount: message.rowCount, elapsedMs: message.at - runtime.startedAt } };
    }
    case 'finish':
    case 'fail':
      return idleRuntime;
    default: {
      const unreachable: never = message;
      return unreachable;
    }
  }
}
