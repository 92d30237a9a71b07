import { DuckDBBlobValue, JsonDuckDBValueConverter, type DuckDBType, type DuckDBValueConverter, type Json } from '@duckdb/node-api';

import type { CellValue } from '../../contract/data';
import { binaryCell } from '../shared/binary-cell';
import { exactDecimal, exactInteger, isoTimestamp } from '../shared/exact-values';

const integerTypes = new Set(['BIGINT', 'UBIGINT', 'HUGEINT', 'UHUGEINT', 'BIGNUM', 'VARINT']);

/**
 * A value from DuckDB's JSON converter (which already renders big integers, decimals, dates,
 * blobs and UUIDs as exact text) as a cell: small integers and decimals become numbers when no
 * digit is lost, timestamps become ISO 8601, nested values compact JSON text.
 */
export function toDuckdbCell(value: Json, type: DuckDBType): CellValue {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'string') {
    const name = type.toString();
    if (integerTypes.has(name)) return exactInteger(value);
    if (name.startsWith('DECIMAL')) return exactDecimal(value);
    if (name.startsWith('TIMESTAMP')) return isoTimestamp(value);
    return value;
  }
  return JSON.stringify(value);
}

/**
 * DuckDB's JSON converter, but a blob (at any depth) as `0x` and its bytes in hex, as the other
 * engines give it: DuckDB's text form of a blob (`\x00\xFFab\`) writes a backslash byte as a bare
 * backslash, so it cannot be read back.
 */
export const duckdbCellConverter: DuckDBValueConverter<Json> = (value, type, converter) =>
  value instanceof DuckDBBlobValue ? binaryCell(value.bytes) : JsonDuckDBValueConverter(value, type, converter);
