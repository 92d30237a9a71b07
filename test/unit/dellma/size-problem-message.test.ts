import { describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-main/contract/errors';
import { createRouter, type Handlers } from '../../../src-main/services/router';
import { dellmaSizeProblem } from '../../../src-renderer/runs/request-problem';

// The real contract boundary: its refusal is what the run composer receives.
const router = createRouter({} as Handlers);
async function refusal(method: string, params: unknown): Promise<string> {
  const caught: unknown = await router(method, params).then(
    () => null,
    (error: unknown) => error,
  );
  if (!(caught instanceof WorkbenchError)) throw new Error(`expected the router to refuse ${method}`);
  return caught.message;
}

describe('a refused DeLLMa size, as the run composer shows it', () => {
  it('keeps the reason and drops the method and the internal field path', async () => {
    const message = await refusal('dellma/estimate', { question: 'Which fruit?', settings: { perAction: 0 } });
    expect(message).toContain('Invalid dellma/estimate request: settings.perAction:');
    expect(dellmaSizeProblem(message)).toBe('the samples per option must be at least 1');
  });

  it('lists each reason once when one value breaks two rules', async () => {
    const message = await refusal('dellma/estimate', { question: 'Which fruit?', settings: { overlap: 0.99 } });
    expect(dellmaSizeProblem(message)).toBe('the overlap must be at most 0.9; the minibatch size and overlap give a stride ⌊b(1−q)⌋ of 0: lower the overlap');
  });

  it('leaves other fields named and other messages untouched', () => {
    expect(dellmaSizeProblem('Invalid runs/start request: question: Required')).toBe('question: Required');
    expect(dellmaSizeProblem('The model call failed: timeout')).toBe('The model call failed: timeout');
  });
});
