import { describe, expect, it } from 'vitest';
import { repetitionProblem } from '../../../src-main/engine/run-context';

describe('the problem a reply cut for repetition is told', () => {
  it('quotes the last 16 characters of what was streamed', () => {
    expect(repetitionProblem('{"steps": ["1.1.1.1.1.1.1.1.1.1.1.1')).toBe('the reply kept repeating ".1.1.1.1.1.1.1.1" and was cut off; write each value once');
  });

  it('keeps to one line when the repeated unit holds newlines and tabs (seen from SmolLM2 in CI)', () => {
    const problem = repetitionProblem('[\n\t\t\t"Country",\n\t\t\t"Country",\n\t\t\t"Country"');
    expect(problem).toBe('the reply kept repeating "ntry", "Country"" and was cut off; write each value once');
    expect(problem).not.toMatch(/[\n\t]/);
  });
});
