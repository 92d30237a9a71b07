/**
 * The binary form of a parsed DQA dump kept by the dump cache (dump-cache.ts): exactly the
 * LocatingData / BuildingData the simulators are prepared from, as columns in one Buffer.
 *
 *   header (96 bytes): magic "DWBDUMPC", format version (u32), scenario (u8), kind (u8),
 *     the dump file's sha-256, the payload's length (u32), the payload's sha-256
 *   payload: a string table (count, blob length, count + 1 offsets, the UTF-8 blob), then
 *     per record array (in schema order): its row count, then each field as a column:
 *     numbers as float64, text as u32 indices into the string table, booleans as u8.
 *     Columns start on 8-byte boundaries so they are read as typed-array views.
 *
 * Numbers are stored as the float64 the parser produced, so they round-trip bit for bit. The
 * decoder trusts nothing: a wrong magic, version, scenario, kind or source hash, a length or
 * payload hash that does not match, or an index out of range makes it return null (the caller
 * parses the dump again); it never throws on any bytes.
 */
import { createHash } from 'node:crypto';
import type { BuildingData } from './building-data';
import type { DqaScenario } from './dataset';
import type { DumpKind } from './load';
import type { LocatingData } from './locating-data';

/** Bump when the layout or the meaning of a field changes: older entries are then ignored. */
export const DUMP_CACHE_FORMAT_VERSION = 1;

const MAGIC = Buffer.from('DWBDUMPC', 'latin1');
const HEADER_BYTES = 96;
const OFFSET = { version: 8, scenario: 12, kind: 13, source: 16, payloadLength: 48, payloadHash: 56 } as const;
/** Header bytes written as zero (room for later fields): any other value is not this format. */
const RESERVED: readonly (readonly [number, number])[] = [
  [14, 16],
  [52, 56],
  [88, 96],
];

type FieldType = 'text' | 'number' | 'boolean';
type Schema = readonly (readonly [array: string, fields: readonly (readonly [name: string, type: FieldType])[]])[];

/** Field order follows the data types' declarations (locating-data.ts, building-data.ts). */
const SCHEMAS: Record<DqaScenario, Schema> = {
  locating: [
    ['countries', [['name', 'text'], ['homeNode', 'text'], ['development', 'number']]],
    ['tradeNodes', [['name', 'text'], ['localValue', 'number'], ['isInland', 'boolean'], ['totalPower', 'number'], ['outgoing', 'number'], ['ingoing', 'number']]],
    ['flows', [['source', 'text'], ['dest', 'text'], ['flow', 'number']]],
    [
      'nodeCountries',
      [['tradeNode', 'text'], ['country', 'text'], ['isHome', 'boolean'], ['hasMerchant', 'boolean'], ['baseTradingPower', 'number'], ['calculatedTradingPower', 'number']],
    ],
  ],
  building: [
    ['goods', [['name', 'text'], ['code', 'number'], ['basePrice', 'number'], ['currentPrice', 'number'], ['popDemand', 'number']]],
    ['buildings', [['id', 'number'], ['name', 'text'], ['level', 'number']]],
    ['supplies', [['goodsCode', 'number'], ['buildingId', 'number'], ['maxSupply', 'number'], ['currentOutput', 'number'], ['level', 'number']]],
    ['demands', [['goodsCode', 'number'], ['buildingId', 'number'], ['maxDemand', 'number'], ['currentInput', 'number'], ['level', 'number']]],
  ],
};

const SCENARIO_CODE: Record<DqaScenario, number> = { locating: 1, building: 2 };
const KIND_CODE: Record<DumpKind, number> = { relational: 1, graph: 2 };

const align8 = (n: number): number => (n + 7) & ~7;
const sha256 = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

/** What an entry is for: the dump's bytes (their sha-256), read as which scenario and kind. */
export interface DumpCacheKey {
  sourceHash: Buffer;
  scenario: DqaScenario;
  kind: DumpKind;
}

