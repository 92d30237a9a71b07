import { z } from 'zod';

/**
 * Pearl's program cell (engine/techniques/pearl): the analyst reads the program a run planned,
 * edits it with the parser's errors as markers, and runs it again.
 */

/** An action a program may call, as the cell completes and checks it: `NAME(P1, P2)`, CONCAT variadic. */
export const actionSignatureSchema = z.object({
  name: z.string().min(1).max(100),
  params: z.array(z.string().max(100)).max(50),
  variadic: z.boolean().optional(),
  definition: z.string().max(2000).optional(),
});
export type ActionSignatureView = z.infer<typeof actionSignatureSchema>;

/** One parser error, at the line and column (1-based) it points at. */
export const programErrorSchema = z.object({ code: z.string(), line: z.number().int(), column: z.number().int(), message: z.string() });
export type ProgramErrorView = z.infer<typeof programErrorSchema>;

/** Pearl's requests; spread into the contract's `api`. */
export const pearlRequests = {
  /** Runs the real parser over a program, against the actions of the run's library. */
  'pearl/check': {
    params: z.object({ program: z.string().max(100_000), actions: z.array(actionSignatureSchema).max(500) }),
    /** `newActions`: the actions a valid program defines for itself (the cell offers to keep them in the library). */
    result: z.object({ valid: z.boolean(), errors: z.array(programErrorSchema), steps: z.number().int(), newActions: z.array(z.string()) }),
  },
  /**
   * Runs a program the analyst edited as a new Pearl run, with everything else as the run it
   * came from had it (connection, question, rules, simulator); `step` pauses before it runs.
   */
  'pearl/run-program': {
    params: z.object({ runId: z.string(), program: z.string().trim().min(1).max(100_000), mode: z.enum(['auto', 'step']) }),
    result: z.object({ runId: z.string() }),
  },
  /**
   * Re-runs one step of a Pearl run and every step that depends on it, as a new run of the same
   * program; the other steps keep the outputs they had.
   */
  'pearl/rerun-step': {
    params: z.object({ runId: z.string(), step: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), mode: z.enum(['auto', 'step']) }),
    result: z.object({ runId: z.string() }),
  },
} as const;

/** A library action as the library view shows it: signature, definition, how often used, where it came from. */
export const libraryActionViewSchema = z.object({
  name: z.string(),
  params: z.array(z.string()),
  variadic: z.boolean().optional(),
  definition: z.string(),
  usage: z.number().int(),
  provenance: z.string(),
});

/** An action library kept in the workspace (or the bundled seed, id `seed`). */
export const actionLibrarySummarySchema = z.object({
  id: z.string(),
  /** The file it was imported from (its name), or "Seed library". */
  name: z.string(),
  scenario: z.string(),
  schema: z.string(),
  actionCount: z.number().int(),
  demonstrationCount: z.number().int(),
  /** Simplification rounds kept beside a mined library (`<lib>.rounds.json`), 0 when none came with it. */
  roundCount: z.number().int(),
  importedAt: z.string().nullable(),
  builtIn: z.boolean(),
  /** 1 as imported; each save in the app (an edit, promoted actions) is the next version. */
  version: z.number().int(),
  /** A library mined in the app is `proposed` until the analyst accepts or rejects it. */
  status: z.enum(['proposed', 'accepted', 'rejected']),
});
export type ActionLibrarySummary = z.infer<typeof actionLibrarySummarySchema>;

export const actionLibraryViewSchema = actionLibrarySummarySchema.extend({
  actions: z.array(libraryActionViewSchema),
  latestVersion: z.number().int(),
  /** Every version, oldest first: when it was saved, what the analyst said of it, how many actions it had. */
  versions: z.array(z.object({ version: z.number().int(), savedAt: z.string().nullable(), note: z.string(), actionCount: z.number().int() })),
  /** The mining rounds kept with it: sizes, and what merged into what. */
  rounds: z.array(z.object({ round: z.number().int(), kind: z.string(), before: z.number().int(), after: z.number().int(), merges: z.array(z.object({ into: z.string(), from: z.array(z.string()) })) })),
});
export type ActionLibraryView = z.infer<typeof actionLibraryViewSchema>;

/** An action as the analyst edits it in the library view (usage and origin stay the library's). */
export const editedActionSchema = z.object({
  name: z.string().max(100),
  params: z.array(z.string().max(100)).max(50),
  variadic: z.boolean().optional(),
  definition: z.string().max(2000),
});
export type EditedActionView = z.infer<typeof editedActionSchema>;

/** The workspace's action libraries; spread into the contract's `api` with the program cell's requests. */
export const actionLibraryRequests = {
  'pearl/libraries/list': { params: z.object({}), result: z.array(actionLibrarySummarySchema) },
  /** A library at its latest version, or at `version`. */
  'pearl/libraries/get': { params: z.object({ id: z.string(), version: z.number().int().min(1).optional() }), result: actionLibraryViewSchema },
  /** Saves the edited actions as the library's next version (the seed: as a new library). */
  'pearl/libraries/save': { params: z.object({ id: z.string(), actions: z.array(editedActionSchema).min(1).max(500), note: z.string().max(500).default('') }), result: actionLibrarySummarySchema },
  /** Mines actions from the analyst's past questions on a connection (and their rules), from a library (default the seed); kept as a proposal. */
  'pearl/libraries/mine': { params: z.object({ connectionId: z.string(), from: z.string().optional() }), result: actionLibrarySummarySchema },
  /**
   * Refines the library's demonstrations on the past questions of a connection that name the
   * simulator's parameters (up to 4 tries each); the kept ones are saved as its next version
   * (`library` is null when none was kept).
   */
  'pearl/libraries/refine': {
    params: z.object({ connectionId: z.string(), id: z.string() }),
    result: z.object({ library: actionLibrarySummarySchema.nullable(), outcomes: z.array(z.object({ question: z.string(), tries: z.number().int(), kept: z.boolean() })) }),
  },
  /** Accepts or rejects a mined library. */
  'pearl/libraries/decide': { params: z.object({ id: z.string(), accept: z.boolean() }), result: actionLibrarySummarySchema },
  /** Adds the new actions a run's program defines to the library that run planned with, as its next version. */
  'pearl/libraries/promote': { params: z.object({ runId: z.string(), program: z.string().trim().min(1).max(100_000) }), result: actionLibrarySummarySchema },
  /** Copies a library file (`dwb actions mine --out`, with its rounds file when beside it) into the workspace. */
  'pearl/libraries/import': { params: z.object({ path: z.string().trim().min(1) }), result: actionLibrarySummarySchema },
} as const;
