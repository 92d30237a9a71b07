import { z } from 'zod';

/**
 * How faithful a run is to the papers its technique comes from:
 * - `paper`: the paper's own settings — greedy decoding (temperature 0), the paper's token and
 *   step limits, the database's own messages, no tools the paper did not have, the paper's own
 *   fallback. The default of the benchmarks (`dwb dqa solve`, `dwb dellma solve`, the
 *   Benchmarks view), so a table compares the techniques the papers describe.
 * - `product`: the workbench's labelled extensions on (`runExtensions` below). The default of
 *   app runs and `dwb run`.
 */
export const fidelities = ['paper', 'product'] as const;
export type Fidelity = (typeof fidelities)[number];
export const fidelitySchema = z.enum(fidelities);

/** One product extension: a named, labelled toggle, with what the paper did instead and its default per fidelity. */
export interface RunExtension {
  id: string;
  /** A short label, shown where the fidelity is chosen and in reports. */
  label: string;
  /** What it adds, in one sentence. */
  adds: string;
  /** What the paper did instead. */
  paperInstead: string;
  /** Techniques it concerns; absent: every technique. */
  techniques?: readonly string[];
  /**
   * On at `paper` fidelity only for these techniques: their own paper did this (AutoPlan's
   * augmented feedback), or the technique has no paper setting on a database to fall back to
   * (DeLLMa's factors); still recorded as an extension, on.
   */
  paperFor?: readonly string[];
  /** On at `product` fidelity. */
  product: boolean;
}

const PLANRAG_FAMILY = ['planrag', 'iterrag', 'singlerag', 'planrag-norp'] as const;

/** Every extension a run can switch; the run-start event records each that concerns the run's technique, on or off. */
export const runExtensions: readonly RunExtension[] = [
  {
    id: 'query-feedback',
    label: 'Richer database feedback',
    adds: 'A failed or empty query is answered with the valid names and the closest one, the clause of a syntax error, or the filter that emptied the result.',
    paperInstead: "The database's own message only (AutoPlan's paper augments the environment's feedback, so AutoPlan keeps it).",
    paperFor: ['autoplan'],
    product: true,
  },
  {
    id: 'simulate-tool',
    label: 'Simulate tool offered',
    adds: "Where a simulator fits the data the model may run it (the simulate tool) before deciding.",
    paperInstead: 'No simulator: the model decides from what its queries retrieve.',
    techniques: [...PLANRAG_FAMILY, 'autoplan'],
    product: true,
  },
  {
    id: 'whatif-tool',
    label: 'What-if tool offered',
    adds: 'Where the data can be copied into a sandbox the model may run a what-if experiment on the copy.',
    paperInstead: 'No what-if experiments: retrieval only.',
    techniques: [...PLANRAG_FAMILY, 'autoplan'],
    product: true,
  },
  {
    id: 'pearl-query-retry',
    label: 'Pearl: a failed step query may be written again',
    adds: 'A database step whose query failed may write one more query before its output.',
    paperInstead: 'One query per database step (the paper runs each step once).',
    techniques: ['pearl'],
    product: true,
  },
  {
    id: 'pearl-parallel-steps',
    label: 'Pearl: independent steps at once',
    adds: 'Steps whose inputs are ready run at once, up to 3.',
    paperInstead: 'Steps run one after another in plan order.',
    techniques: ['pearl'],
    product: true,
  },
  {
    id: 'pearl-planrag-fallback',
    label: 'Pearl: PlanRAG answers when no program parses',
    adds: 'After 8 refused programs PlanRAG answers the question on the same run.',
    paperInstead: 'A zero-shot answer: the question, the rules and the schema, no queries.',
    techniques: ['pearl'],
    product: true,
  },
  {
    id: 'dellma-option-factors',
    label: 'DeLLMa: a factor per option on a database',
    adds: 'Each option gets an unknown of its own, "how <option> turns out", beside the unknowns the question lists.',
    paperInstead: "Hand-written factor templates per environment (agriculture, stocks); a database has none, so it stays on at paper fidelity (off: only the question's listed unknowns).",
    techniques: ['dellma'],
    paperFor: ['dellma'],
    product: true,
  },
];

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
  /** Token limits per call that the fidelity sets (Pearl's paper limits), by call purpose; empty: the model settings' limit. */
  callMaxTokens: z.record(z.string(), z.number().int().positive()),
  /** Every extension that concerns the technique, on or off, with its label. */
  extensions: z.array(z.object({ id: z.string(), label: z.string(), on: z.boolean() })),
});
export type ResolvedFidelity = z.infer<typeof resolvedFidelitySchema>;

