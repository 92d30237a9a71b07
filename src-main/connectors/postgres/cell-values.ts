import type { CustomTypesConfig } from 'pg';

import type { CellValue } from '../../contract/data';
import { binaryCell } from '../shared/binary-cell';
import { exactDecimal, exactInteger, isoTimestamp } from '../shared/exact-values';

/**
 * Turns PostgreSQL's text output into JSON-safe cells. Most types stay as the server's own text
 * (dates, json, arrays), which is already exact and readable; numbers become numbers only when
 * no digit is lost; bytea (the server's `\x0102`) becomes `0x0102`, as every engine gives binary.
 */
const oid = {
  bool: 16,
  int8: 20,
  int2: 21,
  int4: 23,
  oid: 26,
  float4: 700,
  float8: 701,
  numeric: 1700,
  bytea: 17,
  timestamp: 1114,
  timestamptz: 1184,
} as const;

function parseFloat(text: string): CellValue {
  const value = Number(text);
  // NaN and ±Infinity have no JSON form; the server's spelling says it plainly.
  return Number.isFinite(value) ? value : text;
}

const parsers = new Map<number, (text: string) => CellValue>([
  [oid.bool, (text) => text === 't'],
  [oid.int8, exactInteger],
  [oid.int2, Number],
  [oid.int4, Number],
  [oid.oid, Number],
  [oid.float4, parseFloat],
  [oid.float8, parseFloat],
  [oid.numeric, exactDecimal],
  [oid.timestamp, isoTimestamp],
  [oid.timestamptz, isoTimestamp],
  // Hex output is the server's default; a server set to the old escape format keeps its own text.
  [oid.bytea, (text) => (text.startsWith('\\x') ? binaryCell(Buffer.from(text.slice(2), 'hex')) : text)],
]);

const keepText = (text: string): CellValue => text;

export const postgresCellTypes: CustomTypesConfig = {
  getTypeParser: (typeOid) => parsers.get(typeOid) ?? keepText,
};

/** Names for common type OIDs, so most results need no catalog lookup. */
export const wellKnownTypeNames = new Map<number, string>([
  [16, 'boolean'], [17, 'bytea'], [18, 'char'], [19, 'name'], [20, 'bigint'], [21, 'smallint'],
  [23, 'integer'], [25, 'text'], [26, 'oid'], [114, 'json'], [700, 'real'], [701, 'double precision'],
  [1042, 'character'], [1043, 'character varying'], [1082, 'date'], [1083, 'time without time zone'],
  [1114, 'timestamp without time zone'], [1184, 'timestamp with time zone'], [1186, 'interval'],
  [1266, 'time with time zone'], [1700, 'numeric'], [2950, 'uuid'], [3802, 'jsonb'],
  [1000, 'boolean[]'], [1005, 'smallint[]'], [1007, 'integer[]'], [1016, 'bigint[]'], [1009, 'text[]'],
  [1015, 'character varying[]'], [1021, 'real[]'], [1022, 'double precision[]'], [1231, 'numeric[]'],
]);

/** Cells arrive already parsed by the type parsers above; this only guards the contract. */
export function toCell(value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}
