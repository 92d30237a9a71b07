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

/** Lays out the payload: the string table, then the columns in the order they are given. */
class ColumnWriter {
  private readonly strings: string[] = [];
  private readonly indexOf = new Map<string, number>();
  private readonly parts: Uint8Array[] = [];

  count(rows: number): void {
    const part = new Uint8Array(8);
    new DataView(part.buffer).setUint32(0, rows, true);
    this.parts.push(part);
  }

  numbers<T>(rows: readonly T[], get: (row: T) => number): void {
    const column = new Float64Array(rows.length);
    for (let r = 0; r < rows.length; r += 1) column[r] = get(rows[r] as T);
    this.parts.push(new Uint8Array(column.buffer));
  }

  texts<T>(rows: readonly T[], get: (row: T) => string): void {
    const column = new Uint32Array(align8(rows.length * 4) / 4);
    for (let r = 0; r < rows.length; r += 1) {
      const text = get(rows[r] as T);
      let index = this.indexOf.get(text);
      if (index === undefined) {
        index = this.strings.length;
        this.strings.push(text);
        this.indexOf.set(text, index);
      }
      column[r] = index;
    }
    this.parts.push(new Uint8Array(column.buffer));
  }

  flags<T>(rows: readonly T[], get: (row: T) => boolean): void {
    const column = new Uint8Array(align8(rows.length));
    for (let r = 0; r < rows.length; r += 1) column[r] = get(rows[r] as T) ? 1 : 0;
    this.parts.push(column);
  }

  /** Header and payload in one Buffer. */
  finish(key: DumpCacheKey): Buffer {
    const blob = Buffer.from(this.strings.join(''), 'utf8');
    const tableBytes = align8(8 + 4 * (this.strings.length + 1) + blob.length);
    const size = tableBytes + this.parts.reduce((sum, part) => sum + part.length, 0);
    const out = Buffer.alloc(HEADER_BYTES + size);
    let at = HEADER_BYTES;
    out.writeUInt32LE(this.strings.length, at);
    out.writeUInt32LE(blob.length, at + 4);
    at += 8;
    // Offsets in bytes of the UTF-8 blob.
    let offset = 0;
    for (const text of this.strings) {
      out.writeUInt32LE(offset, at);
      at += 4;
      offset += Buffer.byteLength(text, 'utf8');
    }
    out.writeUInt32LE(offset, at);
    at += 4;
    blob.copy(out, at);
    at = HEADER_BYTES + tableBytes;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.length;
    }
    MAGIC.copy(out, 0);
    out.writeUInt32LE(DUMP_CACHE_FORMAT_VERSION, OFFSET.version);
    out.writeUInt8(SCENARIO_CODE[key.scenario], OFFSET.scenario);
    out.writeUInt8(KIND_CODE[key.kind], OFFSET.kind);
    key.sourceHash.copy(out, OFFSET.source);
    out.writeUInt32LE(size, OFFSET.payloadLength);
    sha256(out.subarray(HEADER_BYTES)).copy(out, OFFSET.payloadHash);
    return out;
  }
}

/**
 * The column order of each scenario's records, written and read by the two functions below
 * (field order as declared in locating-data.ts and building-data.ts).
 */
function writeLocating(w: ColumnWriter, data: LocatingData): void {
  w.count(data.countries.length);
  w.texts(data.countries, (c) => c.name);
  w.texts(data.countries, (c) => c.homeNode);
  w.numbers(data.countries, (c) => c.development);
  w.count(data.tradeNodes.length);
  w.texts(data.tradeNodes, (n) => n.name);
  w.numbers(data.tradeNodes, (n) => n.localValue);
  w.flags(data.tradeNodes, (n) => n.isInland);
  w.numbers(data.tradeNodes, (n) => n.totalPower);
  w.numbers(data.tradeNodes, (n) => n.outgoing);
  w.numbers(data.tradeNodes, (n) => n.ingoing);
  w.count(data.flows.length);
  w.texts(data.flows, (f) => f.source);
  w.texts(data.flows, (f) => f.dest);
  w.numbers(data.flows, (f) => f.flow);
  w.count(data.nodeCountries.length);
  w.texts(data.nodeCountries, (n) => n.tradeNode);
  w.texts(data.nodeCountries, (n) => n.country);
  w.flags(data.nodeCountries, (n) => n.isHome);
  w.flags(data.nodeCountries, (n) => n.hasMerchant);
  w.numbers(data.nodeCountries, (n) => n.baseTradingPower);
  w.numbers(data.nodeCountries, (n) => n.calculatedTradingPower);
}

