import type { Author, CellKind, CellOutput, Provenance } from '../contract/notebook';
import type { LoggedEvent } from '../audit/hash-chain';

/** A cell a run adds to a notebook. */
export interface RunCellDraft {
  kind: CellKind;
  author: Author;
  source: string;
  connectionId: string | null;
  provenance: Provenance;
  data: Record<string, unknown>;
}

/** Where a run's cells go: the workspace's notebook store, or an in-memory list for the CLI. */
export interface CellSink {
  /** Appends after the run's previous cell and returns the new cell's id. */
  insert(draft: RunCellDraft, afterCellId: string | null): string;
  saveOutput(cellId: string, output: CellOutput): void;
}

/**
 * Turns a run's events into notebook cells as they arrive: the notebook is a projection of the
 * run log, so the live view, a reopened notebook and an exported report all show the same run.
 */
export function createRunCellWriter(
  sink: CellSink,
  context: {
    runId: string;
    connectionId: string | null;
    afterCellId: string | null;
    /** Query cells written before (a resumed run), by query id. */
    knownQueryCells?: Map<string, string>;
  },
): (entry: LoggedEvent) => void {
  let last = context.afterCellId;
  const queryCells = new Map<string, string>(context.knownQueryCells ?? []);
  const add = (step: number | undefined, draft: Omit<RunCellDraft, 'provenance' | 'connectionId'> & { connectionId?: string | null }): string => {
    last = sink.insert(
      { connectionId: null, ...draft, provenance: { runId: context.runId, ...(step === undefined ? {} : { step }) } },
      last,
    );
    return last;
  };

  return ({ event, at }) => {
    switch (event.type) {
      case 'run-start':
        add(undefined, {
          kind: 'question',
          author: 'analyst',
          source: event.question,
          data: { businessRules: event.rules, technique: event.technique, model: event.model.description, mode: event.mode },
        });
        return;
      case 'plan':
        add(event.step, { kind: 'plan', author: 'model', source: numbered(event.steps), data: { steps: event.steps } });
        return;
      case 'thought':
        add(event.step, { kind: 'thought', author: 'model', source: event.text, data: {} });
        return;
      case 'replan':
        add(event.step, {
          kind: 'replan',
          author: event.author,
          source: `${numbered(event.steps)}\n\n**Why:** ${event.reason}`,
          data: { previous: event.previous, steps: event.steps, reason: event.reason },
        });
        return;
      case 'query-start':
        queryCells.set(
          event.queryId,
          add(event.step, { kind: 'query', author: event.author, source: event.query, connectionId: context.connectionId, data: { queryId: event.queryId } }),
        );
        return;
      case 'query-end': {
        const cellId = queryCells.get(event.queryId);
        if (!cellId) return;
        const connectionId = context.connectionId ?? '';
        if (event.result) sink.saveOutput(cellId, { status: 'ok', result: event.result, ranAt: at, connectionId });
        else if (event.error) sink.saveOutput(cellId, { status: 'error', error: event.error, ranAt: at, connectionId });
        return;
      }
      case 'observation':
        add(event.step, { kind: 'observation', author: 'engine', source: event.text, data: { queryId: event.queryId, queryCellId: event.queryId ? (queryCells.get(event.queryId) ?? null) : null } });
        return;
      case 'analyst-review':
        if (event.action === 'note' || (event.action === 'skip' && event.note)) {
          add(event.step, { kind: 'note', author: 'analyst', source: `**Analyst note (${event.subject}):** ${event.note ?? ''}`, data: { review: event.action } });
        }
        return;
      case 'decision':
        add(event.step, {
          kind: 'decision',
          author: 'model',
          source: `**Decision:** ${event.decision}\n\n${event.rationale}`,
          data: {
            decision: event.decision,
            rationale: event.rationale,
            evidence: event.evidence.map((queryId) => queryCells.get(queryId) ?? queryId),
            verification: event.verification ?? null,
          },
        });
        return;
      case 'simulation': {
        const cellId = add(event.step, { kind: 'simulation', author: 'engine', source: JSON.stringify(event.result.spec), connectionId: context.connectionId, data: { requested: event.requested } });
        sink.saveOutput(cellId, { status: 'simulated', simulation: event.result, ranAt: at, connectionId: context.connectionId ?? '' });
        return;
      }
      case 'whatif': {
        const cellId = add(event.step, { kind: 'whatif', author: 'model', source: JSON.stringify(event.spec, null, 2), connectionId: context.connectionId, data: {} });
        const connectionId = context.connectionId ?? '';
        if (event.result) sink.saveOutput(cellId, { status: 'whatif', whatif: event.result, ranAt: at, connectionId });
        else if (event.error) sink.saveOutput(cellId, { status: 'error', error: event.error, ranAt: at, connectionId });
        return;
      }
      case 'run-end':
        if (event.status !== 'answered') {
          add(undefined, { kind: 'note', author: 'engine', source: `**Run ended: ${event.status}.** ${event.message ?? ''}`, data: { status: event.status } });
        }
        return;
      case 'run-resume':
        add(event.step, { kind: 'note', author: 'engine', source: '**Run resumed** after the app stopped; the last model call is made again.', data: {} });
        return;
      case 'model-request':
      case 'model-response':
      case 'model-repair':
        return; // in the run log and the transcript, not in the notebook
    }
  };
}

function numbered(steps: string[]): string {
  return steps.map((step, index) => `${index + 1}. ${step}`).join('\n');
}
