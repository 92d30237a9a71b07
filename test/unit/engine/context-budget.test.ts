import { describe, expect, it } from 'vitest';
import { estimateTokens, fitToContext, summariseObservation } from '../../../src-main/engine/context-budget';
import type { ChatMessage } from '../../../src-main/llm/types';

const table = (rows: number): string => ['rows: ' + rows + ' (complete)', 'a | b', ...Array.from({ length: rows }, (_, index) => `${index} | value ${index}`)].join('\n');

describe('the context budget', () => {
  it('summarises the oldest observations first, keeps the two newest whole, and leaves a prompt that fits alone', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'system' },
      { role: 'user', content: 'task' },
      ...[0, 1, 2, 3].flatMap((index): ChatMessage[] => [
        { role: 'assistant', content: '', toolCalls: [{ id: `c${index}`, name: 'query', arguments: '{"query":"SELECT a, b FROM t"}' }] },
        { role: 'tool', toolCallId: `c${index}`, content: table(200) },
      ]),
    ];
    const before = estimateTokens(messages, 0.25);
    expect(fitToContext(structuredClone(messages), null, 0.25)).toBe(0);
    expect(fitToContext(structuredClone(messages), before * 2, 0.25)).toBe(0);

    const fitted = structuredClone(messages);
    const summarised = fitToContext(fitted, Math.ceil(before * 0.7), 0.25);
    expect(summarised).toBe(2);
    const results = fitted.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results[0]).toBe(summariseObservation(table(200)));
    expect(results[0]).toMatch(/^rows: 200 \(complete\)\na \| b\n0 \| value 0\n1 \| value 1\n2 \| value 2\n… \[summarised to fit the context\] 197 more lines left out/);
    expect(results.slice(2)).toEqual([table(200), table(200)]);
    // Summarised once, never again.
    expect(fitToContext(fitted, 10, 0.25)).toBe(0);
  });

  it('uses the model\'s own token rate when it knows it', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'x'.repeat(1000) }];
    expect(estimateTokens(messages, null)).toBe(254);
    expect(estimateTokens(messages, 0.5)).toBe(504);
  });
});
