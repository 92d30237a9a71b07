import { z } from 'zod';
import { runDocumentSchema } from '../contract/documents';
import { fidelitySchema } from '../contract/fidelity';
import { techniqueIdSchema } from '../contract/run';
import { simulatorChoiceSchema } from '../contract/simulation';

/** What a run is started with; stored with the run so an interrupted one can be resumed, re-run or run again. */
export const runStartSchema = z.object({
  notebookId: z.string(),
  connectionId: z.string(),
  connectionName: z.string(),
  question: z.string(),
  rules: z.string(),
  technique: techniqueIdSchema,
  mode: z.enum(['auto', 'step']),
  maxSteps: z.number().int().optional(),
  /** How the decision is checked: the simulator's rules and the scenario parameters (country, home node, goods). */
  simulator: simulatorChoiceSchema,
  /** Absent in runs stored before the what-if tool existed: those offered no `whatif`. */
  whatIf: z.boolean().default(false),
  /** A Pearl program the analyst edited, run instead of planning one (techniques with `runsPrograms`). */
  program: z.string().optional(),
  /** The technique's own options as its schema checked them when the run started (a resume keeps them). */
  techniqueOptions: z.record(z.string(), z.unknown()).optional(),
  /** Fidelity to the technique's paper; runs stored before it ran as the product. A resume keeps it. */
  fidelity: fidelitySchema.default('product'),
  /** An explicit temperature for the run's turns (absent: the fidelity's or the model settings'). */
  temperature: z.number().min(0).max(2).optional(),
  /** The documents attached to the notebook when the run started (techniques that read them: DeLLMa). */
  documents: z.array(runDocumentSchema).optional(),
  /** The playbook version (hash) an `autoplan` run follows: the one asked for, else the task type's pinned one. */
  playbook: z.string().optional(),
  /** Pearl, re-running one step of `program`: the earlier run's outputs kept for the steps outside the re-run. */
  keptOutputs: z.object({ fromRunId: z.string(), step: z.string(), outputs: z.record(z.string(), z.string()) }).optional(),
});
export type RunStart = z.infer<typeof runStartSchema>;

/**
 * How runs were stored before a technique owned its options (issue 25): the simulator's rules
 * and parameters side by side at the top (`simulatorRules`, `known`), Pearl's library id as
 * `actionLibrary` and DeLLMa's settings as `dellma` — each refused then for any other
 * technique, so whichever is there is the run's technique's options.
 */
const storedBeforeTechniqueOptions = z
  .object({
    simulatorRules: simulatorChoiceSchema.shape.rules,
    known: z.object({ country: z.string().optional(), home: z.string().optional(), goods: z.string().optional() }).default({}),
    actionLibrary: z.string().optional(),
    dellma: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

/** The stored request of a run in today's shape, reading the shape written before technique options; null when it is neither. */
export function readStoredRunStart(stored: unknown): RunStart | null {
  const current = runStartSchema.safeParse(stored);
  if (current.success) return current.data;
  const older = storedBeforeTechniqueOptions.safeParse(stored);
  if (!older.success) return null;
  const { simulatorRules, known, actionLibrary, dellma, ...rest } = older.data;
  const techniqueOptions = actionLibrary !== undefined ? { actionLibrary } : dellma;
  const upgraded = runStartSchema.safeParse({ ...rest, simulator: { rules: simulatorRules, known }, ...(techniqueOptions ? { techniqueOptions } : {}) });
  return upgraded.success ? upgraded.data : null;
}
