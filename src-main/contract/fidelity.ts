import { z } from 'zod';

/**
 * How faithful a run is to the papers its technique comes from:
 * - `paper`: the paper's own settings — greedy decoding (temperature 0), the paper's token and
 *   step limits, the database's own messages, no tools the paper did not have, the paper's own
 *   fallback. The default of the benchmarks (`dwb dqa solve`, `dwb dellma solve`, the
 *   Benchmarks view), so a table compares the techniques the papers describe.
 * - `product`: the workbench's labelled extensions on (`sharedExtensions` below, and each
 *   technique's own on its definition). The default of
 *   app runs and `dwb run`.
 */
export const fidelities = ['paper', 'product'] as const;
export type Fidelity = (typeof fidelities)[number];
export const fidelitySchema = z.enum(fidelities);

/**
 * One product extension: a named, labelled toggle, with what the paper did instead and whether
 * it is on at each fidelity. A technique's own extensions are declared on its definition
 * (engine/techniques/<id>/technique.ts); the ones below are shared. `runs/techniques` carries
 * every extension of each technique, so the renderer lists them without knowing the techniques.
 */
export const runExtensionSchema = z.object({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/),
  /** A short label, shown where the fidelity is chosen and in reports. */
  label: z.string(),
  /** What it adds, in one sentence. */
  adds: z.string(),
  /** What the paper did instead. */
  paperInstead: z.string(),
  /**
   * On at `paper` fidelity: the technique's own paper did this (AutoPlan's augmented feedback),
   * or the technique has no paper setting on a database to fall back to (a factor per option on a database);
   * still recorded as an extension, on.
   */
  paper: z.boolean(),
  /** On at `product` fidelity. */
  product: z.boolean(),
});
export type RunExtension = z.infer<typeof runExtensionSchema>;

/**
 * An extension the run executor or a shared tool provides rather than one technique.
 * `everyTechnique`: it concerns every technique (the query tool's feedback); else only those
 * whose definition lists it in `sharedExtensions` (the conversation techniques that offer the
 * simulate and what-if tools). Off at `paper` unless a definition's `paperSettings.keeps` it.
 */
export interface SharedExtension extends Omit<RunExtension, 'paper'> {
  everyTechnique: boolean;
}

/** The extensions shared by techniques; each technique's own are on its definition. */
export const sharedExtensions: readonly SharedExtension[] = [
  {
    id: 'query-feedback',
    label: 'Richer database feedback',
    adds: 'A failed or empty query is answered with the valid names and the closest one, the clause of a syntax error, or the filter that emptied the result.',
    paperInstead: "The database's own message only (AutoPlan's paper augments the environment's feedback, so AutoPlan keeps it).",
    everyTechnique: true,
    product: true,
  },
  {
    id: 'simulate-tool',
    label: 'Simulate tool offered',
    adds: "Where a simulator fits the data the model may run it (the simulate tool) before deciding.",
    paperInstead: 'No simulator: the model decides from what its queries retrieve.',
    everyTechnique: false,
    product: true,
  },
  {
    id: 'whatif-tool',
    label: 'What-if tool offered',
    adds: 'Where the data can be copied into a sandbox the model may run a what-if experiment on the copy.',
    paperInstead: 'No what-if experiments: retrieval only.',
    everyTechnique: false,
    product: true,
  },
];

/**
 * What a technique's fidelity depends on, as `runs/techniques` carries it: every extension that
 * concerns it (shared and its own, each with its paper and product default) and the per-call
 * token limits its paper used. Built from a definition by engine/techniques/technique-extensions.ts.
 */
export const techniqueFidelitySchema = z.object({
  extensions: z.array(runExtensionSchema),
  paperCallTokens: z.record(z.string(), z.number().int().positive()),
});
export type TechniqueFidelity = z.infer<typeof techniqueFidelitySchema>;

