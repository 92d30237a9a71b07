import type { CreatedPart } from '../import-outcome';
import { parseParts } from '../import-outcome';
import { recordTable } from './table-plan';

/**
 * How a Trino import stays all-or-nothing without transactions (most Trino connectors have no
 * multi-statement ones). The dump's tables and its record are loaded under partial names
 * (`_dwb_partial_goods`) beside whatever the schema holds, so a load cut short leaves only
 * tables that are plainly not the dump's, and an earlier import stays whole and readable. Only
 * then are they swapped in, under a pending marker written first and dropped last: a schema
 * holding the marker is mid-swap and read as incomplete, never as imported. The swap is a few
 * renames and drops, the shortest step Trino allows.
 */

/** Prefix of the tables an import loads before they are swapped in. */
export const partialPrefix = '_dwb_partial_';
/** The marker of a swap under way: one row per swap begun, listing the tables it touches. */
export const pendingTable = '_dwb_import_pending';

export function partialName(table: string): string {
  return `${partialPrefix}${table}`;
}

export function isPartial(table: string): boolean {
  return table.toLowerCase().startsWith(partialPrefix);
}

/**
 * What a schema's table names say about an import there:
 * - `empty`: nothing (or no schema);
 * - `pending`: a swap was cut short; what it touched is in the marker's rows;
 * - `recorded`: a complete import, whose record says what it holds (leftover partial tables of a
 *   later import cut short may sit beside it);
 * - `partial`: only partial tables, of a first import cut short while loading;
 * - `foreign`: tables an import did not make.
 */
export type TrinoSchemaState = 'empty' | 'pending' | 'recorded' | 'partial' | 'foreign';

export function judgeSchema(tables: readonly string[]): TrinoSchemaState {
  const names = tables.map((name) => name.toLowerCase());
  if (names.length === 0) return 'empty';
  if (names.includes(pendingTable)) return 'pending';
  if (names.includes(recordTable)) return 'recorded';
  return names.every(isPartial) ? 'partial' : 'foreign';
}

/** The tables every swap begun in a marker's rows touches (each row's `parts` JSON), by name. */
export function pendingParts(rows: readonly unknown[]): CreatedPart[] {
  const byName = new Map<string, CreatedPart>();
  for (const parts of rows) for (const part of parseParts(parts)) byName.set(part.name.toLowerCase(), part);
  return [...byName.values()];
}
