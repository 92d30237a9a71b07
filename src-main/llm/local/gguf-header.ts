import { open } from 'node:fs/promises';
import { GgufByteReader, GgufFormatError, defaultGgufReadLimits, type GgufReadLimits } from './gguf-byte-reader';

/**
 * A bounded reader of GGUF headers (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md):
 * magic, version, tensor and metadata counts, then the metadata entries. Every count and
 * length is checked against the bytes the file still has before anything is read or
 * allocated, arrays are skipped (their elements never enter memory), and the reader stops
 * at the end of the metadata (tensor descriptions and weights are not read).
 */

/** A metadata value as kept: scalars and strings; an array by its element type and length only. */
export type GgufValue =
  | { type: GgufScalarTypeName; value: number | bigint | boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; elementType: GgufTypeName; length: number };

export interface GgufHeader {
  version: number;
  tensorCount: number;
  metadata: Map<string, GgufValue>;
  /** File offset where the metadata ends (the tensor descriptions start). */
  metadataEnd: number;
}

type GgufScalarTypeName = 'uint8' | 'int8' | 'uint16' | 'int16' | 'uint32' | 'int32' | 'float32' | 'bool' | 'uint64' | 'int64' | 'float64';
export type GgufTypeName = GgufScalarTypeName | 'string' | 'array';

/** Value types by their code in the file, with the bytes a value takes (strings and arrays: the least). */
const valueTypes: readonly { name: GgufTypeName; bytes: number }[] = [
  { name: 'uint8', bytes: 1 },
  { name: 'int8', bytes: 1 },
  { name: 'uint16', bytes: 2 },
  { name: 'int16', bytes: 2 },
  { name: 'uint32', bytes: 4 },
  { name: 'int32', bytes: 4 },
  { name: 'float32', bytes: 4 },
  { name: 'bool', bytes: 1 },
  // A string is at least its 8-byte length; an array at least its element type and count.
  { name: 'string', bytes: 8 },
  { name: 'array', bytes: 12 },
  { name: 'uint64', bytes: 8 },
  { name: 'int64', bytes: 8 },
  { name: 'float64', bytes: 8 },
];

/** The least bytes of one metadata entry: key length, an empty key, value type, a one-byte value. */
const minimumEntryBytes = 8 + 4 + 1;
/** The least bytes of one tensor description: name length, dimension count, type, offset. */
const minimumTensorBytes = 8 + 4 + 4 + 8;
/** The GGUF specification's bound on a key. */
const maximumKeyBytes = 65_535;
/** Strings longer than this (a whole vocabulary in one string?) are skipped, not kept. */
const maximumKeptStringBytes = 1024 * 1024;
/** Real files hold flat arrays; deeper nesting than this is refused, not recursed into. */
const maximumArrayDepth = 4;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads the header of the GGUF file at `path` of `fileSize` bytes; throws GgufFormatError with the reason. */
export async function readGgufHeader(path: string, fileSize: number, limits: GgufReadLimits = defaultGgufReadLimits): Promise<GgufHeader> {
  const handle = await open(path, 'r');
  try {
    return await parseHeader(new GgufByteReader(handle, fileSize, limits));
  } finally {
    await handle.close();
  }
}

