import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-main/contract/errors';
import { defaultGgufReadLimits } from '../../../src-main/llm/local/gguf-byte-reader';
import { readGgufModelInfo } from '../../../src-main/llm/local/model-file';
import { ggufHeader, realisticGgufHeader, u32, u64 } from '../../support/gguf-file';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

function fileOf(bytes: Buffer, name = 'model.gguf'): string {
  const path = join(tempDir(), name);
  writeFileSync(path, bytes);
  return path;
}

/** The reader's message for `bytes`, which must be refused as an unreadable header. */
async function refusal(bytes: Buffer, limits = defaultGgufReadLimits): Promise<string> {
  const error = await readGgufModelInfo(fileOf(bytes), limits).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WorkbenchError);
  expect((error as WorkbenchError).code).toBe('unsupported');
  return (error as WorkbenchError).message;
}

describe('GGUF header reader: hostile and broken headers', () => {
  it('refuses an array claiming 2^60 elements at once, naming the array and the bytes left (the 52-byte reproducer)', async () => {
    const bytes = ggufHeader([['x', { claimedArray: { elementType: 4, count: 1n << 60n } }]], { tail: Buffer.alloc(3) });
    expect(bytes.length).toBe(52);
    expect(await refusal(bytes)).toMatch(/Cannot read the GGUF header of .*model\.gguf: metadata array 'x' \(at byte 37\) claims 2\^60 elements of uint32 but the file has only 3 bytes left$/);
  });

  it('refuses huge arrays of strings and of arrays by their least size, before walking them', async () => {
    expect(await refusal(ggufHeader([['tokens', { claimedArray: { elementType: 8, count: 1000n } }]], { tail: Buffer.alloc(100) }))).toContain(
      "metadata array 'tokens' (at byte 42) claims 1000 elements of string but the file has only 100 bytes left",
    );
    expect(await refusal(ggufHeader([['nested', { claimedArray: { elementType: 9, count: 1n << 40n } }]]))).toContain("metadata array 'nested' (at byte 42) claims 2^40 elements of array but the file has only 0 bytes left");
  });

  it('refuses a string element longer than the file, and arrays nested too deep', async () => {
    const stringArray = Buffer.concat([u32(9), u32(8), u64(2), u64(1), Buffer.from('a'), u64(1n << 50n)]);
    expect(await refusal(ggufHeader([['tokens', { rawType: 9, bytes: stringArray.subarray(4) }]]))).toContain(
      "element 1 of array 'tokens' claims a string of 2^50 bytes but the file has only 0 bytes left",
    );
    let nested = Buffer.concat([u32(4), u64(0)]);
    for (let depth = 0; depth < 5; depth++) nested = Buffer.concat([u32(9), u64(1), nested]);
    expect(await refusal(ggufHeader([['deep', { rawType: 9, bytes: nested }]]))).toContain("metadata array 'deep'[0][0][0] (at byte 76) nests arrays deeper than 4 levels");
    // A key that is no plain text is shown as a JSON string, cut short.
    expect(await refusal(ggufHeader([[`bad\n${'k'.repeat(200)}`, { rawType: 77, bytes: Buffer.alloc(4) }]]))).toContain(`metadata "bad\\n${'k'.repeat(76)}…": value type 77 is not one GGUF defines`);
  });

  it('refuses metadata and tensor counts the file cannot hold', async () => {
    expect(await refusal(ggufHeader([], { entryCount: 1n << 62n }))).toContain('the header claims 2^62 metadata entries but the file has only 0 bytes left');
    expect(await refusal(ggufHeader([['general.architecture', { string: 'llama' }]], { tensorCount: 5n }))).toContain(
      'the header claims 5 tensors but the file has only 45 bytes left',
    );
    expect(await refusal(ggufHeader([['general.architecture', { string: 'llama' }]], { tensorCount: 2n, tail: Buffer.alloc(30) }))).toContain(
      'the header claims 2 tensors but the file has only 30 bytes left after its metadata',
    );
  });

  it('says where a cut-off file ends, instead of reading undefined fields', async () => {
    const whole = realisticGgufHeader();
    expect(await refusal(whole.subarray(0, 20))).toContain('the file ends inside the header (at byte 20, reading the tensor and metadata counts at byte 8)');
    const one = ggufHeader([['general.architecture', { string: 'llama' }]]);
    expect(await refusal(one.subarray(0, 60))).toMatch(/the file ends inside the header \(at byte 60, reading the length of 'general\.architecture' at byte 56\)$/);
    expect(await refusal(one.subarray(0, 66))).toContain("metadata 'general.architecture' claims a string of 5 bytes but the file has only 2 bytes left");
  });

  it('names a value of the wrong type, an undefined type, a missing architecture, a repeated key and bad text', async () => {
    expect(await refusal(ggufHeader([['general.architecture', { uint32: 7 }]]))).toContain("metadata 'general.architecture' should be a string but is uint32 7");
    expect(await refusal(ggufHeader([['general.architecture', { string: 'llama' }], ['llama.context_length', { string: 'long' }]]))).toContain(
      `metadata 'llama.context_length' should be a whole number of at least 0 but is the string "long"`,
    );
    expect(await refusal(ggufHeader([['general.architecture', { string: 'llama' }], ['llama.block_count', { float32: 1.5 }]]))).toContain(
      "metadata 'llama.block_count' should be a whole number of at least 0 but is float32 1.5",
    );
    expect(await refusal(ggufHeader([['general.name', { rawType: 13, bytes: Buffer.alloc(8) }]]))).toContain("metadata 'general.name': value type 13 is not one GGUF defines (0 to 12)");
    expect(await refusal(ggufHeader([['general.name', { string: 'Tiny' }]]))).toContain('it names no architecture (general.architecture is missing)');
    expect(await refusal(ggufHeader([['general.architecture', { string: 'llama' }], ['general.architecture', { string: 'NOT llama' }]]))).toContain(
      "metadata key 'general.architecture' appears twice (again at byte 69)",
    );
    const badKey = Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(1), u64(2), Buffer.from([0xc3, 0x28]), u32(7), Buffer.from([1])]);
    expect(await refusal(badKey)).toContain('the key of metadata entry 1 (at byte 24) is not valid UTF-8');
  });

  it('refuses version 1, unknown versions and keys longer than GGUF allows', async () => {
    expect(await refusal(ggufHeader([], { version: 1 }))).toContain('GGUF version 1, which llama.cpp no longer reads');
    expect(await refusal(ggufHeader([], { version: 0x03000000 }))).toContain('GGUF version 50331648, which this app does not know (it reads versions 2 and 3, little-endian)');
    const longKey = Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(1), u64(1n << 20n), Buffer.alloc(64)]);
    expect(await refusal(longKey)).toContain('metadata entry 1 (at byte 24) claims a key of 1048576 bytes; GGUF keys are at most 65535');
  });

  it('stops at its byte and time budgets', async () => {
    const header = ggufHeader([
      ['general.architecture', { string: 'llama' }],
      ['tokenizer.ggml.tokens', { strings: Array.from({ length: 200_000 }, (_, index) => `t${index}`) }],
    ]);
    expect(await refusal(header, { ...defaultGgufReadLimits, headerBytes: 100_000 })).toMatch(/the header runs past 100000 bytes \(reading element \d+ of array 'tokenizer\.ggml\.tokens' at byte \d+\); no real model's header is that large/);
    // A clock that moves a second each time it is read: the budget of 3 s runs out within the array.
    let clock = 0;
    const ticking = { ...defaultGgufReadLimits, budgetMs: 3000, now: () => (clock += 1000) };
    expect(await refusal(header, ticking)).toMatch(/reading the header took longer than 3 s \(at byte \d+ of \d+\)/);
  });
});

describe('GGUF header reader: real headers', () => {
  it('reads the values the model manager shows from a realistic header', async () => {
    await expect(readGgufModelInfo(fileOf(realisticGgufHeader()))).resolves.toMatchObject({
      name: 'Tiny Llama',
      architecture: 'llama',
      quantization: 'MOSTLY_Q4_1',
      contextLength: 2048,
      layers: 30,
      keyValueWidth: 192,
      chatTemplate: expect.stringContaining('<|im_start|>'),
    });
  });
});
