import type { z } from 'zod';
import { WorkbenchError } from '../../contract/errors';
import type { TechniqueDefinition, TechniqueHost } from './technique';

/** "actionLibrary: expected string" for each problem the schema found, naming the field (or the flag it came from). */
function problemsOf(error: z.ZodError, nameOf: (field: string) => string): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.map(String).join('.');
      // An unknown field is named by the issue itself (`keys`), not by its path.
      const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => nameOf(key)).join(', ') : null;
      if (keys !== null) return `${keys}: not an option it takes`;
      return field === '' ? issue.message : `${nameOf(field)}: ${issue.message}`;
    })
    .join('; ');
}

/**
 * The options a run of `technique` is started with, checked by the technique's own schema:
 * undefined when none are given. Options given to a technique that declares none, and options
 * its schema refuses, are an `invalid-request` naming the technique and the field.
 */
export function checkedTechniqueOptions(technique: TechniqueDefinition, given: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> | undefined {
  if (given === undefined) return undefined;
  const declaration = technique.options;
  if (!declaration) {
    const fields = Object.keys(given);
    if (fields.length === 0) return undefined;
    throw new WorkbenchError('invalid-request', `${technique.label} (${technique.id}) takes no options, got ${fields.join(', ')}`);
  }
  const parsed = declaration.schema.safeParse(given);
  if (!parsed.success) throw new WorkbenchError('invalid-request', `${technique.label} (${technique.id}) options: ${problemsOf(parsed.error, (field) => field)}`);
  return parsed.data as Record<string, unknown>;
}

/**
 * What runs/start refuses about checked options before anything is stored or asked of the
 * model: the question's problem with them (`optionsProblem`; `question` null: not asked, as
 * `dwb run` keeps DeLLMa's candidate query) and references the host cannot resolve (`check`).
 */
export function refuseTechniqueOptions(technique: TechniqueDefinition, input: { question: string | null; options: Record<string, unknown> | undefined; host: TechniqueHost }): void {
  const declaration = technique.options;
  if (!declaration) return;
  const options = input.options ?? declaration.schema.parse({});
  const problem = input.question === null ? null : (declaration.optionsProblem?.(input.question, options) ?? null);
  if (problem !== null) throw new WorkbenchError('invalid-request', problem);
  declaration.check?.(options, input.host);
}

/**
 * A run's options as its technique reads them (`run.options.techniqueOptions`, checked when the
 * run was started): parsed again with the technique's schema, so defaults are filled in and a
 * caller that skipped the check is refused rather than misread.
 */
export function readTechniqueOptions<Options>(schema: z.ZodType<Options>, given: unknown, label: string): Options {
  const parsed = schema.safeParse(given ?? {});
  if (!parsed.success) throw new WorkbenchError('invalid-request', `${label} options: ${problemsOf(parsed.error, (field) => field)}`);
  return parsed.data;
}

/** How results name the variant a run's options make (DeLLMa's sizes), or null. */
export function variantLabelOf(technique: TechniqueDefinition, options: Record<string, unknown> | undefined): string | null {
  if (!technique.options?.variantLabel || options === undefined) return null;
  return technique.options.variantLabel(technique.options.schema.parse(options));
}

/**
 * The options the command-line flags ask for, for `technique`: undefined when none of the
 * technique's flags is given. A flag of another technique is refused naming the one it is for
 * (`techniqueOption`: `--technique` for `dwb run`, `--engine` for `dwb dqa solve`); a bad value
 * is refused naming its flag.
 */
export function techniqueOptionsFromFlags(input: {
  values: Readonly<Record<string, unknown>>;
  technique: TechniqueDefinition;
  techniques: readonly TechniqueDefinition[];
  techniqueOption: string;
}): Record<string, unknown> | undefined {
  const given = (definition: TechniqueDefinition): string[] => (definition.options?.flags ?? []).map((flag) => flag.name).filter((name) => typeof input.values[name] === 'string');
  for (const other of input.techniques) {
    if (other.id === input.technique.id) continue;
    const stray = given(other).filter((name) => !(input.technique.options?.flags ?? []).some((flag) => flag.name === name));
    if (stray.length > 0) throw new WorkbenchError('invalid-request', `${stray.map((name) => `--${name}`).join(', ')} ${stray.length === 1 ? 'is' : 'are'} for ${input.techniqueOption} ${other.id}, not ${input.technique.id}`);
  }
  const declaration = input.technique.options;
  const names = declaration ? given(input.technique) : [];
  if (!declaration || names.length === 0) return undefined;
  const values = Object.fromEntries(names.map((name) => [name, input.values[name] as string]));
  const parsed = declaration.schema.safeParse(declaration.fromFlags(values));
  if (parsed.success) return parsed.data as Record<string, unknown>;
  throw new WorkbenchError('invalid-request', problemsOf(parsed.error, (field) => declaration.flagOf?.(field) ?? field));
}

/** Every technique's flags as parseArgs options (all strings). Two techniques may share a flag name only with the same meaning to the user. */
export function techniqueFlagOptions(techniques: readonly TechniqueDefinition[]): Record<string, { type: 'string' }> {
  return Object.fromEntries(techniques.flatMap((technique) => (technique.options?.flags ?? []).map((flag) => [flag.name, { type: 'string' as const }])));
}

/** The technique flags as help lines: `  --variant pairs|top1|…  (dellma) The variant to run.` */
export function techniqueFlagsHelp(techniques: readonly TechniqueDefinition[]): string {
  const lines = techniques.flatMap((technique) => (technique.options?.flags ?? []).map((flag) => ({ usage: `--${flag.name} ${flag.value}`, text: `(${technique.id}) ${flag.description}` })));
  if (lines.length === 0) return '';
  const width = Math.max(...lines.map((line) => line.usage.length));
  return ['technique options:', ...lines.map((line) => `  ${line.usage.padEnd(width)}  ${line.text}`)].join('\n');
}