async function parseHeader(reader: GgufByteReader): Promise<GgufHeader> {
  await reader.need(4 + 4, 'the magic and version');
  const magic = reader.takeBytes(4).toString('latin1');
  if (magic !== 'GGUF') throw new GgufFormatError('it does not start with "GGUF"');
  const version = reader.takeUint32();
  if (version === 1) throw new GgufFormatError('it is GGUF version 1, which llama.cpp no longer reads; convert it again with a current llama.cpp');
  if (version !== 2 && version !== 3) {
    throw new GgufFormatError(`it says GGUF version ${version}, which this app does not know (it reads versions 2 and 3, little-endian)`);
  }
  await reader.need(16, 'the tensor and metadata counts');
  const tensorCount = reader.takeUint64();
  const entryCount = reader.takeUint64();
  assertCountFits(reader, entryCount, minimumEntryBytes, (count, left) => `the header claims ${count} metadata entries but the file has only ${left} bytes left`);
  assertCountFits(reader, tensorCount, minimumTensorBytes, (count, left) => `the header claims ${count} tensors but the file has only ${left} bytes left`);

  const metadata = new Map<string, GgufValue>();
  for (let index = 0; index < Number(entryCount); index++) {
    const keyAt = reader.position;
    const key = await readKey(reader, index);
    const label = quoteKey(key);
    if (metadata.has(key)) throw new GgufFormatError(`metadata key ${label} appears twice (again at byte ${keyAt})`);
    await reader.need(4, `the value type of ${label}`);
    const type = valueType(reader.takeUint32(), `metadata ${label}`);
    metadata.set(key, await readValue(reader, type, label, 0));
  }
  // The tensor descriptions follow the metadata: their count must fit in what is left.
  assertCountFits(reader, tensorCount, minimumTensorBytes, (count, left) => `the header claims ${count} tensors but the file has only ${left} bytes left after its metadata`);
  return { version, tensorCount: Number(tensorCount), metadata, metadataEnd: reader.position };
}

async function readKey(reader: GgufByteReader, index: number): Promise<string> {
  const at = reader.position;
  await reader.need(8, `the key of metadata entry ${index + 1}`);
  const length = reader.takeUint64();
  if (length > BigInt(maximumKeyBytes)) throw new GgufFormatError(`metadata entry ${index + 1} (at byte ${at}) claims a key of ${describeCount(length)} bytes; GGUF keys are at most ${maximumKeyBytes}`);
  assertCountFits(reader, length, 1, (count, left) => `metadata entry ${index + 1} (at byte ${at}) claims a key of ${count} bytes but the file has only ${left} bytes left`);
  await reader.need(Number(length), `the key of metadata entry ${index + 1}`);
  return decodeText(reader.takeBytes(Number(length)), `the key of metadata entry ${index + 1} (at byte ${at})`);
}

/** `key` in the functions below is the key as messages show it (quoteKey). */
async function readValue(reader: GgufByteReader, type: GgufTypeName, key: string, depth: number): Promise<GgufValue> {
  if (type === 'string') return readString(reader, key);
  if (type === 'array') return readArray(reader, key, depth);
  const bytes = typeBytes(type);
  await reader.need(bytes, `the value of ${key}`);
  const value = scalarAt(reader.peek(bytes), type);
  reader.skip(bytes, `the value of ${key}`);
  return { type, value };
}

async function readString(reader: GgufByteReader, key: string): Promise<GgufValue> {
  const at = reader.position;
  await reader.need(8, `the length of ${key}`);
  const length = reader.takeUint64();
  assertCountFits(reader, length, 1, (count, left) => `metadata ${key} claims a string of ${count} bytes but the file has only ${left} bytes left`);
  const bytes = Number(length);
  if (bytes > maximumKeptStringBytes) {
    throw new GgufFormatError(`metadata ${key} (at byte ${at}) is a string of ${bytes} bytes; a header string this app reads is at most ${maximumKeptStringBytes}`);
  }
  await reader.need(bytes, `the value of ${key}`);
  return { type: 'string', value: decodeText(reader.takeBytes(bytes), `metadata ${key} (at byte ${at})`) };
}

/**
 * Walks past an array. Fixed-size elements are skipped in one step once their total fits in
 * the file; strings are walked length by length (each checked); nested arrays recursively, to
 * a small depth. The elements are not kept: the model manager needs none of them.
 */
