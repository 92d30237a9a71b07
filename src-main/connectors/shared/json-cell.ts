import type { CellValue } from '../../contract/data';

/** A value as plain JSON, the form graph values (nodes, paths, maps, lists) take in a cell. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Scalars stay scalars; lists and maps become compact JSON text. */
export function jsonCell(json: JsonValue): CellValue {
  if (json === null || typeof json !== 'object') return json;
  return JSON.stringify(json);
}

/** Null, strings, booleans and numbers as JSON (NaN and ±Infinity as text); undefined for anything else. */
export function scalarJson(value: unknown): JsonValue | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  return undefined;
}
