import type { CellValue } from '../../contract/data';
import { binaryCell } from '../shared/binary-cell';
import { exactDecimal, exactInteger } from '../shared/exact-values';
import { jsonCell, type JsonValue } from '../shared/json-cell';

/**
 * A value of Trino's JSON protocol as a cell. BIGINT arrives exact (exact-json.ts quotes long
 * literals), DECIMAL as text, REAL/DOUBLE's NaN and ±Infinity as their names, VARBINARY as
 * base64 (shown as 0x hex like every engine), ARRAY/MAP/ROW as JSON (compact JSON text).
 */
export function toTrinoCell(value: unknown, type: string): CellValue {
  if (value === null || value === undefined) return null;
  const base = type.toLowerCase().replace(/\(.*$/, '');
  if (base === 'varbinary' && typeof value === 'string') return binaryCell(Buffer.from(value, 'base64'));
  if ((base === 'bigint' || base === 'integer' || base === 'smallint' || base === 'tinyint') && typeof value === 'string') return exactInteger(value);
  if (base === 'decimal' && typeof value === 'string') return exactDecimal(value);
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  return jsonCell(value as JsonValue);
}
