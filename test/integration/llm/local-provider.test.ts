import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { toolNamed, toolSpecFor } from '../../../src-main/engine/tools/registry';
import { createLocalModelProvider, type LocalModelProvider } from '../../../src-main/llm/local/local-provider';
import { readGgufModelInfo } from '../../../src-main/llm/local/model-file';
import type { ModelRequest } from '../../../src-main/llm/types';
import { describeOrNotRun } from '../../servers/not-run';
import { useTempDirs } from '../../support/temp';
import { testModel, testModelThreads } from '../../support/test-model';

const model = testModel();
const tools = [toolSpecFor(toolNamed('query'), 'SQLite'), toolSpecFor(toolNamed('answer'), 'SQLite')];
const request: ModelRequest = {
  messages: [
    { role: 'system', content: 'You are a data analyst. The database has the table sales(region TEXT, revenue REAL).' },
    { role: 'user', content: 'Which region has the highest revenue? Query the database.' },
  ],
  tools,
};

describeOrNotRun('local model provider (SmolLM2-135M in a child process)', model.unavailable, () => {
  const tempDir = useTempDirs();
  const providers: LocalModelProvider[] = [];
  const provider = (maxTokens = 48): LocalModelProvider => {
    const created = createLocalModelProvider({ modelPath: model.path!, threads: testModelThreads, contextSize: 1024, gpu: 'off', temperature: 0, maxTokens });
    providers.push(created);
    return created;
  };
  afterAll(async () => {
    for (const created of providers) await created.unload();
  });

  it('reads the GGUF header: architecture, quantization, context length, chat template', async () => {
    const info = await readGgufModelInfo(model.path!);
    expect(info).toMatchObject({ architecture: 'llama', quantization: 'MOSTLY_Q4_1', contextLength: 8192, layers: 30 });
    expect(info.chatTemplate).toContain('im_start');
    expect(info.sizeBytes).toBeGreaterThan(50_000_000);
  });

  it('loads with progress and answers with one tool call that parses against the tool schema', async () => {
    // Room for either tool: the grammar lays the JSON out indented, and an `answer` call takes
    // ≈ 60 tokens (48 fitted only the shorter `query` call, which SmolLM2 picks on some CPUs and
    // not others: llama.cpp's kernels differ in the last bits). Tight budgets are tested below.
    const local = provider(128);
    const progress: number[] = [];
    const loaded = await local.load({ onProgress: (value) => progress.push(value) });
    expect(loaded.contextSize).toBe(1024);
    expect(progress.at(-1)).toBe(1);
    const response = await local.generate(request);
    expect(response.constrained).toBe('grammar');
    expect(response.usage!.promptTokens).toBeGreaterThan(100);
    expect(response.usage!.completionTokens).toBeGreaterThan(0);
    if (response.finishReason === 'length') throw new Error(`cut off: ${response.content}`);
    expect(response.toolCalls).toHaveLength(1);
    const [call] = response.toolCalls;
    expect(['query', 'answer']).toContain(call!.name);
    expect(toolNamed(call!.name as 'query' | 'answer').arguments.safeParse(JSON.parse(call!.arguments)).success).toBe(true);

    // A small budget is never what ends the call, decoded once: the grammar's limits fit the plan's
    // one step into it. SmolLM2 completes the plan on some CPUs and falls into repeating itself on
    // others (llama.cpp's kernels differ in the last bits), which the provider cuts, with no call.
    const tight = await local.generate({ ...request, tools: [toolSpecFor(toolNamed('plan'), 'SQLite')], maxTokens: 64 });
    expect(['tool_calls', 'repetition'], tight.content).toContain(tight.finishReason);
    if (tight.finishReason === 'repetition') expect(tight.toolCalls).toEqual([]);
    else expect(toolNamed('plan').arguments.safeParse(JSON.parse(tight.toolCalls[0]!.arguments)).success).toBe(true);

    // Free text stops at a stop sequence (text mode sends "Observation:"); here a space, which any sentence has.
    const stopped = await local.generate({ messages: [{ role: 'user', content: 'Describe the sea in one sentence.' }], stop: [' '] });
    expect(stopped.finishReason, stopped.content).toBe('stop');
    expect(stopped.content.trim()).not.toContain(' ');
    expect(stopped.usage!.completionTokens).toBeLessThan(8);
  }, 300_000);

  it('a cancelled generation returns within a second, and a killed model process gives a clear error and loads again', async () => {
    const local = provider(400);
    await local.load();
    const controller = new AbortController();
    const tokens: string[] = [];
    const pending = local.generate({ messages: [{ role: 'user', content: 'Write a long story about a ship.' }], maxTokens: 400 }, { signal: controller.signal, onToken: (text) => tokens.push(text) });
    await expect.poll(() => tokens.length, { timeout: 120_000, interval: 50 }).toBeGreaterThan(0);
    const aborted = performance.now();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    expect(performance.now() - aborted).toBeLessThan(1000);

    // A crash (here: the process killed, as the OOM killer would) mid-answer.
    await local.load();
    const pid = local.processId();
    expect(pid).toBeTypeOf('number');
    const streaming: string[] = [];
    const crashing = local.generate({ messages: [{ role: 'user', content: 'Count from one to one hundred.' }], maxTokens: 400 }, { onToken: (text) => streaming.push(text) });
    await expect.poll(() => streaming.length, { timeout: 120_000, interval: 50 }).toBeGreaterThan(0);
    process.kill(pid!, 'SIGKILL');
    await expect(crashing).rejects.toMatchObject({ code: 'internal', message: expect.stringMatching(/model process stopped unexpectedly \(signal SIGKILL\)/) });
    const again = await local.load();
    expect(local.processId()).not.toBe(pid);
    expect(again.contextSize).toBe(1024);
  }, 300_000);

  it('refuses, before starting anything, a file that is not GGUF and a load that needs more memory than is free', async () => {
    const dir = tempDir();
    const notGguf = join(dir, 'model.gguf');
    writeFileSync(notGguf, 'PK\u0003\u0004 this is a zip, not a model');
    const refusedFile = createLocalModelProvider({ modelPath: notGguf });
    await expect(refusedFile.load()).rejects.toMatchObject({ code: 'unsupported', message: expect.stringContaining('is not a GGUF model file') });
    expect(refusedFile.processId()).toBeUndefined();

    const starved = createLocalModelProvider({ modelPath: model.path!, contextSize: 2048 }, { freeMemory: () => 64 * 1024 * 1024 });
    await expect(starved.generate(request)).rejects.toMatchObject({ code: 'unsupported', message: expect.stringMatching(/Not enough free memory to load .* and 64\.0 MiB is free/) });
    expect(starved.processId()).toBeUndefined();
  });
});
