import { z } from 'zod';
import { WorkbenchError } from '../../../contract/errors';
import type { ActionSignature } from './program';
import seedLibraryJson from './seed-library.json';

/**
 * Pearl's action library (paper §3.1): the typed actions a program may call, each with a
 * signature, a one-sentence definition, how often programs used it and where it came from,
 * plus the demonstrations the planner is shown. One library per scenario and schema, as a
 * versioned JSON file (`decision-workbench/pearl-actions`, version 1). The bundled seed
 * (./seed-library.json) holds the database analogues of the paper's seven seed actions;
 * libraries mined with `dwb actions mine` use the same format. The app keeps imported ones in
 * the workspace (services/action-libraries.ts), saves each edit as a new version, and hands the
 * chosen one to a run as `options.actionLibrary`.
 */
export const libraryFormat = 'decision-workbench/pearl-actions';
export const libraryVersion = 1;

const actionName = z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'an action name is upper case letters, digits and underscores');
const paramName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a parameter is a name (letters, digits, underscores)');

export const libraryActionSchema = z.object({
  name: actionName,
  params: z.array(paramName).min(1),
  variadic: z.boolean().optional(),
  definition: z.string().trim().min(1),
  /** Programs that used it (kept as the library is used and mined). */
  usage: z.number().int().min(0),
  /** `seed`, `analyst`, or `mined: <round or question>`. */
  provenance: z.string().trim().min(1),
});
export type LibraryAction = z.infer<typeof libraryActionSchema>;

export const demonstrationSchema = z.object({
  /** The scenario the question is about (`locating`, `building`, or `any`). */
  scenario: z.string().min(1),
  question: z.string().trim().min(1),
  program: z.string().trim().min(1),
});
export type Demonstration = z.infer<typeof demonstrationSchema>;

export const actionLibrarySchema = z.object({
  format: z.literal(libraryFormat),
  version: z.literal(libraryVersion),
  /** `locating`, `building`, … or `any`. */
  scenario: z.string().min(1),
  /** `relational`, `graph`, a schema hash (audit/connection-fingerprint.ts), or `any`. */
  schema: z.string().min(1),
  actions: z.array(libraryActionSchema).min(1),
  demonstrations: z.array(demonstrationSchema),
});
export type ActionLibrary = z.infer<typeof actionLibrarySchema>;

/** Reads a library file's text; a clear error names the first thing wrong. */
export function readActionLibrary(text: string, source: string): ActionLibrary {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WorkbenchError('invalid-request', `${source} is not JSON: ${(error as Error).message}`);
  }
  const parsed = actionLibrarySchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WorkbenchError('invalid-request', `${source} is not a Pearl action library (format ${libraryFormat}, version ${libraryVersion}): ${issue ? `${issue.path.join('.') || 'the file'}: ${issue.message}` : 'unreadable'}`);
  }
  const names = new Set<string>();
  for (const action of parsed.data.actions) {
    if (names.has(action.name)) throw new WorkbenchError('invalid-request', `${source} defines the action ${action.name} twice`);
    names.add(action.name);
  }
  return parsed.data;
}

/** The bundled seed library: the eight database actions of the specification (SPECS.md §2.5). */
export function seedLibrary(): ActionLibrary {
  return readActionLibrary(JSON.stringify(seedLibraryJson), 'the seed action library');
}

const inUse: ActionLibrary[] = [];

/**
 * Offers a library to the Pearl runs of this process (`dwb run --actions LIB.json`); runs pick
 * the most specific one that fits their scenario and schema. Returns a function that withdraws
 * it. (A workspace library chosen in the app goes to its run directly, as `options.actionLibrary`.)
 */
export function useActionLibrary(library: ActionLibrary): () => void {
  inUse.unshift(library);
  return () => {
    const index = inUse.indexOf(library);
    if (index >= 0) inUse.splice(index, 1);
  };
}

/** The libraries on offer, most recently offered first, then the seed. */
export function availableLibraries(): ActionLibrary[] {
  return [...inUse, seedLibrary()];
}

/** The library for a scenario and schema: the most specific that fits, else the seed. */
export function libraryFor(libraries: readonly ActionLibrary[], scenario: string | null, schema: { kind: string; hash?: string }): ActionLibrary {
  const fits = (library: ActionLibrary, wantScenario: string, wantSchema: string): boolean => library.scenario === wantScenario && library.schema === wantSchema;
  const order: [string, string][] = [];
  for (const s of scenario ? [scenario, 'any'] : ['any']) for (const k of [schema.hash, schema.kind, 'any']) if (k) order.push([s, k]);
  for (const [s, k] of order) {
    const found = libraries.find((library) => fits(library, s, k));
    if (found) return found;
  }
  return seedLibrary();
}

export function signaturesOf(library: ActionLibrary): ActionSignature[] {
  return library.actions.map((action) => ({ name: action.name, params: action.params, ...(action.variadic ? { variadic: true } : {}) }));
}

/** `NAME(P1, P2) : definition`, as the planner is shown the library (CONCAT as `CONCAT(S1, S2, …)`). */
export function actionLine(action: { name: string; params: string[]; variadic?: boolean | undefined; definition: string }): string {
  return `${action.name}(${action.params.join(', ')}${action.variadic ? ', …' : ''}) : ${action.definition}`;
}

/** Usage counts after a program ran: the library's actions it called, counted once per call. */
export function countUsage(library: ActionLibrary, actionsCalled: readonly string[]): ActionLibrary {
  return {
    ...library,
    actions: library.actions.map((action) => ({ ...action, usage: action.usage + actionsCalled.filter((name) => name === action.name).length })),
  };
}
