import { z } from 'zod';
import { queryResultSchema } from './data';
import { workbenchErrorSchema } from './error-schema';
import { simulationResultSchema } from './simulation';
import { whatIfResultSchema } from './whatif';

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

/** Upper bounds of a query's settings, documented in README › Data sources. */
export const querySettingsLimits = { maxRows: 1_000_000, timeoutMs: 24 * 3600_000 } as const;

export const querySettingsSchema = z.object({
  /** Rows kept from a result; more are not read and the result is marked truncated. */
  maxRows: z.number().int().min(1).max(querySettingsLimits.maxRows),
  /** Wall-clock limit of one run of the query, in milliseconds. */
  timeoutMs: z.number().int().min(100).max(querySettingsLimits.timeoutMs),
});
export type QuerySettings = z.infer<typeof querySettingsSchema>;
export const defaultQuerySettings: QuerySettings = { maxRows: 1000, timeoutMs: 30_000 };

/** Where a cell came from, so the audit trail can say who produced what from what. */
export const provenanceSchema = z.object({
  /** The decision run that produced the cell, if any. */
  runId: z.string().optional(),
  /** Step number within that run. */
  step: z.number().int().optional(),
  /** The cell this one was derived from (e.g. an edited copy of a model's query). */
  derivedFrom: z.string().optional(),
  /** Free-text origin, e.g. "bundled demo". */
  origin: z.string().optional(),
});
export type Provenance = z.infer<typeof provenanceSchema>;

export const cellOutputSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ok'), result: queryResultSchema, ranAt: z.string(), connectionId: z.string() }),
  z.object({ status: z.literal('error'), error: workbenchErrorSchema, ranAt: z.string(), connectionId: z.string() }),
  /** A simulation cell's last run. */
  z.object({ status: z.literal('simulated'), simulation: simulationResultSchema, ranAt: z.string(), connectionId: z.string() }),
  /** A what-if cell's last run. */
  z.object({ status: z.literal('whatif'), whatif: whatIfResultSchema, ranAt: z.string(), connectionId: z.string() }),
]);
export type CellOutput = z.infer<typeof cellOutputSchema>;

export const cellSchema = z.object({
  id: z.string(),
  notebookId: z.string(),
  kind: cellKindSchema,
  author: authorSchema,
  /** The cell's text: SQL or Cypher for query cells, Markdown for notes, prose otherwise. */
  source: z.string(),
  /** Query cells: the connection they run against. */
  connectionId: z.string().nullable(),
  settings: querySettingsSchema,
  provenance: provenanceSchema,
  /** Kind-specific structured content (plan steps, decision rationale…), JSON. */
  data: z.record(z.string(), z.unknown()),
  /** The last run's output of a query cell, kept so a reopened notebook shows it. */
  output: cellOutputSchema.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
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
