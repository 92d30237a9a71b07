import { freemem } from 'node:os';
import { WorkbenchError, fileErrorCode, fileErrorReason } from '../../contract/errors';
import { readRegularHead } from '../../native/bounded-read';
import { GgufFormatError, type GgufReadLimits } from './gguf-byte-reader';
import { headerFields, type HeaderFields } from './gguf-fields';
import { readGgufHeader } from './gguf-header';

/** What the model manager shows of a GGUF file, read from its header (the weights are not read). */
export interface GgufModelInfo {
  path: string;
  sizeBytes: number;
  /** `general.name`, or the file name when the file names no model. */
  name: string;
  architecture: string;
  /** The file type, e.g. `MOSTLY_Q4_1`; `unknown` when the header does not say. */
  quantization: string;
  /** The context length the model was trained with (tokens). */
  contextLength: number | null;
  /** The chat template in the file; null when there is none (a base model). */
  chatTemplate: string | null;
  /** What the memory estimate needs: layers and key/value width. */
  layers: number | null;
  keyValueWidth: number | null;
}

const ggufMagic = Buffer.from('GGUF', 'ascii');

/**
 * Refuses anything that is not a readable GGUF file, with the reason. A client names the path,
 * so it is opened only as a regular file, without waiting and off the main thread: a named pipe
 * or a device is refused before a byte is read.
 */
export async function assertGgufFile(path: string): Promise<number> {
  let head: Buffer;
  let size: number;
  try {
    ({ head, size } = await readRegularHead(path, ggufMagic.length));
  } catch (error) {
    throw new WorkbenchError(fileErrorCode(error), `Cannot read the model file ${path}: ${fileErrorReason(error)}`);
  }
  if (!head.equals(ggufMagic)) {
    throw new WorkbenchError('unsupported', `${path} is not a GGUF model file (it does not start with "GGUF"); convert the model to GGUF or pick a .gguf file`);
  }
  return size;
}

/** Reads the header of a GGUF file; refuses non-GGUF files and architectures llama.cpp does not know. */
export async function readGgufModelInfo(path: string, limits?: GgufReadLimits): Promise<GgufModelInfo> {
  const sizeBytes = await assertGgufFile(path);
  // Our own bounded reader, not node-llama-cpp's: that one allocates whatever an array claims
  // (2^60 elements hung the server) and reads a cut-off file into undefined fields.
  let fields: HeaderFields;
  try {
    fields = headerFields(await readGgufHeader(path, sizeBytes, limits));
  } catch (error) {
    if (error instanceof GgufFormatError) throw new WorkbenchError('unsupported', `Cannot read the GGUF header of ${path}: ${error.message}`);
    throw new WorkbenchError('not-found', `Cannot read the model file ${path}: ${fileErrorReason(error)}`);
  }
  // node-llama-cpp is an ES module: imported on demand, so the CommonJS main bundle can load it.
  const llamaCpp = await import('node-llama-cpp');
  const { GgufFileType } = llamaCpp;
  // A const enum in the typings, an object at run time: the architectures llama.cpp knows.
  const knownArchitectures = new Set<string>(Object.values((llamaCpp as unknown as { GgufArchitectureType: Record<string, string> }).GgufArchitectureType));
  const { architecture } = fields;
  if (!knownArchitectures.has(architecture)) {
    throw new WorkbenchError('unsupported', `The model in ${path} has the architecture "${architecture}", which this version of llama.cpp does not support`);
  }
  const keyValueHeads = fields.keyValueHeads ?? fields.heads;
  return {
    path,
    sizeBytes,
    name: fields.name ? fields.name : (path.split(/[\\/]/).pop() ?? path),
    architecture,
    quantization: fields.fileType !== null ? ((GgufFileType as Record<number, string | undefined>)[fields.fileType] ?? `type ${fields.fileType}`) : 'unknown',
    contextLength: fields.contextLength,
    chatTemplate: fields.chatTemplate,
    layers: fields.layers,
    keyValueWidth: fields.embedding !== null && fields.heads && keyValueHeads ? Math.round((fields.embedding * keyValueHeads) / fields.heads) : null,
  };
}

/** The context size used when none is set: the model's own, capped so a small machine copes. */
export function defaultContextSize(info: Pick<GgufModelInfo, 'contextLength'>): number {
  return Math.min(info.contextLength ?? 4096, 8192);
}

// Compute buffers and the runtime itself, on top of weights and cache: measured around
// 100–250 MiB for small models on CPU; a generous fixed allowance keeps the estimate honest.
const runtimeOverheadBytes = 256 * 1024 * 1024;

/**
 * Bytes a load will need: the file (weights are mapped and read), the key/value cache for the
 * context (keys and values, 16 bits each, per layer) and a fixed allowance for compute buffers.
 */
export function estimateLoadBytes(info: Pick<GgufModelInfo, 'sizeBytes' | 'layers' | 'keyValueWidth'>, contextSize: number): number {
  // Without the header's numbers, assume a cache as large as a 7B model's per token (0.5 MiB).
  const cachePerToken = info.layers && info.keyValueWidth ? 2 * 2 * info.layers * info.keyValueWidth : 512 * 1024;
  return info.sizeBytes + cachePerToken * contextSize + runtimeOverheadBytes;
}

/** Refuses a load that needs more memory than is free now, before anything is loaded. */
export function assertEnoughMemory(requiredBytes: number, what: string, freeBytes: number = freemem()): void {
  if (requiredBytes <= freeBytes) return;
  throw new WorkbenchError(
    'unsupported',
    `Not enough free memory to load ${what}: it needs about ${formatBytes(requiredBytes)} (weights, context cache and buffers) and ${formatBytes(freeBytes)} is free. Close other programs, choose a smaller context size or a smaller (more quantized) model.`,
  );
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
