import { z } from 'zod';
import { queryResultSchema } from './data';
import { workbenchErrorSchema } from './error-schema';
import { queryDisplaySchema } from './query-display';
import { planNodeSchema, techniqueIdSchema } from './run';
import { decisionOriginSchema } from './produced-by';
import { simulationResultSchema, verificationSchema } from './simulation';
import { whatIfResultSchema } from './whatif';
import { defaultQuerySettings, minQueryTimeoutMs, querySettingsLimits } from './query-limits';

/**
 * Every step of an analysis is a cell. The kinds follow the PlanRAG loop (question → plan →
 * thought → query → observation → re-plan → … → decision), plus simulations, what-if
 * experiments and the analyst's own notes.
 */
export const cellKinds = ['question', 'plan', 'thought', 'query', 'observation', 'replan', 'simulation', 'whatif', 'decision', 'note'] as const;
export const cellKindSchema = z.enum(cellKinds);
export type CellKind = z.infer<typeof cellKindSchema>;

/** Who wrote a cell's content: the analyst, the model, or the workbench's own engine. */
export const authorSchema = z.enum(['analyst', 'model', 'engine']);
export type Author = z.infer<typeof authorSchema>;

export { defaultQuerySettings, minQueryTimeoutMs, querySettingsLimits };

export const querySettingsSchema = z.object({
  /** Rows kept from a result; more are not read and the result is marked truncated. */
  maxRows: z.number().int().min(1).max(querySettingsLimits.maxRows),
  /** Wall-clock limit of one run of the query, in milliseconds. */
  timeoutMs: z.number().int().min(minQueryTimeoutMs).max(querySettingsLimits.timeoutMs),
  /** How a Cypher result with nodes is shown: as rows (the default) or as a graph. Kept with the cell. */
  resultView: z.enum(['table', 'graph']).optional(),
  /** The node property the graph view captions nodes with; absent, each node's first name-like property. */
  graphCaption: z.string().max(200).optional(),
});
export type QuerySettings = z.infer<typeof querySettingsSchema>;

/** Where a cell came from, so the audit trail can say who produced what from what. */
export const provenanceSchema = z.object({
  /** The decision run that produced the cell, if any. */
  runId: z.string().optional(),
  /** Step number within that run. */
  step: z.number().int().optional(),
  /** The plan node the cell belongs to, when the run's technique named one (a graph's node, a program's line). */
  node: z.string().optional(),
  /** The cell this one was derived from (e.g. an edited copy of a model's query). */
  derivedFrom: z.string().optional(),
  /** Free-text origin, e.g. "bundled demo". */
  origin: z.string().optional(),
});
export type Provenance = z.infer<typeof provenanceSchema>;

export const cellOutputSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('ok'),
    result: queryResultSchema,
    ranAt: z.string(),
    connectionId: z.string(),
    /** The text that ran, when it was the analyst's (which may be edited since): what Export CSV runs again. */
    query: z.string().optional(),
  }),
  z.object({ status: z.literal('error'), error: workbenchErrorSchema, ranAt: z.string(), connectionId: z.string() }),
  /** A simulation cell's last run. */
  z.object({ status: z.literal('simulated'), simulation: simulationResultSchema, ranAt: z.string(), connectionId: z.string() }),
  /** A what-if cell's last run. */
  z.object({ status: z.literal('whatif'), whatif: whatIfResultSchema, ranAt: z.string(), connectionId: z.string() }),
]);
export type CellOutput = z.infer<typeof cellOutputSchema>;

/**
 * Each kind's structured content. Fields a run writes are optional because notebooks saved by
 * earlier versions, and cells the analyst adds, may lack them; keys a newer version adds are
 * kept (loose objects), so a notebook saved by it still opens here.
 */
