import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGgufModelInfo } from '../../../src-main/llm/local/model-file';
import { readModelInfoOffThread } from '../../../src-main/llm/local/model-header';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

const u32 = (value: number): Buffer => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
};
const u64 = (value: bigint): Buffer => {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64LE(value);
  return buffer;
};
const text = (value: string): Buffer => Buffer.concat([u64(BigInt(Buffer.byteLength(value))), Buffer.from(value, 'utf8')]);

/** A GGUF v3 header of string metadata, then any raw key/value entries given. */
function ggufHeader(metadata: Record<string, string>, raw: Buffer[] = []): Buffer {
  const parts: Buffer[] = [Buffer.from('GGUF', 'ascii'), u32(3), u64(0n), u64(BigInt(Object.keys(metadata).length + raw.length))];
  for (const [key, value] of Object.entries(metadata)) parts.push(text(key), u32(8), text(value));
  return Buffer.concat([...parts, ...raw]);
}

/** The 52-byte reproducer of issue 26, item 2: one array of uint8 claiming 2^60 elements. */
function hostileGguf(): Buffer {
  return ggufHeader({}, [Buffer.concat([text('a'), u32(9), u32(0), u64(1n << 60n), Buffer.alloc(3)])]);
}

describe('reading a GGUF header in a worker thread', () => {
  it('gives what the reader gives on the main thread, and its refusals', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'tiny.gguf'), ggufHeader({ 'general.architecture': 'llama', 'general.name': 'Tiny' }));
    writeFileSync(join(dir, 'strange.gguf'), ggufHeader({ 'general.architecture': 'quantum-brain' }));
    expect(await readModelInfoOffThread(join(dir, 'tiny.gguf'))).toEqual(await readGgufModelInfo(join(dir, 'tiny.gguf')));
    await expect(readModelInfoOffThread(join(dir, 'strange.gguf'))).rejects.toMatchObject({ name: 'WorkbenchError', code: 'unsupported', message: expect.stringContaining('"quantum-brain"') });
    await expect(readModelInfoOffThread(join(dir, 'none.gguf'))).rejects.toMatchObject({ code: 'not-found', message: expect.stringContaining('no such file (ENOENT)') });
  });

  it('refuses a header the reader cannot finish (an array of 2^60 elements) within its memory budget', { timeout: 90_000 }, async () => {
    const path = join(tempDir(), 'hostile.gguf');
    writeFileSync(path, hostileGguf());
    expect(hostileGguf().length).toBe(52);
    // On the main thread this read grew without end (issue 26, item 2); in the worker it is ended.
    await expect(readModelInfoOffThread(path)).rejects.toMatchObject({ name: 'WorkbenchError', code: 'unsupported', message: expect.stringMatching(/^Cannot read the GGUF header of .*hostile\.gguf: /) });
  });
});
