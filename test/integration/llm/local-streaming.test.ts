import { afterAll, expect, it } from 'vitest';
import { toolNamed, toolSpecFor } from '../../../src-main/engine/tools/registry';
import { createLocalModelProvider, type LocalModelProvider } from '../../../src-main/llm/local/local-provider';
import type { ModelRequest } from '../../../src-main/llm/types';
import { describeOrNotRun } from '../../servers/not-run';
import { testModel } from '../../support/test-model';

const model = testModel();
const request: ModelRequest = {
  messages: [
    { role: 'system', content: 'You are a data analyst. The database has the table sales(region TEXT, revenue REAL).' },
    { role: 'user', content: 'Which region has the highest revenue? Query the database.' },
  ],
  tools: [toolSpecFor(toolNamed('query'), 'SQLite')],
};

describeOrNotRun('local model: threads, streamed tool calls, the stall timeout (SmolLM2-135M)', model.unavailable, () => {
  const providers: LocalModelProvider[] = [];
  const provider = (settings: Partial<Parameters<typeof createLocalModelProvider>[0]> = {}): LocalModelProvider => {
    const created = createLocalModelProvider({ modelPath: model.path!, contextSize: 1024, gpu: 'off', temperature: 0, maxTokens: 96, ...settings });
    providers.push(created);
    return created;
  };
  afterAll(async () => {
    for (const created of providers) await created.unload();
  });

  it('threads auto measures each candidate count and keeps the fastest; an explicit count is used as given', async () => {
    const auto = await provider().load();
    expect(auto.threadChoice.auto).toBe(true);
    const rates = Object.entries(auto.threadChoice.measured).map(([count, rate]) => ({ count: Number(count), rate }));
    expect(rates.map((entry) => entry.count)).toContain(1);
    for (const entry of rates) expect(entry.rate).toBeGreaterThan(0);
    const best = Math.max(...rates.map((entry) => entry.rate));
    expect(auto.threadChoice.measured[auto.threads]).toBe(best);

    const explicit = await provider({ threads: 1 }).load();
    expect(explicit.threadChoice).toEqual({ count: 1, auto: false, measured: {} });
    expect(explicit.threads).toBe(1);
  }, 300_000);

  it('a tool call streams its tokens as they are decoded: the text arrives before the call ends and is the call', async () => {
    const local = provider({ threads: 1 });
    const pieces: string[] = [];
    let settled = false;
    const pending = local.generate(request, { onToken: (text) => pieces.push(text) }).finally(() => (settled = true));
    // The first piece is seen while the call still runs (the run bar and the CLI show it forming).
    await expect.poll(() => pieces.length, { timeout: 240_000, interval: 20 }).toBeGreaterThan(0);
    const seenBeforeEnd = !settled;
    const response = await pending;
    expect(seenBeforeEnd).toBe(true);
    // SmolLM2 at temperature 0 writes the query on some CPUs and, on others (llama.cpp's kernels
    // differ in the last bits), falls into repeating itself, which the provider cuts. Either way
    // what streamed is what was decoded; a cut reply carries no call.
    if (response.finishReason === 'repetition') {
      expect(pieces.join('')).toBe(response.content);
      expect(response.toolCalls).toEqual([]);
      return;
    }
    expect(response.finishReason, response.content).toBe('tool_calls');
    const streamed = JSON.parse(pieces.join('')) as { tool: string; arguments: { query: string } };
    expect(streamed.tool).toBe('query');
    expect(JSON.parse(response.toolCalls[0]!.arguments)).toEqual({ query: streamed.arguments.query });
  }, 300_000);

  it('a call whose next token does not come within the stall timeout stops with a timeout that says so', async () => {
    const local = provider({ threads: 1, stallTimeoutMs: 1, maxTokens: 400 });
    await local.load();
    const pieces: string[] = [];
    // The first token is allowed the prompt's reading time; after it, no model writes the next within a millisecond.
    await expect(local.generate({ messages: [{ role: 'user', content: 'Write a long story about a ship.' }] }, { onToken: (text) => pieces.push(text) })).rejects.toMatchObject({
      code: 'timeout',
      message: expect.stringMatching(/produced no token for .* \(the stall timeout\)/),
    });
    expect(pieces.length).toBeGreaterThan(0);
  }, 300_000);
});
