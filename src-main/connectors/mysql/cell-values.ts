import { Types, type FieldPacket } from 'mysql2';

import type { CellValue } from '../../contract/data';
import { exactDecimal } from '../shared/exact-values';
import { binaryCell } from '../shared/binary-cell';


const dateTimeTypes = new Set(['DATETIME', 'DATETIME2', 'TIMESTAMP', 'TIMESTAMP2']);

/** The MySQL protocol type name of a result column, e.g. `VAR_STRING`, `LONGLONG`. */
export function mysqlTypeName(field: FieldPacket): string {
  const code = field.columnType ?? field.type;
  if (code === undefined) return '';
  // mysql2 types Types with literal keys only; the protocol code is any number.
  const name = Object.entries(Types).find(([key]) => Number(key) === code)?.[1];
  return name ?? String(code);
}

/**
 * One value from mysql2 (configured with dateStrings, jsonStrings, supportBigNumbers and
 * string DECIMALs) as a JSON-safe cell: exact numbers stay exact, dates become ISO 8601 text,
 * binary becomes 0x-hex.
 */
export function toMysqlCell(value: unknown, typeName: string): CellValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (typeof value === 'string') {
    if (typeName === 'DECIMAL' || typeName === 'NEWDECIMAL') return exactDecimal(value);
    if (typeName === 'LONGLONG') return exactDecimal(value);
    if (dateTimeTypes.has(typeName)) return value.replace(' ', 'T');
    return value;
  }
  if (Buffer.isBuffer(value)) return binaryCell(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return JSON.stringify(value);
}
