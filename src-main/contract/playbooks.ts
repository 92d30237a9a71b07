import { z } from 'zod';
import { dbKindSchema } from './benchmarks';

/**
 * AutoPlan playbooks in the workspace (spread into `api` in ./api.ts): versions learned by
 * `dwb playbook train` or in the app, each reviewed by the analyst (accept, edit, reject) and
 * one pinned per task type (scenario × database kind); the `autoplan` technique uses the
 * pinned one. Versions are hashed (src-main/engine/techniques/autoplan/playbook.ts).
 */

/**
 * The task type's first half: a DQA scenario, or for the analyst's own data (no simulator, trained
 * from signed-off runs) `conn-<connectionId>`, one task type per connection and database kind.
 */
export const playbookScenarioSchema = z.union([
  z.enum(['locating', 'building']),
  z.custom<`conn-${string}`>((value) => typeof value === 'string' && /^conn-[A-Za-z0-9_-]+$/.test(value), 'a playbook task type is locating, building or conn-<connection id>'),
]);
export const playbookStatusSchema = z.enum(['proposed', 'accepted', 'edited', 'rejected']);
export type PlaybookStatus = z.infer<typeof playbookStatusSchema>;

const hashSchema = z.string().regex(/^[0-9a-f]{64}$/, 'a playbook version hash is 64 hex digits');

export const playbookVersionSummarySchema = z.object({
  hash: z.string(),
  scenario: playbookScenarioSchema,
  db: dbKindSchema,
  /** The training iteration that proposed it (an edit keeps the index of the version it edits). */
  index: z.number().int(),
  parent: z.string().nullable(),
  /** `training` for a version the loop proposed, `edit` for the analyst's edit of one. */
  origin: z.enum(['training', 'edit']),
  questionIds: z.array(z.string()),
  successRate: z.number(),
  model: z.string(),
  /** Names or values of the training questions that the playbook text names: it is not general. */
  specifics: z.array(z.string()),
  status: playbookStatusSchema,
  /** For a version replaced by the analyst's edit: the edit's hash. */
  editedInto: z.string().nullable(),
  pinned: z.boolean(),
  addedAt: z.string(),
  reviewedAt: z.string().nullable(),
});
export type PlaybookVersionSummary = z.infer<typeof playbookVersionSummarySchema>;

export const playbookTaskSchema = z.object({
  scenario: playbookScenarioSchema,
  db: dbKindSchema,
  pinned: z.string().nullable(),
  /** Oldest first. */
  versions: z.array(playbookVersionSummarySchema),
});
export type PlaybookTask = z.infer<typeof playbookTaskSchema>;

export const diffPartSchema = z.object({ kind: z.enum(['added', 'removed', 'same']), text: z.string() });
export type DiffPart = z.infer<typeof diffPartSchema>;

export const playbookDetailSchema = playbookVersionSummarySchema.extend({
  playbook: z.string(),
  /** The text it was rewritten from (the parent's; empty for the first version). */
  previous: z.string(),
  /** Line diff from `previous` to `playbook`. */
  diff: z.array(diffPartSchema),
  jobs: z.array(z.object({ questionId: z.string(), success: z.boolean(), decision: z.string().nullable(), summary: z.string(), flaws: z.string().nullable(), revision: z.string().nullable() })),
  cost: z.object({ calls: z.number(), promptTokens: z.number(), completionTokens: z.number() }),
});
export type PlaybookDetail = z.infer<typeof playbookDetailSchema>;

export const playbookTrainingSpecSchema = z.object({
  questionsFile: z.string().trim().min(1, 'name a questions file'),
  db: dbKindSchema,
  batchSize: z.number().int().min(1).max(32).default(4),
  iterations: z.number().int().min(1).max(100).optional(),
  /** `SEED:TRAIN_FRACTION`: train on that part, hold the rest out. */
  split: z.string().regex(/^-?\d+:(0(\.\d+)?|1(\.0+)?|\.\d+)$/, 'the split is SEED:TRAIN_FRACTION, e.g. 7:0.5').optional(),
});
export type PlaybookTrainingSpec = z.output<typeof playbookTrainingSpecSchema>;

export const playbookTrainingSchema = z.object({
  id: z.string(),
  /** What it trains on, for reading: a questions file, or the signed-off runs on a connection. */
  source: z.string(),
  db: dbKindSchema,
  batchSize: z.number().int(),
  status: z.enum(['running', 'finished', 'failed']),
  versions: z.number().int(),
  message: z.string().nullable(),
  /** Where the split and the held-out questions file are written. */
  directory: z.string(),
});
export type PlaybookTraining = z.infer<typeof playbookTrainingSchema>;

const byHash = z.object({ hash: hashSchema });

export const playbookRequests = {
  'playbooks/list': { params: z.object({}), result: z.array(playbookTaskSchema) },
  'playbooks/get': { params: byHash, result: playbookDetailSchema },
  /** Accept or reject a proposed version; rejecting keeps the pinned version as it is. */
  'playbooks/review': { params: byHash.extend({ action: z.enum(['accept', 'reject']) }), result: playbookVersionSummarySchema },
  /** The analyst's edit of a version: a new accepted version whose parent is the one edited. */
  'playbooks/edit': { params: byHash.extend({ playbook: z.string().trim().min(1, 'a playbook cannot be empty').max(20_000) }), result: playbookVersionSummarySchema },
  /** Pins an accepted version for its task type (the one `autoplan` uses). */
  'playbooks/pin': { params: byHash, result: playbookTaskSchema },
  'playbooks/unpin': { params: z.object({ scenario: playbookScenarioSchema, db: dbKindSchema }), result: playbookTaskSchema },
  /** Adds the versions `dwb playbook train --out DIR` wrote, as proposed. */
  'playbooks/import': { params: z.object({ directory: z.string().trim().min(1) }), result: z.object({ added: z.number().int(), known: z.number().int() }) },
  /** Trains on a questions file with the configured model; versions arrive as proposed (`playbooks-change`). */
  'playbooks/train': { params: playbookTrainingSpecSchema, result: playbookTrainingSchema },
  'playbooks/trainings': { params: z.object({}), result: z.array(playbookTrainingSchema) },
  /**
   * Deletes the playbooks of a connection that was removed (its task type `conn-<id>`); refused
   * while the connection exists. Undoable: the folder is set aside, and `playbooks/restore`
   * with the answer's `restoreId` brings it back.
   */
  'playbooks/delete-task': {
    params: z.object({ scenario: playbookScenarioSchema, db: dbKindSchema }),
    result: z.object({ restoreId: z.string() }),
  },
  'playbooks/restore': { params: z.object({ restoreId: z.string() }), result: playbookTaskSchema },
  /**
   * Trains on the analyst's signed-off runs on a connection (the data of one task type) with
   * the configured model: each run's question is asked again, and a decision is a success when
   * it is the decision the analyst signed off. For users without a simulator.
   */
  'playbooks/train-from-runs': {
    params: z.object({ connectionId: z.string(), batchSize: z.number().int().min(1).max(32).default(4) }),
    result: playbookTrainingSchema,
  },
} as const;
