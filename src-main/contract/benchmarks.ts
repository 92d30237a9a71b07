import { z } from 'zod';
import { fidelitySchema } from './fidelity';
import { producedBySchema } from './produced-by';
import { runStatusSchema, techniqueIdSchema } from './run';

/**
 * Technique benchmarks (spread into `api` in ./api.ts): runs of techniques × database kinds
 * over a DQA questions file with the configured model, each question judged by the exact
 * simulator. The same records back `dwb dqa solve --engine <technique>` (src-main/benchmark).
 */

export const dbKindSchema = z.enum(['rdb', 'gdb']);

export const questionFlagSchema = z.enum(['tie', 'float-level', 'annotation-differs', 'no-improvement']);
export type QuestionFlag = z.infer<typeof questionFlagSchema>;

export const failureCategorySchema = z.enum(['CAN', 'MIS', 'DEEP', 'QUR', 'OTH', 'unlabelled']);

export const failureLabelSchema = z.object({
  /** null for a right decision (or one tied with the best). */
  category: failureCategorySchema.nullable(),
  automatic: z.boolean(),
  evidence: z.array(z.string()),
});

/** One question's record (DIR/<question-id>/result.json); its presence marks the question decided. */
export const questionResultSchema = z.object({
  format: z.literal('decision-workbench/benchmark-question'),
  version: z.literal(1),
  id: z.string(),
  scenario: z.enum(['locating', 'building']),
  technique: techniqueIdSchema,
  db: dbKindSchema,
  /** The question's dump, as the questions file names it. */
  dump: z.string(),
  questionsFile: z.string(),
  /** How the run ended; null when it could not start (see `error`). */
  status: runStatusSchema.nullable(),
  message: z.string().nullable(),
  error: z.string().nullable(),
  match: z.object({
    raw: z.string().nullable(),
    matched: z.string().nullable(),
    rule: z.enum(['exact', 'normalized', 'contained', 'ambiguous', 'negated', 'none', 'no-decision']),
    alternatives: z.array(z.string()),
  }),
  simulator: z
    .object({
      best: z.string(),
      tied: z.array(z.string()),
      annotation: z.string(),
      /** null when there is no runner-up. */
      margin: z.number().nullable(),
      candidateCount: z.number(),
      /** Rank of the matched decision (1 = best), null when unmatched. */
      rank: z.number().nullable(),
      notes: z.array(z.string()),
    })
    .nullable(),
  /** The matched decision is the simulator's best (compat rules). */
  correct: z.boolean(),
  /** The matched decision is among the candidates tied with the best. */
  correctWithTies: z.boolean(),
  flags: z.array(questionFlagSchema),
  steps: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  totalTokens: z.number(),
  /** The most prompt tokens of any single model call of the run (optional: results recorded before it was kept). */
  largestPromptTokens: z.number().optional(),
  /** Time along the plan's levels (Plan*RAG's `plan-dag.summary`); null when the technique does not report it. */
  criticalPathMs: z.number().nullable().optional(),
  /** [ext] DeLLMa: Kendall τ-b between the expected utilities and the simulator's order of the same options. */
  utilityTau: z.number().nullable().optional(),
  /** The playbook version an AutoPlan run followed (absent without one). */
  playbook: z.string().optional(),
  /** DeLLMa: the variant and sizes the run used, e.g. "top1, s=16, b=32, q=0.25" (absent: the defaults, or another technique). */
  variant: z.string().optional(),
  wallMs: z.number(),
  failure: failureLabelSchema,
  decidedAt: z.string(),
  /**
   * Who made the decision: the technique's id, or `<technique> → <fallback> fallback` when the
   * technique handed the question to another (`decisionKey` in contract/produced-by.ts); absent
   * without a decision and in results recorded before it was kept.
   */
  decidedBy: z.string().optional(),
  /** The decision is the best candidate of a simulate/whatif result the model saw first. */
  toolAssisted: z.boolean().optional(),
  /** What produced the result: model, settings, fallbacks, product version (absent in results recorded before it was kept). */
  producedBy: producedBySchema.optional(),
});
export type QuestionResult = z.infer<typeof questionResultSchema>;

export const resultsRowSchema = z.object({
  technique: techniqueIdSchema,
  /** DeLLMa: the variant and sizes of the row's runs (absent: the defaults, or another technique). */
  variant: z.string().optional(),
  scenario: z.enum(['locating', 'building']),
  db: dbKindSchema,
  questions: z.number(),
  correct: z.number(),
  correctWithTies: z.number(),
  /** Questions flagged as ties, float-level or otherwise without a meaningful unique answer. */
  flagged: z.number(),
  /** Right answers among the questions that are not flagged. */
  clearCorrect: z.number(),
  meanSteps: z.number(),
  meanPromptTokens: z.number(),
  meanCompletionTokens: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  /** Sum of the questions' wall times (runs overlap, so the batch took less). */
  wallMs: z.number(),
  meanWallMs: z.number(),
  /** The largest single prompt (tokens) of any run in the row. */
  largestPromptTokens: z.number(),
  /** Mean critical-path time: a run's time along its plan's levels when its technique reports it, else its wall time. */
  meanCriticalPathMs: z.number(),
  /** The playbook versions the row's runs followed (AutoPlan; absent in older tables). */
  playbooks: z.array(z.string()).optional(),
  /** How many runs ended with each status (`not started` when the run could not start). */
  ended: z.record(z.string(), z.number()),
  /** Wrong answers per failure category, `unlabelled` for those left to the analyst. */
  failures: z.record(z.string(), z.number()),
  /**
   * The row's decisions by who made them (`decidedBy` of each question): the technique's own and
   * each fallback's apart, with how many were right (absent in older tables).
   */
  deciders: z.array(z.object({ key: z.string(), label: z.string(), questions: z.number(), correct: z.number(), correctWithTies: z.number() })).optional(),
  /** Decisions that repeat the best candidate of a simulate/whatif result (absent in older tables). */
  toolAssisted: z.number().optional(),
  /** The distinct models (as served, or GGUF files) and product versions of the row's runs. */
  models: z.array(z.string()).optional(),
  productVersions: z.array(z.string()).optional(),
  /** What produced the row's runs, as label/value lines (benchmark/row-produced-by.ts; absent in older tables). */
  producedBy: z.array(z.object({ label: z.string(), value: z.string() })).optional(),
});
export type ResultsRow = z.infer<typeof resultsRowSchema>;

