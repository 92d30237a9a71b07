import { describe, expect, it } from 'vitest';
import { toChatHistory } from '../../../src-main/llm/local/chat-history';
import type { ToolSpec } from '../../../src-main/llm/types';

const candidates = Array.from({ length: 80 }, (_, index) => `node_${String(index).padStart(2, '0')}`);
const answer: ToolSpec = {
  name: 'answer',
  description: 'Give the final decision.',
  parameters: {
    type: 'object',
    properties: { decision: { type: 'string', maxLength: 200, enum: candidates }, direction: { enum: ['maximize', 'minimize'] } },
    required: ['decision'],
  },
};

describe('the local model prompt', () => {
  it('says a long enum in a few words (the grammar holds the reply to it) and lists a short one', () => {
    const history = toChatHistory([{ role: 'user', content: 'Decide.' }], [answer]);
    const system = history[0];
    expect(system?.type).toBe('system');
    const text = system?.type === 'system' ? system.text : '';
    expect(text).toContain('One of 80 fixed values (the candidates, as the data names them)');
    expect(text).not.toContain('node_07');
    expect(text).toContain('"enum":["maximize","minimize"]');
    // The tool's own schema is left whole: the grammar is made from it.
    expect((answer.parameters as { properties: { decision: { enum: string[] } } }).properties.decision.enum).toHaveLength(80);
    expect(history.at(-1)).toEqual({ type: 'model', response: [] });
  });
});
