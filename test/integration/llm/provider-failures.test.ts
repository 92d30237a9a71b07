import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { clampRetryAfter } from '../../../src-main/llm/openai-client';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import type { ModelRequest } from '../../../src-main/llm/types';
import { failureOf, settingsFor, useScriptedServers } from './llm-test-support';

const request: ModelRequest = { messages: [{ role: 'user', content: 'Which region earns more?' }] };

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('retries (the SDK’s own, through the provider)', () => {
  const startServer = useScriptedServers();

  it('retries a 500 and succeeds on the second request', async () => {
    const server = await startServer([{ fail: { status: 500, message: 'model crashed' } }, { content: 'Recovered.' }]);
    const response = await createOpenAiProvider(settingsFor(server)).generate(request);
    expect(response.content).toBe('Recovered.');
    expect(server.chatRequests().map((received) => received.status)).toEqual([500, 200]);
    // The latency covers the whole call, backoff included.
    expect(response.latencyMs).toBeGreaterThanOrEqual(300);
    server.verify();
  });

  it('retries a 429 after the server’s retry-after', async () => {
    const server = await startServer([{ fail: { status: 429, message: 'slow down', headers: { 'retry-after': '1' } } }, { content: 'ok' }]);
    const started = performance.now();
    const response = await createOpenAiProvider(settingsFor(server)).generate(request);
    expect(response.content).toBe('ok');
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('retries 408, 409 and 503 until the retries run out, then names the status and attempts', async () => {
    const server = await startServer([
      { fail: { status: 408, headers: { 'retry-after-ms': '10' } } },
      { fail: { status: 409, headers: { 'retry-after-ms': '10' } } },
      { fail: { status: 503, message: 'model is loading', headers: { 'retry-after-ms': '10' } } },
    ]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server, { maxRetries: 2 })).generate(request));
    expect(error.code).toBe('connection-failed');
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(`The model server at ${server.baseUrl} answered HTTP 503 after 3 attempts: model is loading`);
    expect(server.chatRequests()).toHaveLength(3);
  });

  it('does not retry a 400 and passes the server’s message on', async () => {
    const server = await startServer([{ fail: { status: 400, message: "'messages' is too long for the context window" } }, { content: 'never sent' }]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server)).generate(request));
    expect(error.code).toBe('invalid-request');
    expect(error.message).toBe(`The model server at ${server.baseUrl} rejected the request (HTTP 400): 'messages' is too long for the context window`);
    expect(server.chatRequests()).toHaveLength(1);
    expect(server.remainingTurns()).toBe(1);
  });

  it('retries a connection dropped before the answer', async () => {
    const server = await startServer([{ dropConnection: 'before-response' }, { content: 'second try' }]);
    const response = await createOpenAiProvider(settingsFor(server)).generate(request);
    expect(response.content).toBe('second try');
    expect(server.chatRequests()).toHaveLength(2);
  });
});