export function dumpSourceHash(bytes: Uint8Array): Buffer {
  return sha256(bytes);
}

type Row = Record<string, unknown>;

/** The parsed data as the Buffer described above. */
export function encodeParsedDump(key: DumpCacheKey, data: LocatingData | BuildingData): Buffer {
  const schema = SCHEMAS[key.scenario];
  const arrays = schema.map(([name]) => (data as unknown as Record<string, Row[]>)[name] ?? []);
  const strings: string[] = [];
  const indexOf = new Map<string, number>();
  const intern = (text: string): number => {
    let index = indexOf.get(text);
    if (index === undefined) {
      index = strings.length;
      strings.push(text);
      indexOf.set(text, index);
    }
    return index;
  };
  // Intern first, so the string table's size is known before laying out the columns.
  arrays.forEach((rows, a) => {
    for (const [field, type] of (schema[a] as Schema[number])[1]) if (type === 'text') for (const row of rows) intern(row[field] as string);
  });
  const encoded = strings.map((s) => Buffer.from(s, 'utf8'));
  const blobLength = encoded.reduce((sum, b) => sum + b.length, 0);
  let size = align8(8 + 4 * (strings.length + 1) + blobLength);
  arrays.forEach((rows, a) => {
    size += 8;
    for (const [, type] of (schema[a] as Schema[number])[1]) size += align8(rows.length * (type === 'number' ? 8 : type === 'text' ? 4 : 1));
  });
  const out = Buffer.from(new ArrayBuffer(HEADER_BYTES + size));
  let at = HEADER_BYTES;
  out.writeUInt32LE(strings.length, at);
  out.writeUInt32LE(blobLength, at + 4);
  at += 8;
  let blobAt = at + 4 * (strings.length + 1);
  let offset = 0;
  for (const bytes of encoded) {
    out.writeUInt32LE(offset, at);
    at += 4;
    bytes.copy(out, blobAt);
    blobAt += bytes.length;
    offset += bytes.length;
  }
  out.writeUInt32LE(offset, at);
  at = align8(blobAt);
  arrays.forEach((rows, a) => {
    out.writeUInt32LE(rows.length, at);
    at += 8;
    for (const [field, type] of (schema[a] as Schema[number])[1]) {
      // `out` starts its own ArrayBuffer, and `at` is 8-aligned.
      if (type === 'number') {
        const column = new Float64Array(out.buffer, out.byteOffset + at, rows.length);
        for (let r = 0; r < rows.length; r += 1) column[r] = (rows[r] as Row)[field] as number;
      } else if (type === 'text') {
        const column = new Uint32Array(out.buffer, out.byteOffset + at, rows.length);
        for (let r = 0; r < rows.length; r += 1) column[r] = indexOf.get((rows[r] as Row)[field] as string) as number;
      } else {
        for (let r = 0; r < rows.length; r += 1) out[at + r] = (rows[r] as Row)[field] === true ? 1 : 0;
      }
      at += align8(rows.length * (type === 'number' ? 8 : type === 'text' ? 4 : 1));
    }
  });
  MAGIC.copy(out, 0);
  out.writeUInt32LE(DUMP_CACHE_FORMAT_VERSION, OFFSET.version);
  out.writeUInt8(SCENARIO_CODE[key.scenario], OFFSET.scenario);
  out.writeUInt8(KIND_CODE[key.kind], OFFSET.kind);
  key.sourceHash.copy(out, OFFSET.source);
  out.writeUInt32LE(size, OFFSET.payloadLength);
  sha256(out.subarray(HEADER_BYTES)).copy(out, OFFSET.payloadHash);
  return out;
}

