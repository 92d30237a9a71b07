import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../src-main/contract/errors';
import { readGgufModelInfo, type GgufModelInfo } from '../../src-main/llm/local/model-file';
import { ggufHeader, realisticGgufHeader, u32 } from '../support/gguf-file';
import { useTempDirs } from '../support/temp';

/**
 * Issue 26, item 2: hostile GGUF files against the model manager's header reader. A 52-byte
 * file claiming a 2^60-element array hung the server; a cut-off one leaked "Cannot read
 * properties of undefined". Every file here must end, within the test's timeout and without
 * allocating what it claims, in a header read or a clear WorkbenchError naming what is wrong.
 */
const tempDir = useTempDirs();
const figures = { truncations: { tried: 0, refused: 0 }, mutations: { tried: 0, parsed: 0, refused: 0 }, hostileCounts: { tried: 0, refused: 0 } };
const reasons = new Map<string, number>();

afterAll(() => {
  const { truncations, mutations, hostileCounts } = figures;
  console.log(`hostile GGUF: ${truncations.tried} truncations refused ${truncations.refused}; ${hostileCounts.tried} huge counts refused ${hostileCounts.refused}; ${mutations.tried} mutations: ${mutations.parsed} read, ${mutations.refused} refused clearly, 0 leaked`);
  console.log(`  refusals by kind: ${[...reasons].sort((a, b) => b[1] - a[1]).map(([reason, count]) => `${reason} ${count}`).join(', ')}`);
});

/** The kind of a refusal, for the figures: its message with the numbers and names taken out. */
function kindOf(message: string): string {
  const reason = message.replace(/^Cannot read the GGUF header of .+?: /, '').replace(/^.+ is not a GGUF model file.*/, 'not GGUF').replace(/^The model in .*/, 'unknown architecture');
  const general = reason.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "'…'").replace(/ \(at byte \d+.*?\)/g, '').replace(/(?<![\w-])(2\^)?\d+(?!\w)/g, 'N');
  return (general.split(/ but | \(|;|,/)[0] as string).trim();
}

/** Every outcome is a header read or a clear refusal: never a TypeError, RangeError or an "undefined" leaking out. */
async function outcomeOf(bytes: Buffer, path: string): Promise<GgufModelInfo | WorkbenchError> {
  writeFileSync(path, bytes);
  try {
    return await readGgufModelInfo(path);
  } catch (error) {
    if (!(error instanceof WorkbenchError)) throw new Error(`not a WorkbenchError: ${String(error)} for ${bytes.toString('hex')}`);
    expect(error.code).toBe('unsupported');
    expect(error.message).toMatch(/^(Cannot read the GGUF header of |The model in |.+ is not a GGUF model file ).+/);
    expect(error.message).not.toMatch(/undefined|Cannot read properties|is not a function|out of range|RangeError|TypeError|NaN/);
    reasons.set(kindOf(error.message), (reasons.get(kindOf(error.message)) ?? 0) + 1);
    return error;
  }
}

describe('GGUF header reader: fuzz', () => {
  const header = realisticGgufHeader();

  it('refuses every truncation of a real header clearly, and reads it whole', async () => {
    const path = join(tempDir(), 'cut.gguf');
    for (let length = 0; length < header.length; length++) {
      const outcome = await outcomeOf(header.subarray(0, length), path);
      figures.truncations.tried++;
      expect(outcome, `cut at ${length}`).toBeInstanceOf(WorkbenchError);
      figures.truncations.refused++;
    }
    expect(await outcomeOf(header, path)).toMatchObject({ architecture: 'llama' });
  });

  it('answers random byte changes, huge counts, wrong types and random bytes with a header or a clear error', async () => {
    const path = join(tempDir(), 'fuzz.gguf');
    const mutation = fc.oneof(
      // Some bytes of the real header overwritten.
      fc.array(fc.tuple(fc.nat({ max: header.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }).map((changes) => {
        const bytes = Buffer.from(header);
        for (const [at, value] of changes) bytes[at] = value;
        return bytes;
      }),
      // A 64-bit count or length anywhere replaced by a huge or odd one.
      fc.tuple(fc.nat({ max: header.length - 8 }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n })).map(([at, value]) => {
        const bytes = Buffer.from(header);
        bytes.writeBigUInt64LE(value, at);
        return bytes;
      }),
      // A value type (or element type) anywhere replaced by any 32-bit code.
      fc.tuple(fc.nat({ max: header.length - 4 }), fc.integer({ min: 0, max: 0xffffffff })).map(([at, value]) => {
        const bytes = Buffer.from(header);
        bytes.writeUInt32LE(value, at);
        return bytes;
      }),
      // Random bytes after a valid start.
      fc.uint8Array({ maxLength: 300 }).map((random) => Buffer.concat([Buffer.from('GGUF'), u32(3), Buffer.from(random)])),
      // Random bytes.
      fc.uint8Array({ maxLength: 300 }).map((random) => Buffer.from(random)),
    );
    await fc.assert(
      fc.asyncProperty(mutation, async (bytes) => {
        const outcome = await outcomeOf(bytes, path);
        figures.mutations.tried++;
        if (outcome instanceof WorkbenchError) figures.mutations.refused++;
        else figures.mutations.parsed++;
      }),
      { numRuns: 1500 },
    );
    // Both outcomes occur: the fuzz reaches deep into real headers, not only their first bytes.
    expect(figures.mutations.parsed).toBeGreaterThan(0);
    expect(figures.mutations.refused).toBeGreaterThan(0);
  });

  it('refuses every count a header has, set to 2^32 … 2^64-1, before allocating it', async () => {
    const path = join(tempDir(), 'huge.gguf');
    // Where the counts and lengths of a header of one array sit: tensors, entries, key length, element count.
    const entries: [string, Parameters<typeof ggufHeader>[0][number][1]][] = [['tokenizer.ggml.scores', { floats: [0, 1, 2] }]];
    const bytes = ggufHeader(entries);
    const offsets = [8, 16, 24, 24 + 8 + 21 + 8];
    for (const at of offsets) {
      for (let power = 32n; power <= 64n; power++) {
        const hostile = Buffer.from(bytes);
        hostile.writeBigUInt64LE((1n << power) - (power === 64n ? 1n : 0n), at);
        figures.hostileCounts.tried++;
        expect(await outcomeOf(hostile, path), `2^${power} at ${at}`).toBeInstanceOf(WorkbenchError);
        figures.hostileCounts.refused++;
      }
    }
  });
});
