import type { EventName, EventPayload } from '../contract/api';
import { WorkbenchError } from '../contract/errors';
import type { RunEvent } from '../contract/run';
import { refitWithAnalystRanking } from '../engine/techniques/dellma/refit';
import { createRunCellWriter, type CellSink } from '../engine/run-cells';
import { RunLog } from '../engine/run-log';
import type { Environment } from '../workspace/clock';
import type { NotebookStore } from '../workspace/notebook-store';
import type { RunStore } from '../workspace/run-store';

/**
 * [ext] An analyst ranks a batch of a finished DeLLMa run by hand: the re-fit
 * (engine/techniques/dellma/refit.ts, no model call) continues the run's hash-chained log
 * after its end — the analyst's review of the batch, then the re-fit's ranking, fit and
 * expected-utility events — so the notebook shows it as new cells after the run's own (which
 * stay), reports show it, and it survives a reload. Removing a re-fit moves its cells to the
 * trash and logs the withdrawal; the log itself is never rewritten.
 */
export function createDellmaRefitService(dependencies: {
  runs: RunStore;
  notebooks: NotebookStore;
  environment: Environment;
  /** Whether a run is still going (a live run is ranked at its own review points). */
  isLive(runId: string): boolean;
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
}) {
  const { runs, notebooks, environment } = dependencies;

  /** The run's notebook and connection, and its log read back. */
  const finishedRun = (runId: string) => {
    if (dependencies.isLive(runId)) throw new WorkbenchError('conflict', 'This run is still going: rank the batch at its review point in step-through');
    const entries = runs.events(runId);
    const start = entries[0]?.event;
    if (start?.type !== 'run-start' || start.technique !== 'dellma') throw new WorkbenchError('invalid-request', 'Only a DeLLMa run has batches to rank');
    const request = runs.request(runId) as { notebookId?: unknown; connectionId?: unknown } | null;
    if (typeof request?.notebookId !== 'string') throw new WorkbenchError('not-found', `The notebook of run ${runId} is not known`);
    return { entries, notebookId: request.notebookId, connectionId: typeof request.connectionId === 'string' ? request.connectionId : null };
  };

  /** A log continuing the run's chain; `cells` also projects its events into the notebook after the run's last cell. */
  const continueLog = (runId: string, notebookId: string, connectionId: string | null, entries: ReturnType<RunStore['events']>, cells: boolean): RunLog => {
    const log = new RunLog(runId, environment.now, entries.at(-1) ?? null);
    log.onEntry((entry) => runs.appendEvent(entry));
    if (cells) {
      const notebookCells = notebooks.get(notebookId).cells;
      const sink: CellSink = {
        insert: (draft, afterCellId) => {
          const cell = notebooks.insertCell({ ...draft, notebookId, afterCellId });
          dependencies.emit('cell-change', { notebookId, cell });
          return cell.id;
        },
        saveOutput: (cellId, output) => notebooks.saveOutput(cellId, output),
        rewrite: (cellId, content) => dependencies.emit('cell-change', { notebookId, cell: notebooks.rewriteRunCell(cellId, content) }),
      };
      const afterCellId = notebookCells.filter((cell) => cell.provenance.runId === runId).at(-1)?.id ?? notebookCells.at(-1)?.id ?? null;
      log.onEntry(createRunCellWriter(sink, { runId, connectionId, afterCellId }));
    }
    return log;
  };

  return {
    /** Re-fits the run with batch `batch` ranked as `lines` (`number | option | future`, best first); returns the re-fit's node. */
    rankBatch(runId: string, batch: number, lines: readonly string[]): { node: string } {
      const { entries, notebookId, connectionId } = finishedRun(runId);
      const steps = entries.flatMap(({ event }) => (event.type === 'tool' && event.tool.startsWith('dellma.') ? [{ tool: event.tool, input: event.input }] : []));
      const refit = refitWithAnalystRanking(steps, batch, lines);
      const earlier = new Set(entries.flatMap(({ event }) => ('node' in event && typeof event.node === 'string' && event.node.startsWith('refit-') ? [event.node] : [])));
      const node = `refit-${earlier.size + 1}`;
      // Its own step after everything the run did, so a report groups the re-fit apart.
      const step = Math.max(0, ...entries.map(({ event }) => ('step' in event && typeof event.step === 'number' ? event.step : 0))) + 1;
      const log = continueLog(runId, notebookId, connectionId, entries, true);
      const events: RunEvent[] = [
        {
          type: 'analyst-review',
          step,
          node,
          action: 'edit',
          subject: 'ranking',
          original: refit.originalLines.join('\n'),
          edited: refit.analystLines.join('\n'),
          note: `[ext] Batch ${batch} ranked by hand after the run; the fit, expected utilities, sensitivity and decision were computed again from the run's recorded batches with this ranking in place of batch ${batch}'s (no model call). The run's own cells stay as they were.`,
        },
        { type: 'tool', step, node, tool: 'dellma.rank', input: refit.rank.record, output: refit.rank.text },
        { type: 'tool', step, node, tool: 'dellma.fit', input: refit.fit.record, output: refit.fit.text },
        { type: 'tool', step, node, tool: 'dellma.expected', input: refit.expected.record, output: refit.expected.text },
      ];
      for (const event of events) log.append(event);
      return { node };
    },

    /** Removes a re-fit: its cells go to the trash (restorable) and the log records the withdrawal. */
    withdraw(runId: string, node: string): { removedCells: string[] } {
      if (!/^refit-\d+$/.test(node)) throw new WorkbenchError('invalid-request', `"${node}" is not a re-fit`);
      const { entries, notebookId, connectionId } = finishedRun(runId);
      if (!entries.some(({ event }) => 'node' in event && event.node === node)) throw new WorkbenchError('not-found', `Run ${runId} has no ${node}`);
      const cells = notebooks.get(notebookId).cells.filter((cell) => cell.provenance.runId === runId && cell.provenance.node === node);
      for (const cell of cells) notebooks.deleteCell(cell.id);
      const step = Math.max(0, ...entries.map(({ event }) => ('step' in event && typeof event.step === 'number' ? event.step : 0)));
      continueLog(runId, notebookId, connectionId, entries, false).append({ type: 'analyst-review', step, node, action: 'note', subject: 'ranking', original: '', edited: null, note: `[ext] The analyst removed the re-fit ${node}; the run's own decision stands.` });
      return { removedCells: cells.map((cell) => cell.id) };
    },
  };
}
