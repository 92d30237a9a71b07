/**
 * Typed reads of dump values with messages that say exactly which record and field was
 * wrong. Shared by the relational and graph loaders so both accept the same spellings.
 */
import type { DumpValue } from './sql-dump';

export class DqaDataError extends Error {
  override readonly name = 'DqaDataError';
}

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Where a value came from, for error messages: the text itself, or a function making it from
 * the field's key, called only when a value is wrong (building the text for every cell of a
 * dump cost more than reading the cell).
 */
export type Where = string | ((key: string) => string);

function located(where: Where, key: string): string {
  return typeof where === 'string' ? where : where(key);
}

function describe(value: DumpValue | undefined): string {
  return value === undefined ? 'missing' : JSON.stringify(value);
}

export function readText(value: DumpValue | undefined, where: Where, key = ''): string {
  if (typeof value === 'string') return value;
  throw new DqaDataError(`${located(where, key)}: expected text, found ${describe(value)}`);
}

/** Numbers may arrive quoted from some exporters; only a complete numeric literal is accepted. */
export function readNumber(value: DumpValue | undefined, where: Where, key = ''): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && NUMERIC.test(value.trim())) return Number(value.trim());
  throw new DqaDataError(`${located(where, key)}: expected a number, found ${describe(value)}`);
}

export function readInteger(value: DumpValue | undefined, where: Where, key = ''): number {
  const number = readNumber(value, where, key);
  if (!Number.isInteger(number)) throw new DqaDataError(`${located(where, key)}: expected an integer, found ${describe(value)}`);
  return number;
}

/** The graph dumps store has_merchant as the string "False" (Python's spelling); SQL uses TRUE/FALSE or 0/1. */
export function readBoolean(value: DumpValue | undefined, where: Where, key = ''): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === 'string') {
    const lowered = value.trim().toLowerCase();
    if (lowered === 'true' || lowered === '1') return true;
    if (lowered === 'false' || lowered === '0') return false;
  }
  throw new DqaDataError(`${located(where, key)}: expected a boolean, found ${describe(value)}`);
}
