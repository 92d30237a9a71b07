/**
 * What `runWhatIf` takes: the contract's experiment (../contract/whatif.ts) on a database file,
 * with the candidates already listed. Cells and the model name a connection instead, which
 * ./connection-whatif.ts turns into these parameters.
 */
import { z } from 'zod';
import { whatIfCandidateListSchema, whatIfExperimentSchema } from '../contract/whatif';

/** One experiment with its candidates listed, whatever the source. */
export const whatIfTrialSchema = whatIfExperimentSchema.extend({ candidates: whatIfCandidateListSchema });
export type WhatIfTrial = z.output<typeof whatIfTrialSchema>;

export const whatIfParamsSchema = whatIfTrialSchema.extend({
  source: z.string().min(1).describe('Path of the database file to experiment on. It is never modified: every change runs on a throwaway copy.'),
  kind: z
    .discriminatedUnion('engine', [z.object({ engine: z.literal('sqlite') }), z.object({ engine: z.literal('duckdb'), format: z.enum(['duckdb', 'csv', 'parquet']) })])
    .default({ engine: 'sqlite' })
    .describe('What the file is: a SQLite database (the default), or DuckDB data: a DuckDB database, a CSV or a Parquet file.'),
});

/** What callers pass (defaults optional). */
export type WhatIfInput = z.input<typeof whatIfParamsSchema>;
/** After validation (defaults filled). */
export type WhatIfParams = z.output<typeof whatIfParamsSchema>;
