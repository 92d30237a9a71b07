import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSocket, startServe, type ServeProcess } from '../../support/serve';
import { runDwb } from '../../support/cli';
import { sqliteFromDqaDump } from '../../support/fixtures';
import { ggufHeader } from '../../support/gguf-file';
import { useSuiteTempDir } from '../../support/temp';

const suiteDir = useSuiteTempDir();

/** The reproducer of issue 26: 52 bytes whose one metadata array claims 2^60 elements. */
function hostileGguf(): string {
  const path = join(suiteDir(), 'hostile.gguf');
  writeFileSync(path, ggufHeader([['x', { claimedArray: { elementType: 4, count: 1n << 60n } }]], { tail: Buffer.alloc(3) }));
  return path;
}

/** A header cut off inside its vocabulary, as a download that stopped early leaves it: inside the length of token 990. */
function truncatedGguf(): string {
  const path = join(suiteDir(), 'truncated.gguf');
  const tokens = Array.from({ length: 1000 }, (_, index) => `t${String(index).padStart(4, '0')}`);
  const whole = ggufHeader([['general.architecture', { string: 'llama' }], ['tokenizer.ggml.tokens', { strings: tokens }]]);
  const firstToken = whole.length - 13 * tokens.length;
  writeFileSync(path, whole.subarray(0, firstToken + 13 * 990 + 4));
  return path;
}

const cutRefusal = /Cannot read the GGUF header of .*truncated\.gguf: the file ends inside the header \(at byte 12988, reading element 990 of array 'tokenizer\.ggml\.tokens' at byte 12984\)/;

const arrayRefusal = /metadata array 'x' \(at byte 37\) claims 2\^60 elements of uint32 but the file has only 3 bytes left/;

describe('dwb run --model-file with a hostile or cut-off GGUF', () => {
  let common: string[] = [];
  beforeAll(() => {
    const database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
    const question = join(suiteDir(), 'question.txt');
    writeFileSync(question, 'Where should SWE place its merchant?');
    common = ['run', '--connection', `sqlite:${database}`, '--question-file', question, '--technique', 'planrag', '--max-steps', '1', '--whatif', 'off'];
  });

  it('exits with the reader\'s reason instead of hanging, with and without --context', async () => {
    const hostile = hostileGguf();
    for (const extra of [[], ['--context', '2048']]) {
      // Before the bounded reader the command never returned: the timeout stops it and the test fails.
      const result = await runDwb([...common, '--model-file', hostile, ...extra, '--out', join(suiteDir(), `out-${extra.length}`)], { timeoutMs: 60_000 });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(arrayRefusal);
      expect(result.stderr).toContain(`Cannot read the GGUF header of ${hostile}`);
    }
  });

  it('says where a cut-off file ends, not "Cannot read properties of undefined"', async () => {
    const truncated = truncatedGguf();
    const result = await runDwb([...common, '--model-file', truncated, '--out', join(suiteDir(), 'out-cut')], { timeoutMs: 60_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(cutRefusal);
    expect(result.stderr).not.toContain('undefined');
  });
});

describe('local-models/add in browser mode with a hostile GGUF', () => {
  let server: ServeProcess;
  beforeAll(async () => {
    server = await startServe(suiteDir());
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers with the reason, lists nothing, and goes on answering', async () => {
    const client = await connectSocket(server);
    try {
      await expect(client.invoke('local-models/add', { path: hostileGguf() })).rejects.toMatchObject({ code: 'unsupported', message: expect.stringMatching(arrayRefusal) });
      await expect(client.invoke('local-models/add', { path: truncatedGguf() })).rejects.toMatchObject({
        code: 'unsupported',
        message: expect.stringMatching(cutRefusal),
      });
      expect((await client.invoke('local-models/list', {})).models).toEqual([]);
    } finally {
      client.close();
    }
  });
});
