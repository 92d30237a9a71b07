import type { Cell } from '../../src-main/contract';

/**
 * The connection a notebook works on, for the run composer's default: its question cell's (the
 * data its last run asked about), else the first cell's that names one still in the list, else
 * the first connection. Defaulting to the first in the list ran a question against the demo
 * database in a notebook whose every query reads another one.
 */
export function notebookConnectionId(cells: readonly Pick<Cell, 'kind' | 'connectionId'>[], connections: readonly { id: string }[]): string | undefined {
  const live = (id: string | null): id is string => id !== null && connections.some((connection) => connection.id === id);
  const question = [...cells].reverse().find((cell) => cell.kind === 'question' && live(cell.connectionId));
  return question?.connectionId ?? cells.find((cell) => live(cell.connectionId))?.connectionId ?? connections[0]?.id;
}