describe('failures map to WorkbenchErrors', () => {
  const startServer = useScriptedServers();

  it('times out a slow server with the configured seconds, within bounded time', async () => {
    const server = await startServer([{ delayMs: 5_000, content: 'too late' }]);
    const provider = createOpenAiProvider(settingsFor(server, { requestTimeoutMs: 400 }));
    const { error, elapsedMs } = await failureOf(provider.generate(request));
    expect(error.code).toBe('timeout');
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(`The model scripted-model at ${server.baseUrl} did not answer within 0.4 s (the request timeout).`);
    expect(elapsedMs).toBeGreaterThanOrEqual(390);
    expect(elapsedMs).toBeLessThan(1_500);
  });

  it('times out a stream that stalls after the headers (which the SDK’s own timeout does not cover)', async () => {
    const server = await startServer([{ content: 'a long answer that never ends', stallAfterChunks: 2 }]);
    const provider = createOpenAiProvider(settingsFor(server, { stream: true, requestTimeoutMs: 500 }));
    const tokens: string[] = [];
    const { error, elapsedMs } = await failureOf(provider.generate(request, { onToken: (text) => tokens.push(text) }));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('within 0.5 s');
    expect(tokens).toEqual(['a ']);
    expect(elapsedMs).toBeLessThan(1_500);
  });

  it('times out a non-streamed body that stalls after the headers', async () => {
    const server = await startServer([{ content: 'never finished', stallAfterChunks: 0 }]);
    const { error, elapsedMs } = await failureOf(createOpenAiProvider(settingsFor(server, { requestTimeoutMs: 300 })).generate(request));
    expect(error.code).toBe('timeout');
    expect(elapsedMs).toBeLessThan(1_500);
  });

  it('bounds retries by the timeout too, even when the server asks to wait longer', async () => {
    const server = await startServer([{ fail: { status: 429, headers: { 'retry-after': '30' } } }, { content: 'late' }]);
    const pendingTimers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const timersBefore = pendingTimers();
    const { error, elapsedMs } = await failureOf(createOpenAiProvider(settingsFor(server, { requestTimeoutMs: 500 })).generate(request));
    expect(error.code).toBe('timeout');
    expect(elapsedMs).toBeLessThan(1_500);
    // The SDK woke at the deadline and gave up: no retry, and no 30-second timer left behind.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.chatRequests()).toHaveLength(1);
    expect(pendingTimers()).toBeLessThanOrEqual(timersBefore);
  });

  it('cuts a server-requested retry wait to the time left, and leaves shorter waits alone', () => {
    const limited = (headers: Record<string, string>, remainingMs: number) => clampRetryAfter(new Response('busy', { status: 429, headers }), remainingMs).headers;
    expect(limited({ 'retry-after': '30' }, 400).get('retry-after-ms')).toBe('500');
    expect(limited({ 'retry-after': '30' }, 400).get('retry-after')).toBeNull();
    expect(limited({ 'retry-after-ms': '90000' }, -5).get('retry-after-ms')).toBe('100');
    expect(limited({ 'retry-after': new Date(Date.now() + 60_000).toUTCString() }, 1_000).get('retry-after-ms')).toBe('1100');
    expect(limited({ 'retry-after': '1' }, 5_000).get('retry-after')).toBe('1');
    expect(limited({}, 5).get('retry-after-ms')).toBeNull();
  });

  it('cancels mid-stream through the AbortSignal, and the server sees the client leave', async () => {
    const server = await startServer([{ contentChunks: ['one ', 'two ', 'three ', 'four ', 'five '], chunkDelayMs: 150 }]);
    const provider = createOpenAiProvider(settingsFor(server, { stream: true }));
    const controller = new AbortController();
    const tokens: string[] = [];
    const { error, elapsedMs } = await failureOf(
      provider.generate(request, {
        signal: controller.signal,
        onToken: (text) => {
          tokens.push(text);
          if (tokens.length === 2) controller.abort();
        },
      }),
    );
    expect(error.code).toBe('cancelled');
    expect(error.retryable).toBe(false);
    expect(tokens).toEqual(['one ', 'two ']);
    expect(elapsedMs).toBeLessThan(1_000);
    await expect.poll(() => server.requests[0]?.clientDisconnected).toBe(true);
  });

  it('cancels at once when the signal is already aborted, without a request', async () => {
    const server = await startServer([{ content: 'unused' }]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server)).generate(request, { signal: AbortSignal.abort() }));
    expect(error.code).toBe('cancelled');
    expect(server.requests).toHaveLength(0);
  });

  it('reports a refused connection quickly, naming the base URL', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const provider = createOpenAiProvider(settingsFor({ baseUrl }, { maxRetries: 1, requestTimeoutMs: 30_000 }));
    const { error, elapsedMs } = await failureOf(provider.generate(request));
    expect(error.code).toBe('connection-failed');
    expect(error.message).toBe(`Could not reach the model server at ${baseUrl} after 2 attempts: connection refused (is the server running?).`);
    expect(elapsedMs).toBeLessThan(3_000);
  });

  it('reports an unknown host as connection-failed', async () => {
    const baseUrl = 'http://model-server.invalid:11434/v1';
    const { error } = await failureOf(createOpenAiProvider(settingsFor({ baseUrl }, { maxRetries: 0 })).generate(request));
    expect(error.code).toBe('connection-failed');
    expect(error.message).toContain(baseUrl);
    expect(error.message).toMatch(/host (not found|name could not be resolved)/);
  });

  it('explains a 401 as a key problem and does not retry it', async () => {
    const server = await startServer([{ content: 'unused' }], { requireApiKey: 'sk-right' });
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server, { apiKey: 'sk-wrong' })).generate(request));
    expect(error.code).toBe('connection-failed');
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      `The model server at ${server.baseUrl} rejected the API key (HTTP 401: Incorrect API key provided.). Check the API key in the model settings.`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('explains a 403 as refused access', async () => {
    const server = await startServer([{ fail: { status: 403, message: 'project has no access to this model' } }]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server)).generate(request));
    expect(error.message).toContain('refused access to this model or key (HTTP 403: project has no access to this model)');
  });

  it('says which model was not found where on a 404', async () => {
    const server = await startServer([{ fail: { status: 404, message: "model 'llama9' not found, try pulling it first" } }]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server, { model: 'llama9' })).generate(request));
    expect(error.code).toBe('not-found');
    expect(error.message).toMatch(new RegExp(`^Model "llama9" not found at ${server.baseUrl.replace(/[.]/g, '\\.')} \\(HTTP 404: model 'llama9' not found`));
  });

  it('reports a garbage JSON body clearly', async () => {
    const server = await startServer([{ raw: { body: '{"id": "chatcmpl-1", "choices": [{"mess' } }]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server)).generate(request));
    expect(error.code).toBe('unsupported');
    expect(error.message).toMatch(/^The model server at http:\/\/127\.0\.0\.1:\d+\/v1 sent an answer that is not an OpenAI-compatible chat completion: /);
  });

  it('reports a well-formed JSON body that is not a completion, naming the problem', async () => {
    const server = await startServer([{ raw: { body: '{"object": "chat.completion", "choices": []}' } }]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server)).generate(request));
    expect(error.code).toBe('unsupported');
    expect(error.message).toContain('The answer is malformed (choices: no choices)');
  });

  it('reports an HTML page instead of JSON', async () => {
    const server = await startServer([{ raw: { contentType: 'text/html', body: '<html><body>Welcome to nginx!</body></html>' } }]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server)).generate(request));
    expect(error.code).toBe('unsupported');
    expect(error.message).toContain('The answer is text, not JSON: <html><body>Welcome to nginx!</body></html>');
  });

  it('reports a garbage event inside a stream', async () => {
    const server = await startServer([{ raw: { contentType: 'text/event-stream', body: 'data: {"choices": [{"delta": {"content": "hi"}}]}\n\ndata: {not json\n\n' } }]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server, { stream: true })).generate(request));
    expect(error.code).toBe('unsupported');
    expect(error.message).toContain('not an OpenAI-compatible chat completion');
  });

  it('reports an error event inside a stream with the server’s message', async () => {
    const server = await startServer([{ raw: { contentType: 'text/event-stream', body: 'data: {"error": {"message": "out of memory"}}\n\n' } }]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server, { stream: true })).generate(request));
    expect(error.code).toBe('connection-failed');
    expect(error.message).toBe(`The model server at ${server.baseUrl} reported an error mid-answer: out of memory`);
  });

  it('reports a stream cut off mid-answer', async () => {
    const server = await startServer([{ contentChunks: ['a ', 'b ', 'c ', 'd '], dropConnection: 'mid-response' }]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server, { stream: true })).generate(request));
    expect(error.code).toBe('connection-failed');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(`The model server at ${server.baseUrl}`);
  });

  it('reports a stream that ends without a finish reason', async () => {
    const chunk = JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'half' }, finish_reason: null }] });
    const server = await startServer([{ raw: { contentType: 'text/event-stream', body: `data: ${chunk}\n\n` } }]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server, { stream: true })).generate(request));
    expect(error.code).toBe('connection-failed');
    expect(error.message).toBe(`The model server at ${server.baseUrl} ended the stream before the answer was complete (no finish reason).`);
  });

  it('reports a non-streamed body cut off mid-answer', async () => {
    const server = await startServer([{ content: 'a full answer', dropConnection: 'mid-response' }]);
    const { error } = await failureOf(createOpenAiProvider(settingsFor(server, { maxRetries: 0 })).generate(request));
    expect(error.code).toBe('connection-failed');
    expect(error.message).toBe(`The model server at ${server.baseUrl} closed the connection mid-answer: connection closed by the server.`);
  });

  it('rejects invalid settings with the field named', () => {
    expect(() => createOpenAiProvider({ baseUrl: 'ftp://example', model: 'x' })).toThrow(/^Invalid model settings: baseUrl: /);
    expect(() => createOpenAiProvider({ baseUrl: 'http://127.0.0.1:1/v1', model: ' ' })).toThrow('Invalid model settings: model: model must name the model to use');
  });
});