function writeBuilding(w: ColumnWriter, data: BuildingData): void {
  w.count(data.goods.length);
  w.texts(data.goods, (g) => g.name);
  w.numbers(data.goods, (g) => g.code);
  w.numbers(data.goods, (g) => g.basePrice);
  w.numbers(data.goods, (g) => g.currentPrice);
  w.numbers(data.goods, (g) => g.popDemand);
  w.count(data.buildings.length);
  w.numbers(data.buildings, (b) => b.id);
  w.texts(data.buildings, (b) => b.name);
  w.numbers(data.buildings, (b) => b.level);
  w.count(data.supplies.length);
  w.numbers(data.supplies, (r) => r.goodsCode);
  w.numbers(data.supplies, (r) => r.buildingId);
  w.numbers(data.supplies, (r) => r.maxSupply);
  w.numbers(data.supplies, (r) => r.currentOutput);
  w.numbers(data.supplies, (r) => r.level);
  w.count(data.demands.length);
  w.numbers(data.demands, (r) => r.goodsCode);
  w.numbers(data.demands, (r) => r.buildingId);
  w.numbers(data.demands, (r) => r.maxDemand);
  w.numbers(data.demands, (r) => r.currentInput);
  w.numbers(data.demands, (r) => r.level);
}

/** The parsed data as the Buffer described above. */
export function encodeParsedDump(key: DumpCacheKey, data: LocatingData | BuildingData): Buffer {
  const writer = new ColumnWriter();
  if (key.scenario === 'locating') writeLocating(writer, data as LocatingData);
  else writeBuilding(writer, data as BuildingData);
  return writer.finish(key);
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

/** Reads the payload's columns in order as typed-array views, checking every length and index. */
class ColumnReader {
  private at: number;
  readonly strings: string[];

  constructor(private readonly bytes: Buffer) {
    let at = HEADER_BYTES;
    this.need(at, 8);
    const count = bytes.readUInt32LE(at);
    const blobLength = bytes.readUInt32LE(at + 4);
    at += 8;
    this.need(at, 4 * (count + 1) + blobLength);
    const offsets = new Uint32Array(bytes.buffer, bytes.byteOffset + at, count + 1);
    const blobAt = at + 4 * (count + 1);
    this.strings = [];
    for (let i = 0; i < count; i += 1) {
      const from = offsets[i] as number;
      const to = offsets[i + 1] as number;
      if (from > to || to > blobLength) throw new Malformed('string offsets');
      this.strings.push(bytes.toString('utf8', blobAt + from, blobAt + to));
    }
    this.at = align8(blobAt + blobLength);
  }

  private need(from: number, length: number): void {
    if (from + length > this.bytes.length) throw new Malformed('truncated');
  }

  private view(width: number, rows: number): number {
    this.need(this.at, rows * width);
    const base = this.bytes.byteOffset + this.at;
    this.at += align8(rows * width);
    return base;
  }

  count(): number {
    this.need(this.at, 8);
    const rows = this.bytes.readUInt32LE(this.at);
    this.at += 8;
    return rows;
  }

  numbers(rows: number): Float64Array {
    return new Float64Array(this.bytes.buffer, this.view(8, rows), rows);
  }

  texts(rows: number): Uint32Array {
    const column = new Uint32Array(this.bytes.buffer, this.view(4, rows), rows);
    const count = this.strings.length;
    for (let r = 0; r < rows; r += 1) if ((column[r] as number) >= count) throw new Malformed('string index');
    return column;
  }

  flags(rows: number): Uint8Array {
    const column = new Uint8Array(this.bytes.buffer, this.view(1, rows), rows);
    for (let r = 0; r < rows; r += 1) if ((column[r] as number) > 1) throw new Malformed('boolean');
    return column;
  }

  end(): void {
    if (this.at !== this.bytes.length) throw new Malformed('trailing bytes');
  }
}

function readLocating(r: ColumnReader): LocatingData {
  const s = r.strings;
  const data: LocatingData = { countries: [], tradeNodes: [], flows: [], nodeCountries: [] };
  let n = r.count();
  const cName = r.texts(n);
  const cHome = r.texts(n);
  const cDevelopment = r.numbers(n);
  for (let i = 0; i < n; i += 1) data.countries.push({ name: s[cName[i] as number] as string, homeNode: s[cHome[i] as number] as string, development: cDevelopment[i] as number });
  n = r.count();
  const tName = r.texts(n);
  const tLocal = r.numbers(n);
  const tInland = r.flags(n);
  const tPower = r.numbers(n);
  const tOut = r.numbers(n);
  const tIn = r.numbers(n);
  for (let i = 0; i < n; i += 1) {
    data.tradeNodes.push({
      name: s[tName[i] as number] as string,
      localValue: tLocal[i] as number,
      isInland: tInland[i] === 1,
      totalPower: tPower[i] as number,
      outgoing: tOut[i] as number,
      ingoing: tIn[i] as number,
    });
  }
  n = r.count();
  const fSource = r.texts(n);
  const fDest = r.texts(n);
  const fFlow = r.numbers(n);
  for (let i = 0; i < n; i += 1) data.flows.push({ source: s[fSource[i] as number] as string, dest: s[fDest[i] as number] as string, flow: fFlow[i] as number });
  n = r.count();
  const nNode = r.texts(n);
  const nCountry = r.texts(n);
  const nHome = r.flags(n);
  const nMerchant = r.flags(n);
  const nBase = r.numbers(n);
  const nCalculated = r.numbers(n);
  for (let i = 0; i < n; i += 1) {
    data.nodeCountries.push({
      tradeNode: s[nNode[i] as number] as string,
      country: s[nCountry[i] as number] as string,
      isHome: nHome[i] === 1,
      hasMerchant: nMerchant[i] === 1,
      baseTradingPower: nBase[i] as number,
      calculatedTradingPower: nCalculated[i] as number,
    });
  }
  return data;
}

function readBuilding(r: ColumnReader): BuildingData {
  const s = r.strings;
  const data: BuildingData = { goods: [], buildings: [], supplies: [], demands: [] };
  let n = r.count();
  const gName = r.texts(n);
  const gCode = r.numbers(n);
  const gBase = r.numbers(n);
  const gCurrent = r.numbers(n);
  const gPop = r.numbers(n);
  for (let i = 0; i < n; i += 1) {
    data.goods.push({ name: s[gName[i] as number] as string, code: gCode[i] as number, basePrice: gBase[i] as number, currentPrice: gCurrent[i] as number, popDemand: gPop[i] as number });
  }
  n = r.count();
  const bId = r.numbers(n);
  const bName = r.texts(n);
  const bLevel = r.numbers(n);
  for (let i = 0; i < n; i += 1) data.buildings.push({ id: bId[i] as number, name: s[bName[i] as number] as string, level: bLevel[i] as number });
  n = r.count();
  let goods = r.numbers(n);
  let building = r.numbers(n);
  let max = r.numbers(n);
  let current = r.numbers(n);
  let level = r.numbers(n);
  for (let i = 0; i < n; i += 1) {
    data.supplies.push({ goodsCode: goods[i] as number, buildingId: building[i] as number, maxSupply: max[i] as number, currentOutput: current[i] as number, level: level[i] as number });
  }
  n = r.count();
  goods = r.numbers(n);
  building = r.numbers(n);
  max = r.numbers(n);
  current = r.numbers(n);
  level = r.numbers(n);
  for (let i = 0; i < n; i += 1) {
    data.demands.push({ goodsCode: goods[i] as number, buildingId: building[i] as number, maxDemand: max[i] as number, currentInput: current[i] as number, level: level[i] as number });
  }
  return data;
}

/**
 * The parsed data stored in `bytes`, or null when they are not a whole, current entry for
 * `key` (then the dump is parsed again). Never throws.
 */
export function decodeParsedDump(bytes: Buffer, key: DumpCacheKey): LocatingData | BuildingData | null {
  try {
    if (!headerMatches(bytes, key)) return null;
    // Typed-array views need 8-byte alignment within their ArrayBuffer: copy when the Buffer is not aligned.
    const reader = new ColumnReader(bytes.byteOffset % 8 === 0 ? bytes : Buffer.from(bytes));
    const data = key.scenario === 'locating' ? readLocating(reader) : readBuilding(reader);
    reader.end();
    return data;
  } catch (error) {
    if (error instanceof Malformed || error instanceof RangeError) return null;
    throw error;
  }
}
