import { describe, expect, it } from 'vitest';
import { createToolBlockFilter, parseTextToolCalls, toTextModeMessages } from '../../../src-main/llm/text-tools';
import { runQueryTool } from './llm-test-support';

const names = new Set(['run_query']);
const counter = () => {
  let next = 0;
  return () => `t${++next}`;
};

describe('text-mode tool calling', () => {
  it('finds fenced calls, keeps the prose and accepts string or object arguments', () => {
    const parsed = parseTextToolCalls(
      'First.\n```tool_call\n{"name": "run_query", "arguments": {"sql": "SELECT 1"}}\n```\nThen.\n```tool_call\n{"name": "run_query", "arguments": "{\\"sql\\": \\"SELECT 2\\"}"}\n```',
      names,
      counter(),
    );
    expect(parsed.toolCalls).toEqual([
      { id: 't1', name: 'run_query', arguments: '{"sql":"SELECT 1"}' },
      { id: 't2', name: 'run_query', arguments: '{"sql": "SELECT 2"}' },
    ]);
    expect(parsed.content).toBe('First.\n\nThen.');
  });

  it('accepts an answer that is only a JSON call of a known tool, bare or in a json fence', () => {
    expect(parseTextToolCalls('{"name": "run_query", "arguments": {"sql": "SELECT 3"}}', names, counter()).toolCalls).toHaveLength(1);
    expect(parseTextToolCalls('```json\n{"name": "run_query", "arguments": {}}\n```', names, counter()).toolCalls).toEqual([{ id: 't1', name: 'run_query', arguments: '{}' }]);
    expect(parseTextToolCalls('{"name": "unknown_tool", "arguments": {}}', names, counter()).toolCalls).toEqual([]);
  });

  it('leaves a block with broken JSON in the content', () => {
    const text = 'Try:\n```tool_call\n{"name": "run_query", "arguments": {\n```';
    expect(parseTextToolCalls(text, names, counter())).toEqual({ content: text, toolCalls: [] });
  });

  it('rewrites tool history for servers without tools: blocks, user results, alternating roles', () => {
    const messages = toTextModeMessages(
      [
        { role: 'system', content: 'Be careful.' },
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'Looking.', toolCalls: [{ id: 'a', name: 'run_query', arguments: '{"sql":"SELECT 1"}' }, { id: 'b', name: 'run_query', arguments: '' }] },
        { role: 'tool', toolCallId: 'a', content: '[[1]]' },
        { role: 'tool', toolCallId: 'b', content: '[[2]]' },
        { role: 'user', content: 'And?' },
      ],
      [runQueryTool],
    );
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[0]?.content).toMatch(/^Be careful\.\n\n# Tools\n/);
    expect(messages[0]?.content).toContain('## run_query\nRuns a read-only SQL query and returns the rows.\nArguments (JSON schema): {"type":"object"');
    expect(messages[2]?.content).toBe(
      'Looking.\n\n```tool_call\n{"name": "run_query", "arguments": {"sql":"SELECT 1"}}\n```\n\n```tool_call\n{"name": "run_query", "arguments": {}}\n```',
    );
    expect(messages[3]?.content).toBe('Result of run_query (call a):\n[[1]]\n\nResult of run_query (call b):\n[[2]]\n\nAnd?');
  });

  it('filters tool blocks out of a token stream however the fences are split', () => {
    const text = 'Before ``` code ``` and `x`.\n```tool_call\n{"name": "run_query", "arguments": {"sql": "SELECT 1"}}\n```\nAfter.```tool_call\n{}\n```';
    const expected = 'Before ``` code ``` and `x`.\n\nAfter.';
    for (let size = 1; size <= 8; size++) {
      let shown = '';
      const filter = createToolBlockFilter((piece) => (shown += piece));
      for (let start = 0; start < text.length; start += size) filter.push(text.slice(start, start + size));
      filter.flush();
      expect(shown, `pieces of ${size}`).toBe(expected);
    }
  });
});
