import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { testProviderConnection } from '../../../src-main/llm/test-connection';
import { settingsFor, useScriptedServers } from './llm-test-support';

describe('testProviderConnection', () => {
  const startServer = useScriptedServers();

  it('lists models, times a tiny completion and detects native tool calling', async () => {
    const server = await startServer(
      [
        { content: 'OK', delayMs: 50, expectTools: [] },
        {
          toolCalls: [{ name: 'report_status', arguments: { status: 'ok' } }],
          expectTools: ['report_status'],
          expect: (request) => (request.chat.tool_choice === 'required' ? undefined : `tool_choice was ${JSON.stringify(request.chat.tool_choice)}`),
        },
        {
          content: '{"status": "ok"}',
          expect: (request) => (request.chat.response_format?.type === 'json_schema' ? undefined : `response_format was ${JSON.stringify(request.chat.response_format)}`),
        },
      ],
      { models: ['scripted-model', 'other-model'] },
    );
    const report = await testProviderConnection(settingsFor(server));
    expect(report).toMatchObject({ ok: true, models: ['scripted-model', 'other-model'], supportsTools: true, structuredOutput: { toolChoice: true, jsonSchema: true } });
    expect(report.latencyMs).toBeGreaterThanOrEqual(45);
    expect(report.message).toBe(
      `Connected to ${server.baseUrl}: scripted-model answered in ${report.latencyMs} ms. The server lists 2 models. Native tool calling works. Structured output: required tool calls and JSON-schema replies.`,
    );
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v1/models',
      'POST /v1/chat/completions',
      'POST /v1/chat/completions',
      'POST /v1/chat/completions',
    ]);
    server.verify();
  });

  it('reports no tool support when the server rejects tools', async () => {
    const server = await startServer([{ content: 'OK' }, { content: '{"status": "ok"}' }], { rejectTools: true });
    const report = await testProviderConnection(settingsFor(server, { toolMode: 'auto' }));
    expect(report).toMatchObject({ ok: true, supportsTools: false });
    expect(report.message).toContain('No native tool calling: tools will be described in the prompt (text mode).');
    // `required` first, then the default tool choice, both refused; then the JSON-schema probe (no tools).
    expect(server.chatRequests().map((request) => request.chat.tool_choice ?? 'default')).toEqual(['default', 'required', 'default', 'default']);
    expect(server.chatRequests().map((request) => request.status)).toEqual([200, 400, 400, 200]);
    expect(report.structuredOutput).toEqual({ toolChoice: false, jsonSchema: true });
  });

  it('reports no tool support when the model answers without a tool call', async () => {
    const server = await startServer([{ content: 'OK' }, { content: 'I would rather not.' }]);
    const report = await testProviderConnection(settingsFor(server, { toolMode: 'tools' }));
    expect(report.supportsTools).toBe(false);
    expect(report.message).toContain('Native tool calling does not work here: choose tool mode "auto" or "text".');
  });

  it('works with servers that do not list models, and warns about a model the server does not list', async () => {
    const unlisted = await startServer([{ content: 'OK' }, { toolCalls: [{ name: 'report_status', arguments: {} }] }], { models: null });
    const report = await testProviderConnection(settingsFor(unlisted));
    expect(report.ok).toBe(true);
    expect(report.models).toBeUndefined();

    const other = await startServer([{ content: 'OK' }, { toolCalls: [{ name: 'report_status', arguments: {} }] }], { models: ['llama3.1:8b'] });
    expect((await testProviderConnection(settingsFor(other))).message).toContain('"scripted-model" is not among them (llama3.1:8b).');
  });

  it('says "unknown" when the tool probe cannot finish', async () => {
    const server = await startServer([{ content: 'OK' }, { delayMs: 2_000, content: 'late' }]);
    const report = await testProviderConnection(settingsFor(server, { requestTimeoutMs: 400 }));
    expect(report).toMatchObject({ ok: true, supportsTools: 'unknown' });
    expect(report.message).toContain('Tool calling could not be checked.');
  });

  it('fails clearly and quickly on a closed port', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 1}/v1`;

    const started = performance.now();
    const report = await testProviderConnection({ baseUrl, model: 'm' });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(report).toEqual({ ok: false, latencyMs: 0, supportsTools: 'unknown', message: `Could not reach the model server at ${baseUrl}: connection refused (is the server running?).` });
  });

  it('fails with the server’s reason when the model is missing or the key is wrong', async () => {
    const missing = await startServer([{ fail: { status: 404, message: "model 'nope' not found" } }]);
    const report = await testProviderConnection(settingsFor(missing, { model: 'nope' }));
    expect(report.ok).toBe(false);
    expect(report.models).toEqual(['scripted-model']);
    expect(report.message).toMatch(/^Model "nope" not found at http:\/\/127\.0\.0\.1:\d+\/v1 \(HTTP 404: model 'nope' not found\)/);

    const locked = await startServer([], { requireApiKey: 'sk-right' });
    const denied = await testProviderConnection(settingsFor(locked));
    expect(denied.ok).toBe(false);
    expect(denied.message).toContain('rejected the API key (HTTP 401');
  });

  it('reports invalid settings without contacting anything', async () => {
    const report = await testProviderConnection({ baseUrl: 'not a url', model: 'm' });
    expect(report.ok).toBe(false);
    expect(report.message).toMatch(/^Invalid model settings: baseUrl: /);
  });
});
