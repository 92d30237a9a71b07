import { WorkbenchError } from './errors';

/** A number as people write one: digits with an optional sign, point and exponent; not blank, hex or "Infinity", which Number() would also take. */
const writtenNumber = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The number an option gives, checked by `check` and described by `what` in the refusal; undefined when not given. */
export function numberOption(value: string | undefined, flag: string, what = 'a number', check: (number: number) => boolean = () => true): number | undefined {
  if (value === undefined) return undefined;
  const parsed = writtenNumber.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isFinite(parsed) || !check(parsed)) throw new WorkbenchError('invalid-request', `${flag} takes ${what}, got "${value}"`);
  return parsed;
}