export const resultsTableSchema = z.object({
  format: z.literal('decision-workbench/benchmark-results'),
  version: z.literal(1),
  generatedAt: z.string(),
  rows: z.array(resultsRowSchema),
  questions: z.array(questionResultSchema),
});
export type ResultsTable = z.infer<typeof resultsTableSchema>;

export const benchmarkSpecSchema = z.object({
  /** A DQA questions.json on the machine running the workbench. */
  questionsFile: z.string().trim().min(1, 'name a questions file'),
  techniques: z.array(techniqueIdSchema).min(1, 'choose at least one technique'),
  dbs: z.array(dbKindSchema).min(1, 'choose at least one database kind'),
  concurrency: z.number().int().min(1).max(16).default(2),
  maxSteps: z.number().int().min(1).max(200).default(20),
  /**
   * Each technique's own options by technique id, as `runs/start` takes them for one run
   * (`dwb dqa solve --engine <id>` with its flags); checked by that technique's schema when the
   * benchmark starts, and stored as it read them. Absent for a technique: its defaults.
   */
  techniqueOptions: z.record(techniqueIdSchema, z.record(z.string(), z.unknown())).optional(),
  /**
   * Fidelity to each technique's paper (contract/fidelity.ts). A new benchmark without it runs
   * at `paper`; a benchmark stored before it existed ran at `product`, and a resume keeps that.
   */
  fidelity: fidelitySchema.optional(),
  /** An explicit temperature for every run (absent: the fidelity's). */
  temperature: z.number().min(0).max(2).optional(),
});
export type BenchmarkSpec = z.output<typeof benchmarkSpecSchema>;

/**
 * A spec as the workspace stored it. Specs stored before technique options kept DeLLMa's
 * variant and sizes in a top-level `dellma` field; they are read as DeLLMa's options, so an
 * older benchmark lists and resumes with the settings it started with.
 */
export function readStoredBenchmarkSpec(stored: unknown): BenchmarkSpec {
  if (typeof stored !== 'object' || stored === null || !('dellma' in stored)) return benchmarkSpecSchema.parse(stored);
  const { dellma: legacy, ...rest } = stored as Record<string, unknown> & { techniqueOptions?: Record<string, unknown> };
  const techniqueOptions = legacy === undefined || rest.techniqueOptions?.['dellma'] !== undefined ? rest.techniqueOptions : { ...rest.techniqueOptions, dellma: legacy };
  return benchmarkSpecSchema.parse({ ...rest, ...(techniqueOptions ? { techniqueOptions } : {}) });
}

export const benchmarkStatusSchema = z.enum(['running', 'stopped', 'finished', 'interrupted', 'failed']);

export const benchmarkProgressSchema = z.object({
  done: z.number().int(),
  total: z.number().int(),
  correct: z.number().int(),
  correctWithTies: z.number().int(),
  tokens: z.number(),
});

export const benchmarkSummarySchema = z.object({
  id: z.string(),
  spec: benchmarkSpecSchema,
  /** The model the benchmark runs on (endpoint without credentials, and model name). */
  model: z.string(),
  status: benchmarkStatusSchema,
  progress: benchmarkProgressSchema,
  message: z.string().nullable(),
  directory: z.string(),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
});
export type BenchmarkSummary = z.infer<typeof benchmarkSummarySchema>;

const benchmarkId = z.object({ id: z.string() });

export const benchmarkRequests = {
  'benchmarks/list': { params: z.object({}), result: z.array(benchmarkSummarySchema) },
  /** Starts a benchmark on the configured model; progress arrives as `benchmark-progress`. */
  'benchmarks/start': { params: benchmarkSpecSchema, result: benchmarkSummarySchema },
  /** Stops the runs in flight; the questions decided so far are kept. */
  'benchmarks/stop': { params: benchmarkId, result: benchmarkSummarySchema },
  /** Runs the questions not decided yet. */
  'benchmarks/resume': { params: benchmarkId, result: benchmarkSummarySchema },
  'benchmarks/results': { params: benchmarkId, result: resultsTableSchema },
  /** The analyst's failure category for a wrong answer (e.g. DEEP where the log cannot tell); the reports are rewritten. */
  'benchmarks/label': {
    params: z.object({ id: z.string(), technique: techniqueIdSchema, db: dbKindSchema, questionId: z.string(), category: failureCategorySchema }),
    result: questionResultSchema,
  },
  /** Copies one question's run into a new notebook of the workspace and returns it. */
  'benchmarks/open-question': {
    params: z.object({ id: z.string(), technique: techniqueIdSchema, db: dbKindSchema, questionId: z.string() }),
    result: z.object({ notebookId: z.string() }),
  },
} as const;
