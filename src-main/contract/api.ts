import { z } from 'zod';
import { cellValueSchema, queryResultSchema } from './data';
import { fidelitySchema } from './fidelity';
import { connectionRequests } from './connections';
import { reportRequests } from './reports';
import { resultExportProgressSchema, resultExportRequests } from './result-export';
import { trashRequests } from './trash';
import { searchRequests } from './search';
import { queryHistoryRequests } from './query-history';
import { benchmarkRequests, benchmarkSummarySchema } from './benchmarks';
import { playbookRequests, playbookTrainingSchema } from './playbooks';
import { documentRequests, documentSummarySchema } from './documents';
import { exampleRequests } from './examples';
import { localModelsViewSchema } from './local-models';
import { actionLibraryRequests, pearlRequests } from './pearl';
import { connectionReportSchema, modelSettingsViewSchema, providerSettingsSchema } from './model';
import { reviewDecisionSchema, runProgressSchema, runSummarySchema, techniqueIdSchema, techniqueInfoSchema } from './run';
import { checkPlanSchema, scenarioParametersSchema, scenarioSchema, simulationResultSchema, simulationSpecSchema, simulatorChoiceSchema } from './simulation';
import { whatIfResultSchema, whatIfSpecSchema } from './whatif';
import { queryDisplaySchema } from './query-display';
import { dellmaCostEstimateSchema, dellmaRunSettingsSchema } from './dellma';
import {
  authorSchema,
  cellKindSchema,
  cellSchema,
  notebookSchema,
  notebookSummarySchema,
  provenanceSchema,
  querySettingsSchema,
} from './notebook';

const empty = z.object({});
const ok = z.object({ ok: z.literal(true) });
const id = z.object({ id: z.string() });

/**
 * Every request the renderer (or any other client) can make of the main-process services,
 * with the schema of its parameters and of its result. Both transports (Electron IPC and the
 * browser-mode WebSocket) carry exactly these; the main process validates every request.
 */
