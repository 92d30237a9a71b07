import { z } from 'zod';

/**
 * The records of a DeLLMa run in the notebook: each step is a `tool` event named
 * `dellma.<step>` whose `input` has the shape below, kept as the observation cell's `input`,
 * so the renderer draws the step from typed data and a report shows the event's text.
 * Fields marked [ext] go beyond the paper and are labelled so in the UI.
 */
export const dellmaSteps = ['frame', 'context', 'forecast', 'sampling', 'rank', 'fit', 'expected', 'exact', 'audit'] as const;
export type DellmaStep = (typeof dellmaSteps)[number];

export const dellmaLikelihoods = ['very likely', 'likely', 'somewhat likely', 'somewhat unlikely', 'unlikely', 'very unlikely'] as const;

export const dellmaFrameSchema = z.object({
  goal: z.string(),
  actions: z.array(z.string()),
  /** Where the options came from: listed in the question, a query's first column, or the simulator's candidate names (never their outcomes). */
  source: z.enum(['question', 'query', 'simulator']),
  /** Candidates left out by the model's shortlist (only when there were more than `maxActions`). */
  pruned: z.array(z.string()),
  maxActions: z.number(),
  note: z.string().nullable(),
  /** [ext] `dellma-option-factors`: each option got a factor of its own ("how <option> turns out"). Absent in runs before it was recorded, which all had it. */
  optionFactors: z.boolean().optional(),
});

/** An attached document as a DeLLMa context used it: its length and how much of it the context took (src-main/engine/techniques/dellma/documents.ts). */
export const dellmaDocumentUseSchema = z.object({ name: z.string(), chars: z.number(), usedChars: z.number(), truncated: z.boolean() });
export type DellmaDocumentUse = z.infer<typeof dellmaDocumentUseSchema>;

/** The context a DeLLMa run forecasts and ranks from: the `dellma.context` step, written when documents are attached (which were used, how much of each). */
export const dellmaContextSchema = z.object({
  documents: z.array(dellmaDocumentUseSchema),
  /** Characters of the rows the context query retrieved (0: none). */
  dataChars: z.number(),
  chars: z.number(),
});
export type DellmaContext = z.infer<typeof dellmaContextSchema>;

export const dellmaForecastSchema = z.object({
  /** The model's forecast, or the analyst's edit of it at the review point. */
  source: z.enum(['model', 'analyst']),
  /** The model's forecast reused from an earlier run with the same forecast call (absent: made by this run). */
  reused: z.object({ runId: z.string().nullable(), savedAt: z.string() }).optional(),
  /** The attached documents the forecast's context included (absent: runs before documents, or none attached). */
  documents: z.array(dellmaDocumentUseSchema).optional(),
  factors: z.array(
    z.object({
      name: z.string(),
      /** The action a factor concerns, or null when every action shares it. */
      action: z.string().nullable(),
      /** [ext] The values are the analyst's, mapped to what-if changes; the model gave only their likelihoods. */
      mapped: z.boolean().optional(),
      values: z.array(z.object({ value: z.string(), likelihood: z.enum(dellmaLikelihoods), probability: z.number() })),
    }),
  ),
});

export const dellmaSamplingSchema = z.object({
  seed: z.number(),
  /** The DeLLMa variant (absent in runs before variants could be chosen: Pairs). */
  variant: z.enum(['pairs', 'top1', 'naive']).optional(),
  perAction: z.number(),
  batch: z.number(),
  overlap: z.number(),
  states: z.number(),
  items: z.number(),
  windows: z.array(z.object({ start: z.number(), size: z.number() })),
  /** The sampled futures with their probability under the forecast (each is paired with every option). */
  futures: z.array(z.object({ state: z.string(), probability: z.number() })).optional(),
  cost: z.object({ calls: z.number(), promptTokens: z.number(), completionTokens: z.number() }),
});

/** Present on the cells of an analyst's re-fit after the run [ext]: the batch they ranked by hand (the run's own cells stay as they were). */
const refitField = z.object({ batch: z.number() }).optional();

export const dellmaRankSchema = z.object({
  refit: refitField,
  batch: z.number(),
  /** The batch's scenarios as numbered for the model (1..size), with their item position, option and future. */
  items: z.array(z.object({ number: z.number(), position: z.number(), action: z.string(), state: z.string() })),
  /** The model's rank as answered (scenario numbers), or null when no usable answer came. */
  rank: z.array(z.number()).nullable(),
  /** Scenario numbers best first after repair. */
  order: z.array(z.number()).nullable(),
  repairs: z.object({ missing: z.array(z.number()), duplicates: z.array(z.number()), outOfRange: z.array(z.number()) }).nullable(),
  explanation: z.string(),
  attempts: z.number(),
  comparisons: z.number(),
  /** Who ranked the batch: the model, or the analyst by hand at the batch's review point (the analyst's order then enters the fit instead of the model's). */
  rankedBy: z.enum(['model', 'analyst']).optional(),
  /** The model's order (scenario numbers, best first) when the analyst re-ranked the batch. */
  modelOrder: z.array(z.number()).nullable().optional(),
});

