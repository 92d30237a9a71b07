/**
 * Parameters and result of a what-if run, as zod schemas so that a notebook cell, the model's
 * tool call and the CLI all validate the same way (the descriptions double as the tool's
 * documentation for the model).
 */
import { z } from 'zod';

/** Enough for any realistic decision, small enough that a run stays bounded. */
export const MAX_CANDIDATES = 10_000;
export const MAX_TIMEOUT_MS = 600_000;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_TOLERANCE = 1e-9;

export const whatIfParamsSchema = z.object({
  source: z.string().min(1).describe('Path of the SQLite database file to experiment on. It is never modified: every change runs on a throwaway copy.'),
  candidates: z
    .array(z.union([z.string(), z.number().finite()]))
    .min(1)
    .max(MAX_CANDIDATES)
    .describe('The decisions to compare, bound in turn as :candidate (whole numbers bind as SQL integers).'),
  change: z
    .string()
    .min(1)
    .describe('One SQL statement that applies a candidate decision, using :candidate, e.g. "UPDATE building SET level = level + 5 WHERE id = :candidate".'),
  objective: z
    .string()
    .min(1)
    .describe('One read-only SELECT returning exactly one number (one row, one column), measured before and after the change; it may use :candidate too.'),
  direction: z.enum(['maximize', 'minimize']).default('maximize').describe('Whether a larger or a smaller objective is better.'),
  tolerance: z.number().min(0).max(0.5).default(DEFAULT_TOLERANCE).describe('Relative tolerance under which two objective values count as tied.'),
  timeoutMs: z.number().int().positive().max(MAX_TIMEOUT_MS).default(DEFAULT_TIMEOUT_MS).describe('Time limit for one candidate (change plus objective).'),
});

/** What callers pass (defaults optional). */
export type WhatIfInput = z.input<typeof whatIfParamsSchema>;
/** After validation (defaults filled). */
export type WhatIfParams = z.output<typeof whatIfParamsSchema>;
export type Candidate = WhatIfParams['candidates'][number];

export const whatIfRowSchema = z.object({
  candidate: z.union([z.string(), z.number()]),
  before: z.number(),
  after: z.number(),
  delta: z.number(),
  /** 1 + number of candidates strictly better (beyond the tolerance). */
  rank: z.number().int(),
  /** Rows the change touched for this candidate (0 often means the candidate matched nothing). */
  changedRows: z.number().int(),
});
export type WhatIfRow = z.infer<typeof whatIfRowSchema>;

export const whatIfResultSchema = z.object({
  /** Best first, then by rank; equal ranks keep candidate order. */
  rows: z.array(whatIfRowSchema),
  best: z.union([z.string(), z.number()]),
  /** How much better the best is than the runner-up; null with a single candidate. */
  margin: z.number().nullable(),
  /** Candidates within the tolerance of the best, including it, in candidate order. */
  tied: z.array(z.union([z.string(), z.number()])),
  direction: z.enum(['maximize', 'minimize']),
  tolerance: z.number(),
  /** sha256 of the source file (and its -wal/-journal, if any) before and after the run: equal by construction. */
  sourceDigestBefore: z.string(),
  sourceDigestAfter: z.string(),
  /** `process`: each candidate runs in a worker process that is killed at its time limit; `in-process`: limits are checked between candidates. */
  isolation: z.enum(['process', 'in-process']),
  notes: z.array(z.string()),
  elapsedMs: z.number(),
});
export type WhatIfResult = z.infer<typeof whatIfResultSchema>;
