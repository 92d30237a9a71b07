/**
 * Writes GGUF headers byte by byte for tests of the header reader: typed metadata values,
 * arrays given by their elements or only by the count they claim, and raw bytes where a
 * test needs a header the writer would never produce.
 */
export type GgufTestValue =
  | { uint32: number }
  | { uint64: bigint }
  | { int32: number }
  | { float32: number }
  | { bool: boolean }
  | { string: string }
  | { strings: string[] }
  | { floats: number[] }
  /** An array header claiming `count` elements of type code `elementType`, followed by nothing. */
  | { claimedArray: { elementType: number; count: bigint } }
  /** A value type code and the raw bytes after it. */
  | { rawType: number; bytes: Buffer };

export function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
}

export function u64(value: number | bigint): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64LE(BigInt(value));
  return buffer;
}

export function ggufString(value: string): Buffer {
  return Buffer.concat([u64(Buffer.byteLength(value)), Buffer.from(value, 'utf8')]);
}

function encodeValue(value: GgufTestValue): Buffer {
  if ('uint32' in value) return Buffer.concat([u32(4), u32(value.uint32)]);
  if ('uint64' in value) return Buffer.concat([u32(10), u64(value.uint64)]);
  if ('int32' in value) {
    const buffer = Buffer.alloc(4);
    buffer.writeInt32LE(value.int32);
    return Buffer.concat([u32(5), buffer]);
  }
  if ('float32' in value) {
    const buffer = Buffer.alloc(4);
    buffer.writeFloatLE(value.float32);
    return Buffer.concat([u32(6), buffer]);
  }
  if ('bool' in value) return Buffer.concat([u32(7), Buffer.from([value.bool ? 1 : 0])]);
  if ('string' in value) return Buffer.concat([u32(8), ggufString(value.string)]);
  if ('strings' in value) return Buffer.concat([u32(9), u32(8), u64(value.strings.length), ...value.strings.map(ggufString)]);
  if ('floats' in value) {
    const buffer = Buffer.alloc(4 * value.floats.length);
    value.floats.forEach((float, index) => buffer.writeFloatLE(float, 4 * index));
    return Buffer.concat([u32(9), u32(6), u64(value.floats.length), buffer]);
  }
  if ('claimedArray' in value) return Buffer.concat([u32(9), u32(value.claimedArray.elementType), u64(value.claimedArray.count)]);
  return Buffer.concat([u32(value.rawType), value.bytes]);
}

/** A GGUF header: magic, version, counts (as given, or the real ones), then the entries in order. */
export function ggufHeader(
  entries: [string, GgufTestValue][],
  options: { version?: number; tensorCount?: bigint; entryCount?: bigint; tail?: Buffer } = {},
): Buffer {
  return Buffer.concat([
    Buffer.from('GGUF', 'ascii'),
    u32(options.version ?? 3),
    u64(options.tensorCount ?? 0n),
    u64(options.entryCount ?? BigInt(entries.length)),
    ...entries.map(([key, value]) => Buffer.concat([ggufString(key), encodeValue(value)])),
    options.tail ?? Buffer.alloc(0),
  ]);
}

/** A small but realistic header: what a llama model's file says before its tensors. */
export function realisticGgufHeader(): Buffer {
  return ggufHeader([
    ['general.architecture', { string: 'llama' }],
    ['general.name', { string: 'Tiny Llama' }],
    ['general.file_type', { uint32: 3 }],
    ['llama.context_length', { uint32: 2048 }],
    ['llama.embedding_length', { uint32: 576 }],
    ['llama.block_count', { uint32: 30 }],
    ['llama.attention.head_count', { uint32: 9 }],
    ['llama.attention.head_count_kv', { uint32: 3 }],
    ['llama.rope.freq_base', { float32: 10000 }],
    ['tokenizer.ggml.model', { string: 'gpt2' }],
    ['tokenizer.ggml.tokens', { strings: ['<|endoftext|>', 'a', 'b', 'ab', 'Ġthe', 'é'] }],
    ['tokenizer.ggml.scores', { floats: [0, -1, -2, -3, -4, -5] }],
    ['tokenizer.ggml.add_bos_token', { bool: false }],
    ['tokenizer.chat_template', { string: "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}" }],
  ]);
}
