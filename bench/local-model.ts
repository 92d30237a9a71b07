/**
 * Benchmark of in-process local models: `npm run bench:local-model`. Loads the test model
 * (SmolLM2-135M-Instruct Q4_1, `DWB_TEST_MODEL` or the `.ci/run` cache) in its own process, as
 * the app does, and prints the load time, time to first token, prompt (prefill) and generation
 * speed of a free-text reply and of a grammar-constrained tool call, and the model process's
 * peak resident memory. Printed, not asserted: the figures depend on the machine and its load.
 *
 * `BENCH_THREADS` (default: the machine's available parallelism) and `BENCH_TOKENS` (default 64)
 * set the threads and the reply length.
 */
import { existsSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { join } from 'node:path';
import { toolNamed, toolSpecFor } from '../src-main/engine/tools/registry';
import { createLocalModelProvider } from '../src-main/llm/local/local-provider';
import { formatBytes } from '../src-main/llm/local/model-file';
import type { ModelRequest } from '../src-main/llm/types';

const modelPath = process.env['DWB_TEST_MODEL'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'dwb-models', 'SmolLM2-135M-Instruct.Q4_1.gguf');
const threads = Number(process.env['BENCH_THREADS'] ?? availableParallelism());
const maxTokens = Number(process.env['BENCH_TOKENS'] ?? 64);

async function timed(provider: ReturnType<typeof createLocalModelProvider>, request: ModelRequest, label: string, streamed: boolean): Promise<void> {
  const started = performance.now();
  let firstToken: number | null = null;
  const response = await provider.generate(request, streamed ? { onToken: () => (firstToken ??= performance.now()) } : {});
  const ended = performance.now();
  const usage = response.usage!;
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  const rate = (tokens: number, ms: number): string => (ms > 0 ? `${(tokens / (ms / 1000)).toFixed(1)} tokens/s` : 'n/a');
  console.log(`\n${label}`);
  console.log(`  prompt ${usage.promptTokens} tokens, reply ${usage.completionTokens} tokens (${response.finishReason}, constrained: ${response.constrained}) in ${seconds(ended - started)}`);
  if (firstToken !== null) {
    // The first token arrives once the prompt is read: prefill ≈ time to first token.
    console.log(`  time to first token ${seconds(firstToken - started)}; prompt ${rate(usage.promptTokens, firstToken - started)}; generation ${rate(usage.completionTokens - 1, ended - firstToken)}`);
  } else {
    console.log(`  overall ${rate(usage.promptTokens + usage.completionTokens, ended - started)} (a tool call is not streamed as text)`);
  }
}

async function main(): Promise<void> {
  if (!existsSync(modelPath)) {
    console.log(`NOT RUN: no model at ${modelPath} (set DWB_TEST_MODEL, or run .ci/run once to fetch SmolLM2-135M-Instruct)`);
    return;
  }
  console.log(`Local model benchmark: ${modelPath}, ${threads} threads, replies up to ${maxTokens} tokens`);
  const provider = createLocalModelProvider({ modelPath, threads, contextSize: 2048, temperature: 0, maxTokens });
  try {
    const loaded = await provider.load();
    console.log(`load: ${(loaded.loadMs / 1000).toFixed(2)} s (context ${loaded.contextSize}, ${loaded.gpu ? `GPU ${loaded.gpu}` : 'CPU'})`);
    await timed(provider, { messages: [{ role: 'user', content: 'Explain in a few sentences why a merchant would choose one trade node over another.' }] }, 'free text (streamed)', true);
    await timed(
      provider,
      {
        messages: [
          { role: 'system', content: 'You are a data analyst. The database has the tables trade_node(trade_node, local_value) and flow(source, dest, flow).' },
          { role: 'user', content: 'Which trade node sends the most value into baltic_sea?' },
        ],
        tools: (['plan', 'query', 'answer'] as const).map((name) => toolSpecFor(toolNamed(name), 'SQLite')),
      },
      'tool call under the grammar (plan | query | answer)',
      false,
    );
    console.log(`\npeak memory of the model process: ${formatBytes(provider.loaded()?.maxRssBytes ?? 0)}`);
  } finally {
    await provider.unload();
  }
}

void main();
