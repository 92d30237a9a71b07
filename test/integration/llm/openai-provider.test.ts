import { describe, expect, it } from 'vitest';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import type { ChatMessage } from '../../../src-main/llm/types';
import { messageText } from '../../support/scripted-openai';
import { runQueryTool, settingsFor, useScriptedServers } from './llm-test-support';

const question: ChatMessage[] = [
  { role: 'system', content: 'You are a careful analyst.' },
  { role: 'user', content: 'Which region earns more?' },
];

describe('OpenAI provider against the scripted server', () => {
  const startServer = useScriptedServers();

  it('answers a plain JSON completion with usage, latency and the server model', async () => {
    const server = await startServer([{ content: 'North earns more.', usage: { promptTokens: 21, completionTokens: 4 }, model: 'scripted-model-v2' }]);
    const provider = createOpenAiProvider(settingsFor(server, { temperature: 0.1, maxTokens: 300 }));

    const response = await provider.generate({ messages: question });

    expect(response).toMatchObject({
      content: 'North earns more.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 21, completionTokens: 4, totalTokens: 25 },
      model: 'scripted-model-v2',
    });
    expect(response.latencyMs).toBeGreaterThanOrEqual(0);
    expect(response.latencyMs).toBeLessThan(5_000);
    const sent = server.chatRequests()[0]?.chat;
    expect(sent).toMatchObject({ model: 'scripted-model', temperature: 0.1, max_tokens: 300, messages: [{ role: 'system' }, { role: 'user', content: 'Which region earns more?' }] });
    expect(sent?.stream).toBeFalsy();
    expect(sent?.tools).toBeUndefined();
    server.verify();
  });

  it('measures latency per call', async () => {
    const server = await startServer([{ content: 'slow', delayMs: 250 }, { content: 'fast' }]);
    const provider = createOpenAiProvider(settingsFor(server));
    const slow = await provider.generate({ messages: question });
    const fast = await provider.generate({ messages: question });
    expect(slow.latencyMs).toBeGreaterThanOrEqual(240);
    expect(fast.latencyMs).toBeLessThan(slow.latencyMs);
  });

  it('sends tools and the tool-call history in the OpenAI wire format and reads tool calls back', async () => {
    const server = await startServer([
      { toolCalls: [{ id: 'call_a', name: 'run_query', arguments: { sql: 'SELECT name FROM region' } }], expectTools: ['run_query'] },
      { content: 'North and south.', expectToolResultContains: ['north', 'south'] },
    ]);
    const provider = createOpenAiProvider(settingsFor(server));

    const first = await provider.generate({ messages: question, tools: [runQueryTool] });
    expect(first.toolCalls).toEqual([{ id: 'call_a', name: 'run_query', arguments: '{"sql":"SELECT name FROM region"}' }]);
    expect(first.finishReason).toBe('tool_calls');
    expect(first.content).toBe('');

    const history: ChatMessage[] = [
      ...question,
      { role: 'assistant', content: first.content, toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'call_a', content: JSON.stringify([{ name: 'north' }, { name: 'south' }]) },
    ];
    const second = await provider.generate({ messages: history, tools: [runQueryTool] });
    expect(second.content).toBe('North and south.');

    const wire = server.chatRequests();
    expect(wire[0]?.chat.tools).toEqual([{ type: 'function', function: runQueryTool }]);
    expect(wire[1]?.chat.messages.slice(2)).toEqual([
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'run_query', arguments: '{"sql":"SELECT name FROM region"}' } }] },
      { role: 'tool', tool_call_id: 'call_a', content: '[{"name":"north"},{"name":"south"}]' },
    ]);
    server.verify();
  });

  it('streams content tokens through onToken, in order, and asks for usage', async () => {
    const pieces = ['North', ' earns', ' 30.5', ', south', ' 1007.25', '.'];
    const server = await startServer([{ contentChunks: pieces, usage: { promptTokens: 9, completionTokens: 6 }, chunkDelayMs: 5 }]);
    const provider = createOpenAiProvider(settingsFor(server, { stream: true }));
    const tokens: string[] = [];

    const response = await provider.generate({ messages: question }, { onToken: (text) => tokens.push(text) });

    expect(tokens).toEqual(pieces);
    expect(response.content).toBe(pieces.join(''));
    expect(response.usage).toEqual({ promptTokens: 9, completionTokens: 6, totalTokens: 15 });
    expect(response.finishReason).toBe('stop');
    expect(server.chatRequests()[0]?.chat).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('assembles streamed tool calls whose arguments arrive in many pieces', async () => {
    const hardArguments = { sql: 'SELECT r.name, sum(s.revenue) AS "total €" FROM store s JOIN region r ON r.id = s.region_id GROUP BY 1', note: 'line\nbreak "quoted" \\ back' };
    const server = await startServer([
      {
        content: 'Let me look.',
        toolCalls: [
          { id: 'call_1', name: 'run_query', arguments: hardArguments },
          { id: 'call_2', name: 'run_query', arguments: '{"sql": "SELECT 1"}' },
        ],
        argumentChunkSize: 3,
      },
    ]);
    const provider = createOpenAiProvider(settingsFor(server, { stream: true }));
    const tokens: string[] = [];

    const response = await provider.generate({ messages: question, tools: [runQueryTool] }, { onToken: (text) => tokens.push(text) });

    expect(response.toolCalls).toEqual([
      { id: 'call_1', name: 'run_query', arguments: JSON.stringify(hardArguments) },
      { id: 'call_2', name: 'run_query', arguments: '{"sql": "SELECT 1"}' },
    ]);
    expect(JSON.parse(response.toolCalls[0]?.arguments ?? '')).toEqual(hardArguments);
    expect(response.finishReason).toBe('tool_calls');
    expect(tokens.join('')).toBe('Let me look.');
  });

  it('tolerates servers that report no usage, streamed or not', async () => {
    const server = await startServer([{ content: 'a', usage: null }, { content: 'b', usage: null }]);
    const plain = createOpenAiProvider(settingsFor(server));
    const streamed = createOpenAiProvider(settingsFor(server, { stream: true }));
    expect((await plain.generate({ messages: question })).usage).toBeNull();
    const response = await streamed.generate({ messages: question });
    expect(response).toMatchObject({ content: 'b', usage: null, finishReason: 'stop' });
  });

  it('describes tools in the prompt and reads fenced calls back in text mode', async () => {
    const server = await startServer([
      {
        contentChunks: ['I will query.\n', '```tool', '_call\n{"name": "run_query", ', '"arguments": {"sql": "SELECT 1"}}\n`', '``\nThanks.'],
        expectTools: [],
        expect: (request) => {
          const system = request.chat.messages[0];
          if (!system || !messageText(system).includes('## run_query')) return 'the system prompt does not describe run_query';
        },
      },
      { content: 'One.', expectToolResultContains: 'Result of run_query (call call_1)' },
    ]);
    const provider = createOpenAiProvider(settingsFor(server, { stream: true, toolMode: 'text' }));
    const tokens: string[] = [];

    const first = await provider.generate({ messages: question, tools: [runQueryTool] }, { onToken: (text) => tokens.push(text) });
    expect(first.toolCalls).toEqual([{ id: 'call_1', name: 'run_query', arguments: '{"sql":"SELECT 1"}' }]);
    expect(first.content).toBe('I will query.\n\nThanks.');
    expect(first.finishReason).toBe('tool_calls');
    // The analyst sees the prose, never the JSON block.
    expect(tokens.join('')).not.toContain('run_query');
    expect(tokens.join('')).toContain('I will query.');

    const second = await provider.generate({
      messages: [...question, { role: 'assistant', content: first.content, toolCalls: first.toolCalls }, { role: 'tool', toolCallId: 'call_1', content: '[[1]]' }],
      tools: [runQueryTool],
    });
    expect(second.content).toBe('One.');
    const roles = server.chatRequests()[1]?.chat.messages.map((message) => message.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'user']);
    server.verify();
  });

  it('in auto mode falls back to text mode once the server refuses tools, and stays there', async () => {
    const server = await startServer(
      [
        { content: '```tool_call\n{"name": "run_query", "arguments": {"sql": "SELECT 2"}}\n```' },
        { content: 'Done.', expectTools: [] },
      ],
      { rejectTools: true },
    );
    const provider = createOpenAiProvider(settingsFor(server, { toolMode: 'auto' }));

    const first = await provider.generate({ messages: question, tools: [runQueryTool] });
    expect(first.toolCalls).toEqual([{ id: 'call_1', name: 'run_query', arguments: '{"sql":"SELECT 2"}' }]);
    const second = await provider.generate({ messages: question, tools: [runQueryTool] });
    expect(second.content).toBe('Done.');
    // One refused request with tools, then only text-mode requests.
    expect(server.chatRequests().map((request) => (request.chat.tools ? 'tools' : 'text'))).toEqual(['tools', 'text', 'text']);
    server.verify();
  });

  it('keeps plain text answers as they are when no tool call is recognised in text mode', async () => {
    const server = await startServer([{ content: 'Use ```sql\nSELECT 1\n``` to check.' }]);
    const provider = createOpenAiProvider(settingsFor(server, { toolMode: 'text' }));
    const response = await provider.generate({ messages: question, tools: [runQueryTool] });
    expect(response).toMatchObject({ content: 'Use ```sql\nSELECT 1\n``` to check.', toolCalls: [], finishReason: 'stop' });
  });

  it('sends the API key as a bearer token', async () => {
    const server = await startServer([{ content: 'ok' }], { requireApiKey: 'sk-test-123' });
    const provider = createOpenAiProvider(settingsFor(server, { apiKey: 'sk-test-123' }));
    expect((await provider.generate({ messages: question })).content).toBe('ok');
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-test-123');
    expect(provider.description).toBe(`scripted-model at ${server.baseUrl}`);
  });
});
