import type { CellValue } from '../../contract/data';

/**
 * Engines hand big integers, decimals and timestamps over as exact text. These turn such text
 * into a cell: a JS number only when no digit is lost, otherwise the text as the engine wrote it.
 */

/** An integer's text: a number when it is a safe integer, else the text. */
export function exactInteger(text: string): CellValue {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : text;
}

/** A decimal's text: a number when it has at most 15 significant digits (all a double keeps), else the text. */
export function exactDecimal(text: string): CellValue {
  const value = Number(text);
  if (!Number.isFinite(value)) return text;
  const digits = text.replace(/^-/, '').replace('.', '').replace(/^0+/, '');
  return digits.length <= 15 ? value : text;
}

/** `2024-01-02 03:04:05+01` → `2024-01-02T03:04:05+01:00` (ISO 8601); `infinity` stays as is. */
export function isoTimestamp(text: string): string {
  return text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00');
}