/** What a run was asked for: the fidelity, and optionally a temperature and single extensions switched. */
export const runFidelityRequestSchema = z.object({
  fidelity: fidelitySchema,
  /** Overrides the fidelity's temperature for every turn the run's techniques do not fix themselves. */
  temperature: z.number().min(0).max(2).optional(),
  /** Single extensions switched against the fidelity's default, by id (`--extension query-feedback=on`). */
  extensions: z.record(z.string(), z.boolean()).optional(),
});
export type RunFidelityRequest = z.infer<typeof runFidelityRequestSchema>;

/** The settings a run runs with, as the run-start event records them. */
export const resolvedFidelitySchema = z.object({
  fidelity: fidelitySchema,
  /** The temperature of the run's turns; null: the technique's own, else the model settings'. */
  temperature: z.number().nullable(),
  /** Where the temperature came from. */
  temperatureFrom: z.enum(['option', 'paper', 'technique-or-settings']),
  /** Token limits per call that the fidelity sets (a paper's own limits), by call purpose; empty: the model settings' limit. */
  callMaxTokens: z.record(z.string(), z.number().int().positive()),
  /** Every extension that concerns the technique, on or off, with its label. */
  extensions: z.array(z.object({ id: z.string(), label: z.string(), on: z.boolean() })),
});
export type ResolvedFidelity = z.infer<typeof resolvedFidelitySchema>;

/** Whether an extension is on at a fidelity, before anything the run lacks (no simulator) turns it off. */
export function extensionDefault(extension: RunExtension, fidelity: Fidelity): boolean {
  return fidelity === 'product' ? extension.product : extension.paper;
}

/**
 * The settings a run of a technique runs with at the requested fidelity. `technique` is what
 * its definition says (its extensions, its paper's per-call token limits, applied at `paper`).
 * `unavailable` names extensions the run cannot have whatever the fidelity (no simulator fits,
 * no sandbox), so the record says what the model was really offered.
 */
export function resolveFidelity(technique: TechniqueFidelity, request: RunFidelityRequest, unavailable: readonly string[] = []): ResolvedFidelity {
  const { fidelity } = request;
  const switched = request.extensions ?? {};
  const temperature = request.temperature ?? (fidelity === 'paper' ? 0 : null);
  return {
    fidelity,
    temperature,
    temperatureFrom: request.temperature !== undefined ? 'option' : fidelity === 'paper' ? 'paper' : 'technique-or-settings',
    callMaxTokens: fidelity === 'paper' ? { ...technique.paperCallTokens } : {},
    extensions: technique.extensions.map((extension) => ({
      id: extension.id,
      label: extension.label,
      on: !unavailable.includes(extension.id) && (switched[extension.id] ?? extensionDefault(extension, fidelity)),
    })),
  };
}

/**
 * Whether a resolved run has an extension on; one that does not concern the technique counts as
 * off. A run without a record (older callers) runs as `product`: a technique passes its own
 * extension (its declaration) so that default is known; a shared one may be named by id.
 */
export function extensionOn(resolved: ResolvedFidelity | undefined, extension: string | Pick<RunExtension, 'id' | 'product'>): boolean {
  const declared = typeof extension === 'string' ? sharedExtensions.find((candidate) => candidate.id === extension) : extension;
  const id = typeof extension === 'string' ? extension : extension.id;
  if (!resolved) return declared?.product ?? false;
  return resolved.extensions.find((entry) => entry.id === id)?.on ?? false;
}

/** One line saying which fidelity applies, for `dwb run`, the benchmarks and the app. */
export function fidelityLine(resolved: ResolvedFidelity): string {
  return `fidelity: ${fidelityText(resolved)}`;
}

/** The fidelity in words: which, the temperature, the paper's token limits per call and the extensions on. */
export function fidelityText(resolved: ResolvedFidelity): string {
  const on = resolved.extensions.filter((extension) => extension.on).map((extension) => extension.label);
  const temperature = resolved.temperature === null ? "the technique's or the model settings' temperature" : `temperature ${resolved.temperature}`;
  const limits = Object.entries(resolved.callMaxTokens).map(([purpose, tokens]) => `${purpose} ${tokens}`);
  return `${resolved.fidelity} (${temperature}${limits.length ? `; tokens per call: ${limits.join(', ')}` : ''}; extensions on: ${on.length ? on.join('; ') : 'none'})`;
}
