/**
 * What `runWhatIf` takes: the contract's experiment (./../contract/whatif.ts) on a SQLite file,
 * with the candidates already listed. Cells and the model name a connection instead, which
 * ./connection-whatif.ts turns into these parameters.
 */
import { z } from 'zod';
import { whatIfCandidateListSchema, whatIfExperimentSchema } from '../contract/whatif';

export const whatIfParamsSchema = whatIfExperimentSchema.extend({
  source: z.string().min(1).describe('Path of the SQLite database file to experiment on. It is never modified: every change runs on a throwaway copy.'),
  candidates: whatIfCandidateListSchema,
});

/** What callers pass (defaults optional). */
export type WhatIfInput = z.input<typeof whatIfParamsSchema>;
/** After validation (defaults filled). */
export type WhatIfParams = z.output<typeof whatIfParamsSchema>;
