import { GgufFormatError } from './gguf-byte-reader';
import { quoteKey, type GgufHeader, type GgufValue } from './gguf-header';

/** The header values the model manager shows and the memory estimate needs, type-checked. */
export interface HeaderFields {
  architecture: string;
  name: string | null;
  fileType: number | null;
  chatTemplate: string | null;
  contextLength: number | null;
  embedding: number | null;
  layers: number | null;
  heads: number | null;
  keyValueHeads: number | null;
}

const integerTypes = new Set(['uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32', 'uint64', 'int64']);

/**
 * Picks the values this app reads out of the metadata and refuses a value of the wrong type
 * by name (`general.architecture` as a number would otherwise turn into "undefined" further on).
 */
export function headerFields(header: GgufHeader): HeaderFields {
  const { metadata } = header;
  const architecture = text(metadata, 'general.architecture');
  if (architecture === null) throw new GgufFormatError('it names no architecture (general.architecture is missing)');
  const ofArchitecture = (name: string, perLayer = false): number | null => count(metadata, `${architecture}.${name}`, perLayer);
  return {
    architecture,
    name: text(metadata, 'general.name'),
    fileType: count(metadata, 'general.file_type'),
    chatTemplate: text(metadata, 'tokenizer.chat_template') || null,
    contextLength: ofArchitecture('context_length'),
    embedding: ofArchitecture('embedding_length'),
    layers: ofArchitecture('block_count'),
    // Some architectures (OpenELM) give the head counts per layer, as arrays: then unknown.
    heads: ofArchitecture('attention.head_count', true),
    keyValueHeads: ofArchitecture('attention.head_count_kv', true),
  };
}

function text(metadata: Map<string, GgufValue>, key: string): string | null {
  const entry = metadata.get(key);
  if (entry === undefined) return null;
  if (entry.type !== 'string') throw new GgufFormatError(`metadata ${quoteKey(key)} should be a string but is ${describe(entry)}`);
  return entry.value;
}

function count(metadata: Map<string, GgufValue>, key: string, perLayer = false): number | null {
  const entry = metadata.get(key);
  if (entry === undefined) return null;
  if (entry.type === 'array' && perLayer) return null;
  if (entry.type === 'array' || !integerTypes.has(entry.type) || typeof entry.value !== 'number' || entry.value < 0) {
    throw new GgufFormatError(`metadata ${quoteKey(key)} should be a whole number of at least 0 but is ${describe(entry)}`);
  }
  return entry.value;
}

function describe(entry: GgufValue): string {
  if (entry.type === 'array') return `an array of ${entry.length} ${entry.elementType} values`;
  if (entry.type === 'string') return `the string ${JSON.stringify(entry.value.length > 40 ? `${entry.value.slice(0, 40)}…` : entry.value)}`;
  return `${entry.type} ${String(entry.value)}`;
}