export const dellmaFitSchema = z.object({
  refit: refitField,
  kind: z.enum(['pairs', 'top1']),
  comparisons: z.number(),
  components: z.number(),
  alpha: z.number(),
  temperature: z.number(),
  iterations: z.number(),
  converged: z.boolean(),
  items: z.array(z.object({ position: z.number(), action: z.string(), state: z.string(), theta: z.number(), utility: z.number() })),
  /** [ext] Kendall τ between every batch's order and the fitted utilities, pooled over the batches' item pairs. */
  rankAgreement: z.number().nullable(),
  /** [ext] The same per batch, in batch order (null where a batch had no usable ranking). */
  batchAgreement: z.array(z.number().nullable()).optional(),
});

export const dellmaExpectedSchema = z.object({
  refit: refitField,
  rows: z.array(z.object({ action: z.string(), expected: z.number().nullable(), low: z.number().nullable(), high: z.number().nullable() })),
  chosen: z.string().nullable(),
  runnerUp: z.string().nullable(),
  margin: z.number().nullable(),
  note: z.string().nullable(),
  /** [ext] Share of bootstrap resamples keeping the decision. */
  stability: z.number(),
  /** [ext] Forecast moves that would flip the decision (importance re-weighting, no new calls). */
  sensitivity: z.array(z.object({ factor: z.string(), value: z.string(), from: z.number(), to: z.number(), shift: z.number(), newDecision: z.string() })),
});

export const dellmaAuditSchema = z.object({
  /** [ext] Kendall τ-b between the expected utilities and the simulator's true objective per option. */
  tau: z.number().nullable(),
  /** [ext] Share of the model's pairwise preferences between scenarios of different options that the simulator's objective agrees with (pairs whose options tie left out). */
  pairAgreement: z.number().nullable(),
  comparedPairs: z.number(),
  objective: z.string(),
  rows: z.array(z.object({ action: z.string(), expected: z.number().nullable(), outcome: z.number().nullable() })),
});

/**
 * [ext] Exact outcomes: each distinct sampled future (projected on the question's unknowns) ×
 * option whose unknowns and option are mapped to what-if changes, its objective computed in
 * the what-if sandbox; shown beside the elicited utilities, never mixed into them.
 */
export const dellmaExactSchema = z.object({
  objective: z.string(),
  direction: z.enum(['maximize', 'minimize']),
  mapped: z.array(z.object({ factor: z.string(), values: z.array(z.object({ value: z.string(), change: z.string().nullable() })) })),
  options: z.array(z.object({ action: z.string(), change: z.string().nullable(), mapped: z.boolean() })),
  scenarios: z.array(
    z.object({
      future: z.string(),
      /** The future's probability under the forecast of the mapped unknowns. */
      probability: z.number(),
      /** How many sampled states share this future. */
      draws: z.number(),
      action: z.string(),
      objective: z.number().nullable(),
      /** `failed`: the change or the objective failed on this future's data (reason: the database's message). */
      status: z.enum(['computed', 'failed', 'not computable', 'not run', 'over the cap']),
      reason: z.string().nullable(),
    }),
  ),
  /** Per option: Σ p·objective / Σ p over its computed futures; coverage = Σ p (1: every future the forecast allows). */
  rows: z.array(z.object({ action: z.string(), expected: z.number().nullable(), coverage: z.number(), computed: z.number() })),
  /** The objective on the data as it is. */
  baseline: z.number().nullable(),
  exactBest: z.string().nullable(),
  tiedBest: z.array(z.string()),
  /** DeLLMa's decision (by expected utility), unchanged by anything here. */
  decision: z.string().nullable(),
  /** Whether the exactly-computed best includes DeLLMa's decision; null unless every option has an exact expected objective. */
  agrees: z.boolean().nullable(),
  evaluations: z.number(),
  maxEvaluations: z.number(),
  capped: z.string().nullable(),
  sourceDigestBefore: z.string().nullable(),
  sourceDigestAfter: z.string().nullable(),
  isolation: z.enum(['process', 'in-process']).nullable(),
  /** Why nothing was computed (no sandbox for this data, a failing change), else null. */
  error: z.string().nullable(),
});

export type DellmaFrame = z.infer<typeof dellmaFrameSchema>;
export type DellmaForecast = z.infer<typeof dellmaForecastSchema>;
export type DellmaSampling = z.infer<typeof dellmaSamplingSchema>;
export type DellmaRank = z.infer<typeof dellmaRankSchema>;
export type DellmaFit = z.infer<typeof dellmaFitSchema>;
export type DellmaExpected = z.infer<typeof dellmaExpectedSchema>;
export type DellmaAudit = z.infer<typeof dellmaAuditSchema>;
export type DellmaExact = z.infer<typeof dellmaExactSchema>;