/** The extensions that concern `technique`. */
export function extensionsFor(technique: string): RunExtension[] {
  return runExtensions.filter((extension) => !extension.techniques || extension.techniques.includes(technique));
}

/** Whether an extension is on at a fidelity for a technique, before anything the run lacks (no simulator) turns it off. */
export function extensionDefault(extension: RunExtension, fidelity: Fidelity, technique: string): boolean {
  if (fidelity === 'product') return extension.product;
  return extension.paperFor?.includes(technique) ?? false;
}

/**
 * The settings a run of `technique` runs with at the requested fidelity. `unavailable` names
 * extensions the run cannot have whatever the fidelity (no simulator fits, no sandbox), so the
 * record says what the model was really offered. `paperCallTokens` are the per-call token
 * limits the technique's paper used (its definition's `paperCallTokens`), applied at `paper`.
 */
export function resolveFidelity(technique: string, request: RunFidelityRequest, unavailable: readonly string[] = [], paperCallTokens: Readonly<Record<string, number>> = {}): ResolvedFidelity {
  const { fidelity } = request;
  const switched = request.extensions ?? {};
  const temperature = request.temperature ?? (fidelity === 'paper' ? 0 : null);
  return {
    fidelity,
    temperature,
    temperatureFrom: request.temperature !== undefined ? 'option' : fidelity === 'paper' ? 'paper' : 'technique-or-settings',
    callMaxTokens: fidelity === 'paper' ? { ...paperCallTokens } : {},
    extensions: extensionsFor(technique).map((extension) => ({
      id: extension.id,
      label: extension.label,
      on: !unavailable.includes(extension.id) && (switched[extension.id] ?? extensionDefault(extension, fidelity, technique)),
    })),
  };
}

/**
 * The problem with switching these extensions for a technique, or null: an id the registry does
 * not have, or one that does not concern the technique, is refused rather than silently ignored.
 */
export function extensionSwitchProblem(technique: string, switched: Readonly<Record<string, boolean>>): string | null {
  for (const id of Object.keys(switched)) {
    const extension = runExtensions.find((candidate) => candidate.id === id);
    if (!extension) return `No extension "${id}": the extensions are ${runExtensions.map((candidate) => candidate.id).join(', ')}`;
    if (extension.techniques && !extension.techniques.includes(technique)) return `The extension ${id} is for ${extension.techniques.join(', ')}, not ${technique}`;
  }
  return null;
}

/** Whether a resolved run has an extension on; one that does not concern the technique counts as off. A run without a record (older callers) runs as `product`. */
export function extensionOn(resolved: ResolvedFidelity | undefined, id: string): boolean {
  if (!resolved) return runExtensions.find((extension) => extension.id === id)?.product ?? false;
  return resolved.extensions.find((extension) => extension.id === id)?.on ?? false;
}

/** One line saying which fidelity applies, for `dwb run`, the benchmarks and the app. */
export function fidelityLine(resolved: ResolvedFidelity): string {
  const on = resolved.extensions.filter((extension) => extension.on).map((extension) => extension.label);
  const temperature = resolved.temperature === null ? "the technique's or the model settings' temperature" : `temperature ${resolved.temperature}`;
  const limits = Object.entries(resolved.callMaxTokens).map(([purpose, tokens]) => `${purpose} ${tokens}`);
  return `fidelity: ${resolved.fidelity} (${temperature}${limits.length ? `; tokens per call: ${limits.join(', ')}` : ''}; extensions on: ${on.length ? on.join('; ') : 'none'})`;
}
