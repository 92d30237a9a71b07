import type { Author, CellKindData, CellOutput, Provenance } from '../contract/notebook';
import type { RunEvent } from '../contract/run';
import type { LoggedEvent } from '../audit/hash-chain';
import { reviewNoteSource } from './review-cells';
import { registeredTechniques } from './techniques/registry';
import { registeredTools } from './tools/registry';
import type { CellProjection, CellWriter } from './tools/tool';

/** A cell a run adds to a notebook: its kind and that kind's data (contract/notebook.ts `cellDataSchemas`). */
export type RunCellDraft = {
  author: Author;
  source: string;
  connectionId: string | null;
  provenance: Provenance;
} & CellKindData;

/** Where a run's cells go: the workspace's notebook store, or an in-memory list for the CLI. */
export interface CellSink {
  /** Appends after the run's previous cell and returns the new cell's id. */
  insert(draft: RunCellDraft, afterCellId: string | null): string;
  saveOutput(cellId: string, output: CellOutput): void;
  /** Rewrites the text and kind data of a cell this run added (a cell later events add to). */
  rewrite(cellId: string, content: { source: string; data: Record<string, unknown> }): void;
}

type Project = (event: RunEvent, at: string, cells: CellWriter) => void;

/**
 * The run's own events (start, end, resume, thoughts, review notes) become cells here; the
 * events of a tool become cells through that tool's projection (./tools/), so a new tool
 * brings its cells with it.
 */
const runProjection: CellProjection = {
  'run-start': (event, _at, cells) => {
    cells.add(undefined, {
      kind: 'question',
      author: 'analyst',
      source: event.question,
      data: { businessRules: event.rules, technique: event.technique, model: event.model.description, mode: event.mode },
    });
  },
  thought: (event, _at, cells) => {
    cells.add(event.step, { kind: 'thought', author: 'model', source: event.text, node: event.node, data: {} });
  },
  'analyst-review': (event, _at, cells) => {
    const source = reviewNoteSource(event);
    if (source !== null) cells.add(event.step, { kind: 'note', author: 'analyst', source, node: event.node, data: { review: event.action, subject: event.subject } });
    // "Stop & continue by hand": the pending query becomes the analyst's own cell, to edit and run.
    if (event.action === 'stop' && event.subject === 'query') {
      cells.add(event.step, { kind: 'query', author: 'analyst', source: event.original, connectionId: cells.connectionId, node: event.node, data: { continueByHand: true } });
    }
  },
  // A technique's own events go to its cell hook, and keep their structured input: the notebook draws a plan graph, a program or a step from it.
  tool: (event, _at, cells) => {
    const technique = registeredTechniques().find((candidate) => candidate.cells?.toolPrefixes.some((prefix) => event.tool.startsWith(prefix)));
    if (technique?.cells?.project?.(event, cells)) return;
    const keepsInput = technique !== undefined;
    cells.add(event.step, { kind: 'observation', author: 'engine', source: event.output, node: event.node, data: { queryId: null, queryCellId: null, tool: event.tool, ...(keepsInput ? { input: event.input } : {}) } });
  },
  'run-end': (event, _at, cells) => {
    if (event.status !== 'answered') {
      cells.add(undefined, { kind: 'note', author: 'engine', source: `**Run ended: ${event.status}.** ${keepAngleBrackets(event.message ?? '')}`, data: { status: event.status } });
    }
  },
  'run-resume': (event, _at, cells) => {
    cells.add(event.step, { kind: 'note', author: 'engine', source: '**Run resumed** after the app stopped; the last model call is made again.', data: {} });
  },
  // model-request, model-response and model-repair are in the run log and the transcript, not in the notebook.
};

/**
 * A run's closing message inside a Markdown note. The notebook renders notes without HTML, so a
 * placeholder such as `<unknown> = <value>` in a message would read as a tag and vanish; a
 * backslash before a tag-like `<` keeps it as text (CommonMark escape) and adds no markup.
 */
function keepAngleBrackets(message: string): string {
  return message.replace(/<(?=[A-Za-z/!?])/g, '\\<');
}

/**
 * Each event type's projection: the run's own, then every registered tool's (a tool's own wins
 * for its events). The generic `tool` event goes to the projection of the tool it names, when
 * that tool has one.
 */
function projections(): (event: RunEvent) => Project | undefined {
  const byType = new Map<string, Project>();
  const byTool = new Map<string, Project>();
  for (const tool of registeredTools()) {
    for (const [type, project] of Object.entries(tool.cells ?? {})) {
      if (type === 'tool') byTool.set(tool.name, project as Project);
      else byType.set(type, project as Project);
    }
  }
  for (const [type, project] of Object.entries(runProjection)) if (!byType.has(type)) byType.set(type, project as Project);
  return (event) => (event.type === 'tool' ? (byTool.get(event.tool) ?? byType.get('tool')) : byType.get(event.type));
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
  const projectionOf = projections();
  const cells: CellWriter = {
    connectionId: context.connectionId,
    queryCells: new Map<string, string>(context.knownQueryCells ?? []),
    add: (step, { node, ...draft }) => {
      const provenance: Provenance = { runId: context.runId, ...(step === undefined ? {} : { step }), ...(node ? { node } : {}) };
      last = sink.insert({ ...draft, connectionId: draft.connectionId ?? null, provenance } as RunCellDraft, last);
      return last;
    },
    saveOutput: (cellId, output) => sink.saveOutput(cellId, output),
    rewrite: (cellId, content) => sink.rewrite(cellId, content),
    gathering: new Map<string, { cellId: string; source: string; data: Record<string, unknown> }>(),
  };
  return ({ event, at }) => projectionOf(event)?.(event, at, cells);
}