export const cellDataSchemas = {
  question: z.looseObject({
    businessRules: z.string().optional(),
    technique: techniqueIdSchema.optional(),
    model: z.string().optional(),
    mode: z.enum(['auto', 'step']).optional(),
    /** A DQA question's id and what it names (the demo and the benchmark). */
    dqaId: z.string().optional(),
    known: z.looseObject({ country: z.string().optional(), home: z.string().optional(), goods: z.string().optional() }).optional(),
  }),
  plan: z.looseObject({ steps: z.array(z.string()).optional(), nodes: z.array(planNodeSchema).optional() }),
  thought: z.looseObject({}),
  /** `display`: the table or the chart, and the chart's settings, as the analyst left them. */
  query: z.looseObject({ queryId: z.string().optional(), display: queryDisplaySchema.optional() }),
  observation: z.looseObject({ queryId: z.string().nullable().optional(), queryCellId: z.string().nullable().optional(), tool: z.string().optional() }),
  replan: z.looseObject({ previous: z.array(z.string()).optional(), steps: z.array(z.string()).optional(), reason: z.string().optional() }),
  simulation: z.looseObject({ requested: z.array(z.string()).nullable().optional() }),
  whatif: z.looseObject({}),
  decision: z.looseObject({
    decision: z.string().optional(),
    rationale: z.string().optional(),
    /** Cell ids of the query cells the decision cites (query ids where no cell was written). */
    evidence: z.array(z.string()).optional(),
    verification: verificationSchema.nullable().optional(),
    /** Why the simulator did not check the decision (shown as "not checked: …"). */
    unchecked: z.string().optional(),
    /** Who made the decision (a fallback, a copied simulate/whatif ranking); absent in older notebooks. */
    origin: decisionOriginSchema.optional(),
  }),
  note: z.looseObject({ review: z.string().optional(), status: z.string().optional() }),
} satisfies Record<CellKind, z.ZodType>;
export type CellData<K extends CellKind = CellKind> = z.infer<(typeof cellDataSchemas)[K]>;

const cellBaseSchema = z.object({
  id: z.string(),
  notebookId: z.string(),
  author: authorSchema,
  /** The cell's text: SQL or Cypher for query cells, Markdown for notes, prose otherwise. */
  source: z.string(),
  /** Query cells: the connection they run against. */
  connectionId: z.string().nullable(),
  settings: querySettingsSchema,
  provenance: provenanceSchema,
  /** The last run's output of a query cell, kept so a reopened notebook shows it. */
  output: cellOutputSchema.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** The kind and its data, typed together: a zod discriminated union on `kind`. */
export const cellKindDataSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('question'), data: cellDataSchemas.question }),
  z.object({ kind: z.literal('plan'), data: cellDataSchemas.plan }),
  z.object({ kind: z.literal('thought'), data: cellDataSchemas.thought }),
  z.object({ kind: z.literal('query'), data: cellDataSchemas.query }),
  z.object({ kind: z.literal('observation'), data: cellDataSchemas.observation }),
  z.object({ kind: z.literal('replan'), data: cellDataSchemas.replan }),
  z.object({ kind: z.literal('simulation'), data: cellDataSchemas.simulation }),
  z.object({ kind: z.literal('whatif'), data: cellDataSchemas.whatif }),
  z.object({ kind: z.literal('decision'), data: cellDataSchemas.decision }),
  z.object({ kind: z.literal('note'), data: cellDataSchemas.note }),
]);
/** A kind with its data, e.g. `{ kind: 'plan', data: { steps: […] } }`. */
export type CellKindData = z.infer<typeof cellKindDataSchema>;

export const cellSchema = z.intersection(cellBaseSchema, cellKindDataSchema);

/**
 * A saved cell's data read as its kind's type. A field whose value does not fit (a notebook
 * written by hand, or damaged) is moved under `unreadable` rather than dropped or failing the
 * notebook, so nothing is lost and the rest of the cell still shows.
 */
export function readCellData<K extends CellKind>(kind: K, raw: unknown): CellData<K> {
  const schema = cellDataSchemas[kind] as unknown as z.ZodType<CellData<K>>;
  const record = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : { value: raw };
  const parsed = schema.safeParse(record);
  if (parsed.success) return parsed.data;
  const bad = new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '')));
  const kept = Object.fromEntries(Object.entries(record).filter(([key]) => !bad.has(key)));
  const unreadable = Object.fromEntries(Object.entries(record).filter(([key]) => bad.has(key)));
  return { ...schema.parse(kept), unreadable } as CellData<K>;
}
export type Cell = z.infer<typeof cellSchema>;

export const notebookSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  cellCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type NotebookSummary = z.infer<typeof notebookSummarySchema>;

export const notebookSchema = notebookSummarySchema.extend({ cells: z.array(cellSchema) });
export type Notebook = z.infer<typeof notebookSchema>;
