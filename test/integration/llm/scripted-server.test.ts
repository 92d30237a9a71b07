import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { messageText, toolResultsOf } from '../../support/scripted-openai';
import { useScriptedServers } from './llm-test-support';

/** Reads an SSE body into its `data:` payloads. */
async function ssePayloads(response: Response): Promise<string[]> {
  const text = await response.text();
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .split('\n\n')
    .filter((event) => event.length > 0)
    .map((event) => {
      expect(event.startsWith('data: ')).toBe(true);
      return event.slice('data: '.length);
    });
}

const post = (baseUrl: string, body: unknown) =>
  fetch(`${baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('scripted OpenAI server: the wire format', () => {
  const startServer = useScriptedServers();

  it('sends a chat.completion object for a plain request', async () => {
    const server = await startServer([{ toolCalls: [{ id: 'call_x', name: 'run_query', arguments: { sql: 'SELECT 1' } }], usage: { promptTokens: 3, completionTokens: 2 } }]);
    const response = await post(server.baseUrl, { model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      model: 'm',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'run_query', arguments: '{"sql":"SELECT 1"}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  });

  it('streams chat.completion.chunk events: role, content, tool-call header and argument pieces, finish, usage, [DONE]', async () => {
    const server = await startServer([{ contentChunks: ['Hi', ' there'], toolCalls: [{ id: 'c1', name: 'f', arguments: '{"a":12345}' }], argumentChunkSize: 4, usage: { promptTokens: 7, completionTokens: 3 } }]);
    const response = await post(server.baseUrl, { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const payloads = await ssePayloads(response);
    expect(payloads.pop()).toBe('[DONE]');
    const chunks = payloads.map((payload) => JSON.parse(payload) as { object: string; choices: { delta: unknown; finish_reason: string | null }[]; usage: unknown });
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '', refusal: null },
      { content: 'Hi' },
      { content: ' there' },
      { tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] },
      { tool_calls: [{ index: 0, function: { arguments: ':123' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '45}' } }] },
      {},
      null,
    ]);
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason ?? null)).toEqual([null, null, null, null, null, null, null, 'tool_calls', null]);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
  });

  it('sends no usage chunk when usage was not asked for', async () => {
    const server = await startServer([{ content: 'x' }]);
    const payloads = await ssePayloads(await post(server.baseUrl, { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }));
    expect(payloads.some((payload) => payload.includes('usage'))).toBe(false);
  });

  it('is read correctly by the SDK’s own stream accumulator', async () => {
    const server = await startServer([{ content: 'Let me check.', toolCalls: [{ id: 'c1', name: 'run_query', arguments: { sql: 'SELECT 42' } }, { id: 'c2', name: 'run_query', arguments: { sql: 'SELECT 7' } }] }]);
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'none', maxRetries: 0 });
    const final = await client.chat.completions
      .stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('Let me check.');
    expect(final.choices[0]?.message.tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'run_query', arguments: '{"sql":"SELECT 42"}' } },
      { id: 'c2', type: 'function', function: { name: 'run_query', arguments: '{"sql":"SELECT 7"}' } },
    ]);
    expect(final.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('lists models', async () => {
    const server = await startServer([], { models: ['a', 'b'] });
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'none', maxRetries: 0 });
    const page = await client.models.list();
    expect(page.data.map((model) => model.id)).toEqual(['a', 'b']);
  });
});

describe('scripted OpenAI server: scripts and assertions', () => {
  const startServer = useScriptedServers();

  it('records every request and builds turns from them', async () => {
    const server = await startServer([(request) => ({ content: `You said ${messageText(request.chat.messages.at(-1) ?? { role: 'user' })}` })]);
    const response = await post(server.baseUrl, { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'parts' }] }] });
    expect(await response.json()).toMatchObject({ choices: [{ message: { content: 'You said parts' } }] });
    expect(server.requests[0]).toMatchObject({ index: 0, method: 'POST', path: '/v1/chat/completions', turnIndex: 0, status: 200, clientDisconnected: false });
    server.verify();
  });

  it('answers a failed expectation with a 400 and keeps the failure for verify()', async () => {
    const server = await startServer([{ expectToolResultContains: 'north', content: 'never' }, { content: 'unused' }]);
    const response = await post(server.baseUrl, {
      model: 'm',
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c', content: 'south only' },
      ],
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toBe('Scripted expectation failed at turn 0: expected the tool results to contain "north"; they are "south only"');
    expect(toolResultsOf(server.chatRequests()[0]!).map(messageText)).toEqual(['south only']);
    expect(() => server.verify()).toThrow(/turn 0: expected the tool results[\s\S]*1 of 2 turns were never used/);
  });

  it('reports requests beyond the script', async () => {
    const server = await startServer([]);
    const response = await post(server.baseUrl, { model: 'm', messages: [{ role: 'user', content: 'q' }] });
    expect(response.status).toBe(400);
    expect(() => server.verify()).toThrow('request 0 found no turn left (the script has 0)');
  });

  it('fails with a custom body and headers', async () => {
    const server = await startServer([{ fail: { status: 429, body: 'too many', headers: { 'retry-after': '3' } } }]);
    const response = await post(server.baseUrl, { model: 'm', messages: [{ role: 'user', content: 'q' }] });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(await response.text()).toBe('too many');
  });

  it('closes with streams still stalled', async () => {
    const server = await startServer([{ content: 'x', stallAfterChunks: 1 }]);
    const response = await post(server.baseUrl, { model: 'm', messages: [{ role: 'user', content: 'q' }], stream: true });
    expect(response.status).toBe(200);
    const reading = response.text().catch((error: unknown) => `cut: ${String(error)}`);
    await server.close();
    expect(await reading).toMatch(/^cut: /);
  });
});