/** Why an exact-outcomes record is not compared with DeLLMa's decision (when `agrees` is null), for the cell, the event text and the reports. */
export function exactNotComparedReason(exact: Pick<DellmaExact, 'scenarios'>): string {
  const failed = exact.scenarios.filter((scenario) => scenario.status === 'failed').length;
  return failed > 0 ? `${failed} future × option failed in the sandbox, so the options are not weighed over the same futures` : 'not every option has an exact expected objective';
}

export const dellmaStepSchemas = {
  frame: dellmaFrameSchema,
  context: dellmaContextSchema,
  forecast: dellmaForecastSchema,
  sampling: dellmaSamplingSchema,
  rank: dellmaRankSchema,
  fit: dellmaFitSchema,
  expected: dellmaExpectedSchema,
  exact: dellmaExactSchema,
  audit: dellmaAuditSchema,
} satisfies Record<DellmaStep, z.ZodType>;

/**
 * The forecast as review lines, one per value: `factor | value | likelihood`. The step-through
 * review carries these lines both ways, so an edit made in the cell or in the review panel
 * reads the same.
 */
export function forecastLines(forecast: Pick<DellmaForecast, 'factors'>): string[] {
  return forecast.factors.flatMap((factor) => factor.values.map((entry) => `${factor.name} | ${entry.value} | ${entry.likelihood}`));
}

/** The three DeLLMa variants and the paper's three baselines (zero-shot, chain-of-thought, self-consistency). */
export const dellmaVariants = ['pairs', 'top1', 'naive', 'zero-shot', 'cot', 'sc'] as const;
export type DellmaVariant = (typeof dellmaVariants)[number];

/**
 * What a `dellma` run is asked to do (the run composer, `dwb run`): the variant and the sizes
 * s (states per option), b (minibatch), q (overlap), the Naive total and the self-consistency
 * answers. Defaults: Pairs with s = 16 (the paper's 64 costs four times the calls), b = 32, q = 0.25.
 */
export const dellmaRunSettingsSchema = z
  .object({
    variant: z.enum(dellmaVariants).default('pairs'),
    perAction: z.number().int('the samples per option must be a whole number').min(1, 'the samples per option must be at least 1').max(256, 'the samples per option must be at most 256').default(16),
    batch: z.number().int('the minibatch size must be a whole number').min(2, 'the minibatch size must be at least 2').max(100, 'the minibatch size must be at most 100').default(32),
    overlap: z.number().min(0, 'the overlap must be at least 0').max(0.9, 'the overlap must be at most 0.9').default(0.25),
    naiveSamples: z.number().int('the Naive sample size must be a whole number').min(2, 'the Naive sample size must be at least 2').max(100, 'the Naive sample size must be at most 100').default(50),
    selfConsistency: z.number().int('the self-consistency answers must be a whole number').min(2, 'self-consistency needs at least 2 answers').max(20, 'self-consistency takes at most 20 answers').default(5),
  })
  .strict()
  // The stride ⌊b(1−q)⌋ must move the window on, or the batches never reach the end.
  .refine((settings) => Math.floor(settings.batch * (1 - settings.overlap) + 1e-9) >= 1, { message: 'the minibatch size and overlap give a stride ⌊b(1−q)⌋ of 0: lower the overlap', path: ['overlap'] });
export type DellmaRunSettings = z.infer<typeof dellmaRunSettingsSchema>;
export type DellmaRunSettingsInput = z.input<typeof dellmaRunSettingsSchema>;

/** A run's cost before it starts: model calls and rough tokens (src-main/engine/techniques/dellma/cost.ts). */
export const dellmaCostEstimateSchema = z.object({
  /** The options counted in the question ("Options: a; b; c"), or null when the run will find them (the estimate then assumes the most, 7). */
  actions: z.number().nullable(),
  assumedActions: z.number(),
  forecastCalls: z.number(),
  rankingCalls: z.number(),
  otherCalls: z.number(),
  calls: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
});
export type DellmaCostEstimate = z.infer<typeof dellmaCostEstimateSchema>;

/**
 * Why a DeLLMa run cannot start from the workbench, or null when it can. The run weighs options
 * the question lists on an `Options:` line; with fewer than two it could only spend a model call
 * on a candidate query and then fail, so the composer keeps Start disabled with this reason and
 * `runs/start` refuses it before any model call. (`dwb run` and the benchmarks keep the candidate
 * query for questions that list none.)
 */
export function dellmaOptionsProblem(question: string): string | null {
  const line = /^\s*options\s*:\s*(.+)$/im.exec(question)?.[1];
  const separator = line?.includes(';') ? ';' : ',';
  const listed = new Set((line ?? '').split(separator).map((item) => item.trim().replace(/\.$/, '')).filter(Boolean));
  if (listed.size >= 2) return null;
  const given = listed.size === 0 ? 'the question lists none' : 'the question lists one';
  return `DeLLMa needs at least two options: list them on a line of the question, "Options: a; b; c" (${given})`;
}