export const api = {
  'workspace/info': {
    params: empty,
    result: z.object({ directory: z.string(), transport: z.enum(['ipc', 'websocket']), version: z.string() }),
  },

  /** Saved connections: add, edit, test, remove, schema (see ./connections.ts). */
  ...connectionRequests,
  ...reportRequests,
  /** A query cell's whole result as CSV, streamed to a file or a download (see ./result-export.ts). */
  ...resultExportRequests,
  ...benchmarkRequests,
  ...pearlRequests,
  ...actionLibraryRequests,
  /** Deleted notebooks, cells and connections: list, restore, empty (see ./trash.ts). */
  ...trashRequests,
  /** Text search across every notebook's cells (see ./search.ts). */
  ...searchRequests,
  ...queryHistoryRequests,
  ...playbookRequests,
  /** Documents attached to a notebook (see ./documents.ts). */
  ...documentRequests,
  /** Bundled examples opened in one click (see ./examples.ts). */
  ...exampleRequests,

  'notebooks/list': { params: empty, result: z.array(notebookSummarySchema) },
  'notebooks/get': { params: id, result: notebookSchema },
  'notebooks/create': { params: z.object({ title: z.string().trim().min(1).max(200) }), result: notebookSchema },
  'notebooks/rename': { params: z.object({ id: z.string(), title: z.string().trim().min(1).max(200) }), result: notebookSummarySchema },
  'notebooks/duplicate': { params: id, result: notebookSchema },
  /** Moves a notebook to the trash; `notebooks/restore` brings it back. */
  'notebooks/delete': { params: id, result: ok },
  'notebooks/restore': { params: id, result: notebookSummarySchema },

  'cells/insert': {
    params: z.object({
      notebookId: z.string(),
      /** Insert after this cell; null inserts at the top, absent appends. */
      afterCellId: z.string().nullable().optional(),
      kind: cellKindSchema,
      author: authorSchema.default('analyst'),
      source: z.string().default(''),
      connectionId: z.string().nullable().optional(),
      settings: querySettingsSchema.optional(),
      provenance: provenanceSchema.optional(),
      data: z.record(z.string(), z.unknown()).optional(),
    }),
    result: cellSchema,
  },
  /** Autosave target: every analyst edit lands here, and is durable once this returns. */
  'cells/update': {
    params: z.object({
      id: z.string(),
      source: z.string().optional(),
      connectionId: z.string().nullable().optional(),
      settings: querySettingsSchema.optional(),
      /** A query cell's table or chart and the chart's settings (kept in its data). */
      display: queryDisplaySchema.optional(),
    }),
    result: cellSchema,
  },
  /**
   * Turns an analyst's query into a note or back, in place (same id and position, nothing in
   * the trash); the output is dropped and a note has no connection.
   */
  'cells/change-kind': {
    params: z.object({ id: z.string(), kind: z.enum(['query', 'note']), connectionId: z.string().nullable().optional() }),
    result: cellSchema,
  },
  'cells/move': { params: z.object({ id: z.string(), afterCellId: z.string().nullable() }), result: ok },
  /** Moves a cell to the trash; `cells/restore` puts it back where it was. */
  'cells/delete': { params: id, result: ok },
  'cells/restore': { params: id, result: cellSchema },

  /**
   * Runs one query. `requestId` names the run so `query/cancel` can stop it; with `cellId`
   * the output is saved with that cell.
   */
  'query/run': {
    params: z.object({
      requestId: z.string().min(1),
      connectionId: z.string(),
      text: z.string(),
      settings: querySettingsSchema,
      cellId: z.string().optional(),
    }),
    result: queryResultSchema,
  },
  'query/cancel': { params: z.object({ requestId: z.string() }), result: z.object({ cancelled: z.boolean() }) },

  /** The model endpoint used by decision runs. */
  'model/get': { params: empty, result: modelSettingsViewSchema },
  /** Saves the settings; `apiKey` absent keeps the stored key, empty removes it. */
  'model/save': {
    params: z.object({ settings: providerSettingsSchema.omit({ apiKey: true }), apiKey: z.string().optional() }),
    result: modelSettingsViewSchema,
  },
  /** Lists models, makes one tiny call and probes tool calling; never throws for a bad endpoint. */
  'model/test': {
    params: z.object({ settings: providerSettingsSchema.omit({ apiKey: true }), apiKey: z.string().optional() }),
    result: connectionReportSchema,
  },

  /** Starts a decision run whose steps become cells at the end of the notebook. */
  'runs/start': {
    params: z.object({
      notebookId: z.string(),
      connectionId: z.string(),
      question: z.string().trim().min(1),
      rules: z.string().default(''),
      technique: techniqueIdSchema,
      mode: z.enum(['auto', 'step']),
      maxSteps: z.number().int().min(1).max(200).optional(),
      /** How the decision is checked: the simulator's rules when one fits the data (and the `simulate` tool), and the scenario parameters the question names. */
      simulator: simulatorChoiceSchema.default({ rules: 'stated', known: {} }),
      /** Offer the model `whatif` experiments on a throwaway copy of the data (SQLite connections). */
      whatIf: z.boolean().default(true),
      /**
       * The technique's own options, checked by the run manager with the technique's schema
       * (`TechniqueDefinition.options`: Pearl's `actionLibrary`, DeLLMa's variant and sizes);
       * refused for a technique that declares none.
       */
      techniqueOptions: z.record(z.string(), z.unknown()).optional(),
      /** Fidelity to the technique's paper (contract/fidelity.ts); app runs default to the product's labelled extensions. */
      fidelity: fidelitySchema.default('product'),
      /** The temperature of every turn the technique does not fix itself; absent: the fidelity's (paper: 0) or the model settings'. */
      temperature: z.number().min(0).max(2).optional(),
    })
      // A field this version does not take (the `known`, `actionLibrary` or `dellma` of before) is refused, not dropped.
      .strict(),
    result: z.object({ runId: z.string() }),
  },
  /** DeLLMa: the model calls and tokens a run would cost, from the question's options and the sizes, before it starts. */
  'dellma/estimate': {
    params: z.object({ question: z.string(), rules: z.string().default(''), settings: dellmaRunSettingsSchema, /** Counts the notebook's attached documents into the context. */ notebookId: z.string().optional() }),
    result: dellmaCostEstimateSchema,
  },
  /**
   * [ext] Ranks a batch of a finished DeLLMa run by hand (`number | option | future` lines, best
   * first): the fit, expected utilities, sensitivity and decision are computed again in code from
   * the run's recorded batches, added to its log and notebook as the analyst's re-fit (`node`).
   */
  'dellma/rank-batch': { params: z.object({ runId: z.string(), batch: z.number().int().min(1), lines: z.array(z.string()).min(1) }), result: z.object({ node: z.string() }) },
  /** [ext] Removes an analyst's re-fit: its cells go to the trash, the log records the withdrawal. */
  'dellma/withdraw-refit': { params: z.object({ runId: z.string(), node: z.string() }), result: z.object({ removedCells: z.array(z.string()) }) },
  /**
   * Re-runs one node of a finished Plan*RAG run as a new run [ext]: the node (with an edited
   * question or a pinned answer) and its descendants run again, the rest is kept, the decision is made and checked again.
   */
  'runs/rerun-node': {
    params: z.object({ runId: z.string(), node: z.string().min(1), question: z.string().trim().min(1).optional(), pinned: z.string().trim().min(1).optional() }),
    result: z.object({ runId: z.string() }),
  },
  /**
   * Answers one of the run's pending step-through questions: the one `key` names
   * (`reviewKeyOf` of its request), or, without a key, the oldest.
   */
  'runs/review': { params: z.object({ runId: z.string(), key: z.string().min(1).optional(), decision: reviewDecisionSchema }), result: ok },
  'runs/stop': { params: z.object({ runId: z.string() }), result: ok },
  /** Carries on a run the app stopped in the middle of (status `interrupted`). */
  'runs/resume': { params: z.object({ runId: z.string() }), result: ok },
  /** Pauses (`step`: wait at the next query or re-plan) or resumes (`auto`) a live run. */
  'runs/set-mode': { params: z.object({ runId: z.string(), mode: z.enum(['auto', 'step']) }), result: ok },
  'runs/list': { params: z.object({ notebookId: z.string() }), result: z.array(runSummarySchema) },
  /** The runs of every notebook (not in the trash), newest first, each with its notebook's title. */
  'runs/list-all': {
    params: z.object({ limit: z.number().int().min(1).max(1000).default(200) }),
    result: z.object({ runs: z.array(runSummarySchema.extend({ notebookTitle: z.string() })), more: z.boolean() }),
  },
  /** Progress of the runs still going (to restore the view after a reload). */
  'runs/active': { params: empty, result: z.array(runProgressSchema) },
  /** The techniques this workbench has (src-main/engine/techniques/registry.ts), in registry order. */
  'runs/techniques': { params: empty, result: z.array(techniqueInfoSchema) },

  /** Which simulator, if any, fits a connection's data. */
  'simulations/detect': { params: z.object({ connectionId: z.string() }), result: z.object({ scenario: scenarioSchema.nullable() }) },
  /**
   * How a run of this question would have its decision checked (the composer's preview): the
   * scenario, the parameters read from the question, those the simulator would use (the
   * analyst's `known` winning), the ones the data lacks, and why it would not be checked.
   */
  'simulations/check-plan': {
    params: z.object({ connectionId: z.string(), question: z.string(), known: scenarioParametersSchema.default({}), simulatorRules: z.enum(['stated', 'compat', 'off']).default('stated') }),
    result: checkPlanSchema,
  },
  /** Simulates every candidate decision; with `cellId` the result is saved with that simulation cell. */
  'simulations/run': {
    params: z.object({ connectionId: z.string(), spec: simulationSpecSchema, cellId: z.string().optional() }),
    result: simulationResultSchema,
  },
  /** Whether a what-if experiment can run on the connection (its data must be a copyable database file). */
  'whatif/support': {
    params: z.object({ connectionId: z.string() }),
    /** `reason`: why experiments cannot run here; `note`: where they run when not on the data itself. */
    result: z.object({ supported: z.boolean(), reason: z.string().nullable(), note: z.string().nullable() }),
  },
  /**
   * Ranks candidate changes on a throwaway copy of the connection's database; with `cellId` the
   * result is saved with that what-if cell. With `requestId` it reports `whatif-progress` and can
   * be stopped by `whatif/cancel` (between candidates; the one running finishes or meets its limit).
   */
  'whatif/run': {
    params: z.object({ connectionId: z.string(), spec: whatIfSpecSchema, cellId: z.string().optional(), requestId: z.string().optional() }),
    result: whatIfResultSchema,
  },
  'whatif/cancel': { params: z.object({ requestId: z.string() }), result: z.object({ cancelled: z.boolean() }) },

  /** GGUF model files the analyst added: read from their headers, never downloaded. */
  'local-models/list': { params: empty, result: localModelsViewSchema },
  /** Adds a file by path; refuses a file that is not GGUF or a model llama.cpp cannot run. */
  'local-models/add': { params: z.object({ path: z.string().min(1) }), result: localModelsViewSchema },
  /** Removes it from the list (unloading it); the file stays. */
  'local-models/remove': { params: z.object({ id: z.string() }), result: localModelsViewSchema },
  /** Loads it in its own process (unloading any other), reporting `local-model-progress`; refuses when memory is short. */
  'local-models/load': {
    params: z.object({ id: z.string(), threads: z.number().int().positive().optional(), contextSize: z.number().int().min(256).optional() }),
    result: localModelsViewSchema,
  },
  'local-models/unload': { params: empty, result: localModelsViewSchema },
  /** Decision runs use this model (null: the HTTP endpoint of the model settings). */
  'local-models/select': { params: z.object({ id: z.string().nullable() }), result: localModelsViewSchema },

  /** Native file picker in the desktop app; browser mode answers `unsupported`. */
  'dialog/open-file': {
    params: z.object({ title: z.string(), extensions: z.array(z.string()) }),
    result: z.object({ path: z.string().nullable() }),
  },
} as const;

