import { dellmaRunSettingsSchema, type DellmaRunSettings } from '../contract/dellma';
import { WorkbenchError } from '../contract/errors';
import { numberOption } from './command-io';

/** `dwb run`'s DeLLMa options: the variant and the sizes, as `dwb dellma solve` names them. */
export const dellmaRunCliOptions = {
  variant: { type: 'string' },
  samples: { type: 'string' },
  batch: { type: 'string' },
  overlap: { type: 'string' },
  'sc-answers': { type: 'string' },
} as const;

type DellmaCliValues = Partial<Record<keyof typeof dellmaRunCliOptions, string | undefined>>;

const optionOf: Record<string, string> = { variant: '--variant', perAction: '--samples', naiveSamples: '--samples', batch: '--batch', overlap: '--overlap', selfConsistency: '--sc-answers' };

/**
 * The DeLLMa settings the options ask for, checked by the contract's schema (one message per
 * bad value, naming the option); null when none is given. `--samples` is s per option for
 * Pairs and Top-1 and the total for Naive, as in `dwb dellma solve`. Refused for other techniques,
 * naming the option that chose the technique (`--technique` for `dwb run`, `--engine` for `dwb dqa solve`).
 */
export function dellmaRunSettingsFrom(values: DellmaCliValues, technique: string, techniqueOption: '--technique' | '--engine' = '--technique'): DellmaRunSettings | null {
  const given = (Object.keys(dellmaRunCliOptions) as (keyof typeof dellmaRunCliOptions)[]).filter((name) => values[name] !== undefined);
  if (given.length === 0) return null;
  if (technique !== 'dellma') throw new WorkbenchError('invalid-request', `${given.map((name) => `--${name}`).join(', ')} ${given.length === 1 ? 'is' : 'are'} for ${techniqueOption} dellma, not ${technique}`);
  const samples = numberOption(values.samples, '--samples');
  const naive = values.variant === 'naive';
  const raw = {
    ...(values.variant !== undefined ? { variant: values.variant } : {}),
    ...(samples !== undefined ? (naive ? { naiveSamples: samples } : { perAction: samples }) : {}),
    ...(values.batch !== undefined ? { batch: numberOption(values.batch, '--batch') } : {}),
    ...(values.overlap !== undefined ? { overlap: numberOption(values.overlap, '--overlap') } : {}),
    ...(values['sc-answers'] !== undefined ? { selfConsistency: numberOption(values['sc-answers'], '--sc-answers') } : {}),
  };
  const parsed = dellmaRunSettingsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? '');
    const message = issue.code === 'invalid_value' ? `must be one of pairs, top1, naive, zero-shot, cot, sc, got "${values.variant ?? ''}"` : issue.message;
    return `${optionOf[field] ?? field}: ${message}`;
  });
  throw new WorkbenchError('invalid-request', problems.join('; '));
}