async function readArray(reader: GgufByteReader, key: string, depth: number): Promise<GgufValue> {
  const at = reader.position;
  await reader.need(12, `the element type and length of array ${key}`);
  const elementType = valueType(reader.takeUint32(), `the elements of array ${key}`);
  const count = reader.takeUint64();
  const elementBytes = typeBytes(elementType);
  assertCountFits(reader, count, elementBytes, (claimed, left) => `metadata array ${key} (at byte ${at}) claims ${claimed} elements of ${elementType} but the file has only ${left} bytes left`);
  const length = Number(count);
  if (elementType === 'string') {
    for (let index = 0; index < length; index++) {
      if (!reader.has(8)) await reader.need(8, `element ${index} of array ${key}`);
      const bytes = reader.takeUint64();
      assertCountFits(reader, bytes, 1, (claimed, left) => `element ${index} of array ${key} claims a string of ${claimed} bytes but the file has only ${left} bytes left`);
      reader.skip(Number(bytes), `element ${index} of array ${key}`);
      if ((index & 0xffff) === 0xffff) reader.checkBudget();
    }
  } else if (elementType === 'array') {
    if (depth + 1 >= maximumArrayDepth) throw new GgufFormatError(`metadata array ${key} (at byte ${at}) nests arrays deeper than ${maximumArrayDepth} levels`);
    for (let index = 0; index < length; index++) {
      await readArray(reader, `${key}[${index}]`, depth + 1);
      if ((index & 0xfff) === 0xfff) reader.checkBudget();
    }
  } else {
    reader.skip(length * elementBytes, `the elements of array ${key}`);
  }
  return { type: 'array', elementType, length };
}

function valueType(code: number, what: string): GgufTypeName {
  const type = valueTypes[code];
  if (!type) throw new GgufFormatError(`${what}: value type ${code} is not one GGUF defines (0 to ${valueTypes.length - 1})`);
  return type.name;
}

function typeBytes(type: GgufTypeName): number {
  return (valueTypes.find((candidate) => candidate.name === type) as { bytes: number }).bytes;
}

function scalarAt(bytes: Buffer, type: GgufTypeName): number | bigint | boolean {
  switch (type) {
    case 'uint8':
      return bytes.readUInt8(0);
    case 'int8':
      return bytes.readInt8(0);
    case 'uint16':
      return bytes.readUInt16LE(0);
    case 'int16':
      return bytes.readInt16LE(0);
    case 'uint32':
      return bytes.readUInt32LE(0);
    case 'int32':
      return bytes.readInt32LE(0);
    case 'float32':
      return bytes.readFloatLE(0);
    case 'bool':
      return bytes.readUInt8(0) !== 0;
    case 'uint64':
      return narrow(bytes.readBigUInt64LE(0));
    case 'int64':
      return narrow(bytes.readBigInt64LE(0));
    default:
      return bytes.readDoubleLE(0);
  }
}

/** A 64-bit integer as a number when it is exact as one, else as a bigint. */
function narrow(value: bigint): number | bigint {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value;
}

/** Refuses a count whose least size does not fit in what the file has left, before anything is allocated. */
function assertCountFits(reader: GgufByteReader, count: bigint, bytesEach: number, message: (count: string, left: number) => string): void {
  if (count * BigInt(bytesEach) > BigInt(reader.remaining)) throw new GgufFormatError(message(describeCount(count), reader.remaining));
}

/** A count as the file gives it, with its power of two when it is one (2^60 reads better than 1152921504606846976). */
export function describeCount(count: bigint): string {
  if (count >= 1n << 32n && (count & (count - 1n)) === 0n) return `2^${count.toString(2).length - 1}`;
  return count.toString();
}

/**
 * A key as messages show it: in single quotes when it is short printable text, else as a JSON
 * string cut at 80 characters, so a hostile key cannot fill or garble the message.
 */
export function quoteKey(key: string): string {
  if (/^[\x20-\x26\x28-\x7e]{1,80}$/.test(key)) return `'${key}'`;
  return JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key);
}

function decodeText(bytes: Buffer, what: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new GgufFormatError(`${what} is not valid UTF-8`);
  }
}
