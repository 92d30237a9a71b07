/**
 * Typed reads of dump values with messages that say exactly which record and field was
 * wrong. Shared by the relational and graph loaders so both accept the same spellings.
 */
import type { DumpValue } from './sql-dump';

export class DqaDataError extends Error {
  override readonly name = 'DqaDataError';
}

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function describe(value: DumpValue | undefined): string {
  return value === undefined ? 'missing' : JSON.stringify(value);
}

export function readText(value: DumpValue | undefined, where: string): string {
  if (typeof value === 'string') return value;
  throw new DqaDataError(`${where}: expected text, found ${describe(value)}`);
}

/** Numbers may arrive quoted from some exporters; only a complete numeric literal is accepted. */
export function readNumber(value: DumpValue | undefined, where: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && NUMERIC.test(value.trim())) return Number(value.trim());
  throw new DqaDataError(`${where}: expected a number, found ${describe(value)}`);
}

export function readInteger(value: DumpValue | undefined, where: string): number {
  const number = readNumber(value, where);
  if (!Number.isInteger(number)) throw new DqaDataError(`${where}: expected an integer, found ${describe(value)}`);
  return number;
}

/** The graph dumps store has_merchant as the string "False" (Python's spelling); SQL uses TRUE/FALSE or 0/1. */
export function readBoolean(value: DumpValue | undefined, where: string): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === 'string') {
    const lowered = value.trim().toLowerCase();
    if (lowered === 'true' || lowered === '1') return true;
    if (lowered === 'false' || lowered === '0') return false;
  }
  throw new DqaDataError(`${where}: expected a boolean, found ${describe(value)}`);
}
