import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGgufModelInfo } from '../../../src-main/llm/local/model-file';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

/** A GGUF v3 header with no tensors and string metadata only: enough for the header checks. */
function ggufHeader(metadata: Record<string, string>): Buffer {
  const parts: Buffer[] = [Buffer.from('GGUF', 'ascii')];
  const u32 = (value: number): Buffer => {
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32LE(value);
    return buffer;
  };
  const u64 = (value: number): Buffer => {
    const buffer = Buffer.alloc(8);
    buffer.writeBigUInt64LE(BigInt(value));
    return buffer;
  };
  const text = (value: string): Buffer => Buffer.concat([u64(Buffer.byteLength(value)), Buffer.from(value, 'utf8')]);
  parts.push(u32(3), u64(0), u64(Object.keys(metadata).length));
  for (const [key, value] of Object.entries(metadata)) parts.push(text(key), u32(8), text(value));
  return Buffer.concat(parts);
}

describe('GGUF header checks', () => {
  it('refuses an architecture llama.cpp does not know, naming it', async () => {
    const path = join(tempDir(), 'strange.gguf');
    writeFileSync(path, ggufHeader({ 'general.architecture': 'quantum-brain', 'general.name': 'Strange' }));
    await expect(readGgufModelInfo(path)).rejects.toMatchObject({ code: 'unsupported', message: expect.stringContaining('has the architecture "quantum-brain", which this version of llama.cpp does not support') });
  });

  it('refuses a file that is not GGUF, and a missing file, with the reason', async () => {
    const path = join(tempDir(), 'model.gguf');
    writeFileSync(path, 'GGML old format');
    await expect(readGgufModelInfo(path)).rejects.toMatchObject({ code: 'unsupported', message: expect.stringContaining('is not a GGUF model file') });
    await expect(readGgufModelInfo(join(tempDir(), 'nope.gguf'))).rejects.toMatchObject({ code: 'not-found', message: expect.stringContaining('no such file (ENOENT)') });
  });

  it('reads a known architecture, and says what the header leaves out', async () => {
    const path = join(tempDir(), 'tiny.gguf');
    writeFileSync(path, ggufHeader({ 'general.architecture': 'llama', 'general.name': 'Tiny' }));
    await expect(readGgufModelInfo(path)).resolves.toMatchObject({ name: 'Tiny', architecture: 'llama', quantization: 'unknown', contextLength: null, chatTemplate: null, layers: null });
  });
});
