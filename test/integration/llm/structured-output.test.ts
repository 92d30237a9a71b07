import { describe, expect, it } from 'vitest';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { testProviderConnection } from '../../../src-main/llm/test-connection';
import type { ModelRequest } from '../../../src-main/llm/types';
import { failureOf, runQueryTool, settingsFor, useScriptedServers } from './llm-test-support';

const toolRequest: ModelRequest = { messages: [{ role: 'user', content: 'How many rows?' }], tools: [runQueryTool], output: { kind: 'tool-call', required: true } };
const verdictSchema = { type: 'object', properties: { decision: { type: 'string' } }, required: ['decision'], additionalProperties: false };
const jsonRequest: ModelRequest = { messages: [{ role: 'user', content: 'Decide.' }], output: { kind: 'json', name: 'verdict', schema: verdictSchema } };
const call = { toolCalls: [{ name: 'run_query', arguments: { sql: 'SELECT COUNT(*) FROM t' } }] };

describe('structured output over HTTP', () => {
  const startServer = useScriptedServers();

  it('asks for a required tool call and a JSON-schema reply where the server supports them, and says so', async () => {
    const server = await startServer([call, { content: '{"decision": "north"}' }, call]);
    const provider = createOpenAiProvider(settingsFor(server));
    const toolAnswer = await provider.generate(toolRequest);
    expect(toolAnswer).toMatchObject({ constrained: 'tool-choice', toolCalls: [{ name: 'run_query' }] });
    const jsonAnswer = await provider.generate(jsonRequest);
    expect(jsonAnswer).toMatchObject({ constrained: 'json-schema', content: '{"decision": "north"}' });
    // Without `output` nothing is asked for: today's requests are unchanged.
    const plain = await provider.generate({ messages: toolRequest.messages, tools: [runQueryTool] });
    expect(plain.constrained).toBe('none');

    const [first, second, third] = server.chatRequests().map((request) => request.chat);
    expect(first?.tool_choice).toBe('required');
    expect(second?.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'verdict', schema: verdictSchema, strict: true } });
    expect(third?.tool_choice).toBeUndefined();
    server.verify();
  });

  it('falls back once to an unconstrained request where the server refuses, and remembers it', async () => {
    const server = await startServer([call, call, { content: '{"decision": "north"}' }, { content: '{"decision": "south"}' }], { rejectToolChoice: true, rejectResponseFormat: true });
    const provider = createOpenAiProvider(settingsFor(server));
    expect((await provider.generate(toolRequest)).constrained).toBe('none');
    expect((await provider.generate(toolRequest)).constrained).toBe('none');
    expect((await provider.generate(jsonRequest)).constrained).toBe('none');
    expect((await provider.generate(jsonRequest)).constrained).toBe('none');
    // One refused attempt per kind, then never asked again.
    const sent = server.chatRequests().map((request) => ({ choice: request.chat.tool_choice ?? null, format: request.chat.response_format?.type ?? null, status: request.status }));
    expect(sent).toEqual([
      { choice: 'required', format: null, status: 400 },
      { choice: null, format: null, status: 200 },
      { choice: null, format: null, status: 200 },
      { choice: null, format: 'json_schema', status: 400 },
      { choice: null, format: null, status: 200 },
      { choice: null, format: null, status: 200 },
    ]);
    server.verify();
  });

  it('follows what Test connection found: refused kinds are never sent, supported ones are not silently dropped', async () => {
    const refusing = await startServer([{ content: 'OK' }, call, call], { rejectToolChoice: true, rejectResponseFormat: true });
    const report = await testProviderConnection(settingsFor(refusing));
    expect(report.structuredOutput).toEqual({ toolChoice: false, jsonSchema: false });
    expect(report.message).toContain('No structured output: unusable replies are repaired by asking again.');
    const remembered = createOpenAiProvider(settingsFor(refusing, { structuredOutput: report.structuredOutput! }));
    expect((await remembered.generate(toolRequest)).constrained).toBe('none');
    expect(refusing.chatRequests().at(-1)?.chat.tool_choice).toBeUndefined();
    expect(refusing.chatRequests().at(-1)?.status).toBe(200);

    // Known to support it: a refusal now is a real problem, reported, not papered over.
    const changed = await startServer([], { rejectToolChoice: true });
    const trusting = createOpenAiProvider(settingsFor(changed, { structuredOutput: { toolChoice: true, jsonSchema: true } }));
    const { error } = await failureOf(trusting.generate(toolRequest));
    expect(error.code).toBe('invalid-request');
    expect(error.message).toContain('tool_choice "required" is not supported');
  });
});
