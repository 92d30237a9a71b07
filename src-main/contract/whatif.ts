/**
 * What-if experiments: on a throwaway copy of a SQL database, apply a parametrized change for
 * each candidate decision, measure an objective before and after, and rank the candidates.
 * One set of schemas for the notebook cell, the model's `whatif` tool and `dwb whatif`; the
 * descriptions double as the tool's documentation for the model.
 */
import { z } from 'zod';

/** Enough for any realistic decision, small enough that a run stays bounded. */
export const WHATIF_MAX_CANDIDATES = 10_000;
export const WHATIF_MAX_TIMEOUT_MS = 600_000;
export const WHATIF_DEFAULT_TIMEOUT_MS = 10_000;
export const WHATIF_DEFAULT_TOLERANCE = 1e-9;

export const whatIfCandidateSchema = z.union([z.string(), z.number().finite()]);
export type Candidate = z.infer<typeof whatIfCandidateSchema>;

/** The experiment itself, whatever the candidates are and wherever the data lives. */
export const whatIfExperimentSchema = z.object({
  change: z
    .string()
    .trim()
    .min(1)
    .describe('One INSERT, UPDATE or DELETE that applies a candidate decision, naming it :candidate (on DuckDB data, and on PostgreSQL or MySQL whose tables are copied into DuckDB: $candidate), e.g. "UPDATE building SET level = level + 5 WHERE id = :candidate".'),
  objective: z
    .string()
    .trim()
    .min(1)
    .describe('One read-only SELECT returning exactly one number (one row, one column), measured before and after the change; it may use :candidate too.'),
  direction: z.enum(['maximize', 'minimize']).default('maximize').describe('Whether a larger or a smaller objective is better.'),
  tolerance: z.number().min(0).max(0.5).default(WHATIF_DEFAULT_TOLERANCE).describe('Relative tolerance under which two objective values count as tied.'),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .max(WHATIF_MAX_TIMEOUT_MS)
    .default(WHATIF_DEFAULT_TIMEOUT_MS)
    .describe('Time limit for one candidate (change plus objective), in milliseconds.'),
});

export const whatIfCandidateListSchema = z
  .array(whatIfCandidateSchema)
  .min(1)
  .max(WHATIF_MAX_CANDIDATES)
  .describe('The decisions to compare, bound in turn as :candidate (whole numbers bind as SQL integers).');

/**
 * What a cell or the model asks for on a connection: the candidates listed, or read from the
 * first column of a read-only query on the same data.
 */
export const whatIfSpecSchema = whatIfExperimentSchema
  .extend({
    candidates: whatIfCandidateListSchema.optional(),
    candidatesQuery: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('Instead of listing candidates: a read-only query whose first column lists them, e.g. "SELECT id FROM building".'),
  })
  .refine((spec) => (spec.candidates === undefined) !== (spec.candidatesQuery === undefined), {
    message: 'give exactly one of the candidates or a query that lists them (one, not both and not neither)',
    path: ['candidates'],
  });
export type WhatIfSpec = z.output<typeof whatIfSpecSchema>;
export type WhatIfSpecInput = z.input<typeof whatIfSpecSchema>;

export const whatIfRowSchema = z.object({
  candidate: whatIfCandidateSchema,
  before: z.number(),
  after: z.number(),
  delta: z.number(),
  /** 1 + number of candidates strictly better (beyond the tolerance). */
  rank: z.number().int(),
  /** Rows the change touched for this candidate (0 often means the candidate matched nothing). */
  changedRows: z.number().int(),
});
export type WhatIfRow = z.infer<typeof whatIfRowSchema>;

export const copiedTableSchema = z.object({ name: z.string(), rows: z.number().int() });
export type CopiedTable = z.infer<typeof copiedTableSchema>;

/** E.g. `supply (445 rows), demand (1 row)`: what a what-if copied from a server, for people. */
export function describeCopiedTables(tables: readonly CopiedTable[]): string {
  return tables.map((table) => `${table.name} (${table.rows.toLocaleString('en-US')} row${table.rows === 1 ? '' : 's'})`).join(', ');
}

/** How a report says where a what-if's digest comes from, after the digest itself; empty for a file. */
export function copiedTablesNote(result: { copiedTables?: readonly CopiedTable[] | undefined }): string {
  return result.copiedTables ? ` (the rows of ${describeCopiedTables(result.copiedTables)}, copied from the server into a local DuckDB sandbox)` : '';
}

export const whatIfResultSchema = z.object({
  /** Best first, then by rank; equal ranks keep candidate order. */
  rows: z.array(whatIfRowSchema),
  best: whatIfCandidateSchema,
  /** How much better the best is than the runner-up; null with a single candidate. */
  margin: z.number().nullable(),
  /** Candidates within the tolerance of the best, including it, in candidate order. */
  tied: z.array(whatIfCandidateSchema),
  direction: z.enum(['maximize', 'minimize']),
  tolerance: z.number(),
  /**
   * sha256 of the source before and after the run, equal by construction: of a file's bytes
   * (with its -wal/-journal, if any), or of the rows of the tables copied from a server.
   */
  sourceDigestBefore: z.string(),
  sourceDigestAfter: z.string(),
  /** Set when the experiment ran in DuckDB on a local copy of these server tables. */
  copiedTables: z.array(copiedTableSchema).optional(),
  /** `process`: each candidate runs in a worker process that is killed at its time limit; `in-process`: limits are checked between candidates. */
  isolation: z.enum(['process', 'in-process']),
  notes: z.array(z.string()),
  elapsedMs: z.number(),
});
export type WhatIfResult = z.infer<typeof whatIfResultSchema>;

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const LEADING_ZERO = /^[+-]?0\d/;

/**
 * Candidates as an analyst types them: one per line, or comma-separated when on one line.
 * Numbers become numbers (bound as SQL numbers), except ones with a leading zero such as
 * "007", which are codes and stay text. Blank items are dropped.
 */
export function parseCandidateText(text: string): Candidate[] {
  const items = (text.includes('\n') ? text.split('\n') : text.split(',')).map((item) => item.trim()).filter((item) => item !== '');
  return items.map((item) => (NUMERIC.test(item) && !LEADING_ZERO.test(item) ? Number(item) : item));
}

/** The inverse, for showing a list in the editor: one per line (ending in a newline) as soon as one holds a comma. */
export function candidateText(candidates: readonly Candidate[]): string {
  const hasComma = candidates.some((candidate) => typeof candidate === 'string' && candidate.includes(','));
  return hasComma ? `${candidates.map(String).join('\n')}\n` : candidates.map(String).join(', ');
}

/**
 * How a change names the candidate on each engine's data: DuckDB's named parameters are
 * `$name`, and experiments on a server's tables run in DuckDB on a local copy.
 */
export function candidateParameterFor(engine: string): string {
  return engine === 'duckdb' || engine === 'postgres' || engine === 'mysql' ? '$candidate' : ':candidate';
}