/** The header is right for `key` and the payload is whole: anything else is not this entry. */
function headerMatches(bytes: Buffer, key: DumpCacheKey): boolean {
  if (bytes.length < HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return false;
  if (bytes.readUInt32LE(OFFSET.version) !== DUMP_CACHE_FORMAT_VERSION) return false;
  if (bytes.readUInt8(OFFSET.scenario) !== SCENARIO_CODE[key.scenario] || bytes.readUInt8(OFFSET.kind) !== KIND_CODE[key.kind]) return false;
  if (!bytes.subarray(OFFSET.source, OFFSET.source + 32).equals(key.sourceHash)) return false;
  if (bytes.readUInt32LE(OFFSET.payloadLength) !== bytes.length - HEADER_BYTES) return false;
  for (const [from, to] of RESERVED) for (let i = from; i < to; i += 1) if (bytes[i] !== 0) return false;
  return bytes.subarray(OFFSET.payloadHash, OFFSET.payloadHash + 32).equals(sha256(bytes.subarray(HEADER_BYTES)));
}

class Malformed extends Error {}

/**
 * The parsed data stored in `bytes`, or null when they are not a whole, current entry for
 * `key` (then the dump is parsed again). Never throws.
 */
export function decodeParsedDump(bytes: Buffer, key: DumpCacheKey): LocatingData | BuildingData | null {
  try {
    if (!headerMatches(bytes, key)) return null;
    // Typed-array views need 8-byte alignment within their ArrayBuffer: copy when the Buffer is not aligned.
    const buffer = bytes.byteOffset % 8 === 0 ? bytes : Buffer.from(bytes);
    return decodePayload(buffer, key.scenario);
  } catch (error) {
    if (error instanceof Malformed || error instanceof RangeError) return null;
    throw error;
  }
}

function decodePayload(bytes: Buffer, scenario: DqaScenario): LocatingData | BuildingData {
  const end = bytes.length;
  const need = (from: number, length: number): void => {
    if (from + length > end) throw new Malformed('truncated');
  };
  let at = HEADER_BYTES;
  need(at, 8);
  const count = bytes.readUInt32LE(at);
  const blobLength = bytes.readUInt32LE(at + 4);
  at += 8;
  need(at, 4 * (count + 1) + blobLength);
  const offsets = new Uint32Array(bytes.buffer, bytes.byteOffset + at, count + 1);
  const blobAt = at + 4 * (count + 1);
  const strings: string[] = new Array<string>(count);
  for (let i = 0; i < count; i += 1) {
    const from = offsets[i] as number;
    const to = offsets[i + 1] as number;
    if (from > to || to > blobLength) throw new Malformed('string offsets');
    strings[i] = bytes.toString('utf8', blobAt + from, blobAt + to);
  }
  at = align8(blobAt + blobLength);
  const data: Record<string, Row[]> = {};
  for (const [name, fields] of SCHEMAS[scenario]) {
    need(at, 8);
    const rowCount = bytes.readUInt32LE(at);
    at += 8;
    const rows: Row[] = new Array<Row>(rowCount);
    for (let r = 0; r < rowCount; r += 1) rows[r] = {};
    for (const [field, type] of fields) {
      const width = type === 'number' ? 8 : type === 'text' ? 4 : 1;
      need(at, rowCount * width);
      const base = bytes.byteOffset + at;
      if (type === 'number') {
        const column = new Float64Array(bytes.buffer, base, rowCount);
        for (let r = 0; r < rowCount; r += 1) (rows[r] as Row)[field] = column[r];
      } else if (type === 'text') {
        const column = new Uint32Array(bytes.buffer, base, rowCount);
        for (let r = 0; r < rowCount; r += 1) {
          const text = strings[column[r] as number];
          if (text === undefined) throw new Malformed('string index');
          (rows[r] as Row)[field] = text;
        }
      } else {
        const column = new Uint8Array(bytes.buffer, base, rowCount);
        for (let r = 0; r < rowCount; r += 1) {
          const flag = column[r] as number;
          if (flag > 1) throw new Malformed('boolean');
          (rows[r] as Row)[field] = flag === 1;
        }
      }
      at += align8(rowCount * width);
    }
    data[name] = rows;
  }
  if (at !== end) throw new Malformed('trailing bytes');
  return data as unknown as LocatingData | BuildingData;
}