export type Api = typeof api;
export type Method = keyof Api;
export type Params<M extends Method> = z.input<Api[M]['params']>;
export type Result<M extends Method> = z.output<Api[M]['result']>;

/** Events pushed from the main process to every client. Names are noun-verb. */
export const events = {
  'query-start': z.object({ requestId: z.string(), connectionId: z.string(), cellId: z.string().optional() }),
  'query-end': z.object({
    requestId: z.string(),
    cellId: z.string().optional(),
    status: z.enum(['ok', 'error', 'cancelled']),
    rowCount: z.number().int().optional(),
    elapsedMs: z.number(),
  }),
  /**
   * A cell's query is streaming: rows read so far. `rows` are the next rows of the preview (empty
   * once the preview is full; `columns` come with the first rows), `rowCount` counts every row read.
   */
  'query-rows': z.object({
    requestId: z.string(),
    cellId: z.string().optional(),
    columns: z.array(z.object({ name: z.string(), type: z.string() })).optional(),
    rows: z.array(z.array(cellValueSchema)),
    rowCount: z.number().int(),
  }),
  'notebooks-change': z.object({}),
  /** A notebook's attached documents changed (in another window too). */
  'documents-change': z.object({ notebookId: z.string(), documents: z.array(documentSummarySchema) }),
  /** A cell written by the engine (a run step) or changed outside this window. */
  'cell-change': z.object({ notebookId: z.string(), cell: cellSchema }),
  'run-progress': runProgressSchema,
  /** Model text as it streams in, for the live view. */
  'run-token': z.object({ runId: z.string(), text: z.string() }),
  'connections-change': z.object({}),
  /** Loading progress of a local model (0…1). */
  'local-model-progress': z.object({ id: z.string(), progress: z.number() }),
  /** Candidates done so far in a what-if run started with a `requestId` (a few updates a second at most). */
  /** Rows written so far by a result export, and how it ended. */
  'result-export-progress': resultExportProgressSchema,
  'whatif-progress': z.object({ requestId: z.string(), done: z.number().int(), total: z.number().int() }),
  /** A technique benchmark moved on (a question decided, a stop, the end). */
  'benchmark-progress': benchmarkSummarySchema,
  /** Playbook versions were added, reviewed or pinned, or a training moved on. */
  'playbooks-change': z.object({ training: playbookTrainingSchema.optional() }),
} as const;
export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]>;
