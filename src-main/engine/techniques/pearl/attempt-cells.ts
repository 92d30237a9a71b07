import type { RunEvent } from '../../../contract/run';
import type { CellWriter } from '../../tools/tool';

/** One attempt of the planner as the program cell lists it (contract-free, read by cells/ProgramCell.tsx). */
export interface ProgramAttemptEntry {
  attempt: number;
  maxAttempts?: number;
  program: string;
  valid: boolean;
  errors: unknown[];
}

const gatherKey = 'pearl-program-attempts';

/**
 * The planner's attempts at a program (attempt 1, the parser's refusal, attempt 2, … up to the
 * accepted one) go into ONE cell: the first attempt adds it, each later attempt rewrites it with
 * its own program on top and every attempt listed in `data.attempts`. The run log keeps every
 * attempt as its own `pearl-program` event (reports list them from there); only the notebook
 * gathers them, so eight refusals read as one card, not eight identical ones.
 *
 * Returns false for a record that is no numbered attempt of the model (the analyst's program or
 * edit), which stays a cell of its own.
 */
export function gatherProgramAttempt(event: Extract<RunEvent, { type: 'tool' }>, cells: CellWriter): boolean {
  const input = event.input as Record<string, unknown> | null;
  if (typeof input !== 'object' || input === null || typeof input['attempt'] !== 'number') return false;
  const entry = attemptEntry(input);
  const open = entry.attempt > 1 ? cells.gathering.get(gatherKey) : undefined;
  if (!open) {
    const data = { queryId: null, queryCellId: null, tool: event.tool, input, attempts: [entry] };
    const cellId = cells.add(event.step, { kind: 'observation', author: 'engine', source: event.output, node: event.node, data });
    cells.gathering.set(gatherKey, { cellId, source: event.output, data });
    return true;
  }
  const previous = open.data as { input: Record<string, unknown>; attempts: ProgramAttemptEntry[] };
  // The library's signatures ride on every model attempt; keep them should one lack them.
  const merged = { ...input, library: input['library'] ?? previous.input['library'] };
  const data = { ...open.data, input: merged, attempts: [...previous.attempts, entry] };
  const source = `${open.source}\n\n${event.output}`;
  cells.rewrite(open.cellId, { source, data });
  cells.gathering.set(gatherKey, { cellId: open.cellId, source, data });
  return true;
}

function attemptEntry(input: Record<string, unknown>): ProgramAttemptEntry {
  return {
    attempt: input['attempt'] as number,
    ...(typeof input['maxAttempts'] === 'number' ? { maxAttempts: input['maxAttempts'] } : {}),
    program: typeof input['program'] === 'string' ? input['program'] : '',
    valid: input['valid'] === true,
    errors: Array.isArray(input['errors']) ? input['errors'] : [],
  };
}
