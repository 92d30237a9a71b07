/**
 * Benchmark of the local-model path: `npm run bench:local-model`. The same grammar-constrained
 * tool call (plan | query | answer, the same chat history, grammar, token cap and temperature 0)
 * is decoded by the product (the model in its own process, as the app and the CLI run it) and by
 * node-llama-cpp used directly in this process, on the same GGUF file, first on the machine as it
 * is ("idle") and then under a CPU load the bench makes itself (two busy child processes it kills
 * at the end). The product runs with `threads: auto` and with an explicit count (every core,
 * the old default); node-llama-cpp directly with each candidate count. Printed per case: the
 * thread count, time to first token, generation tokens/s, and the load average beside it; then
 * the issue's goals, met or not:
 * - under the load, the product (auto) reaches ≥ 80 % of the idle best tokens/s;
 * - idle, the product (auto) is within 5 % of node-llama-cpp direct at its best count.
 * Printed, not asserted: the figures depend on the machine and its load.
 *
 * `DWB_TEST_MODEL` names the model (default: the SmolLM2-135M-Instruct Q4_1 in the cache);
 * `BENCH_TOKENS` (default 96) the token cap; `BENCH_CALLS` (default 3) the calls measured per case;
 * `BENCH_CALL_CAP_MS` (default 30000) cuts a crawling call, its rate read from the tokens so far.
 * Rates count the streamed pieces (about a token each), the same for the product and direct.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, homedir, loadavg } from 'node:os';
import { join } from 'node:path';
import { toolNamed, toolSpecFor } from '../src-main/engine/tools/registry';
import { toChatHistory } from '../src-main/llm/local/chat-history';
import { grammarLimitsFor, toolCallGrammarSchema } from '../src-main/llm/local/grammar-schema';
import { createLocalModelProvider } from '../src-main/llm/local/local-provider';
import { candidateThreadCounts } from '../src-main/llm/local/thread-choice';
import type { ModelRequest } from '../src-main/llm/types';

const modelPath = process.env['DWB_TEST_MODEL'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'dwb-models', 'SmolLM2-135M-Instruct.Q4_1.gguf');
const maxTokens = Number(process.env['BENCH_TOKENS'] ?? 96);
const callsPerCase = Number(process.env['BENCH_CALLS'] ?? 3);
const cores = availableParallelism();
const contextSize = 2048;
/**
 * A call is cut after this long and its rate read from the tokens so far: with every core under
 * load a call can crawl at well under a token a second, and the bench must still end.
 */
const callCapMs = Number(process.env['BENCH_CALL_CAP_MS'] ?? 30_000);

const tools = (['plan', 'query', 'answer'] as const).map((name) => toolSpecFor(toolNamed(name), 'SQLite'));
const request: ModelRequest = {
  messages: [
    { role: 'system', content: 'You are a data analyst. The database has the tables trade_node(trade_node, local_value) and flow(source, dest, flow).' },
    { role: 'user', content: 'Which trade node sends the most value into baltic_sea?' },
  ],
  tools,
  maxTokens,
  temperature: 0,
};

/** One decoded call: time to its first token and its generation rate after it. */
interface CallFigures {
  firstTokenMs: number;
  tokensPerSecond: number;
}

interface CaseResult {
  label: string;
  threads: string;
  calls: CallFigures[];
  load: number;
}

/** The median of the calls' rates (robust to one call disturbed by the machine). */
const medianRate = (result: CaseResult): number => {
  const rates = result.calls.map((call) => call.tokensPerSecond).sort((a, b) => a - b);
  return rates[Math.floor(rates.length / 2)] ?? 0;
};
const medianFirstToken = (result: CaseResult): number => {
  const times = result.calls.map((call) => call.firstTokenMs).sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
};

/** Counts a call's pieces as they stream (product and direct alike: the same chunks of text). */
function pieceClock(): { onPiece: () => void; figures: () => CallFigures } {
  const started = performance.now();
  let first: number | null = null;
  let last = started;
  let pieces = 0;
  return {
    onPiece: () => {
      last = performance.now();
      first ??= last;
      pieces += 1;
    },
    figures: () => ({ firstTokenMs: (first ?? performance.now()) - started, tokensPerSecond: first !== null && last > first && pieces > 1 ? (pieces - 1) / ((last - first) / 1000) : 0 }),
  };
}

/** The product: the model in its own process (one warm-up call, then the measured ones). */
async function product(label: string, threads: number | 'auto'): Promise<CaseResult> {
  const provider = createLocalModelProvider({ modelPath, contextSize, gpu: 'off', temperature: 0, maxTokens, ...(threads === 'auto' ? {} : { threads }) });
  try {
    const atLoad = await provider.load();
    const decode = async (): Promise<CallFigures> => {
      const clock = pieceClock();
      // A call cut at the cap rejects as cancelled; its pieces so far still give its rate.
      await provider.generate(request, { onToken: clock.onPiece, signal: AbortSignal.timeout(callCapMs) }).catch(() => undefined);
      return clock.figures();
    };
    await decode();
    const calls: CallFigures[] = [];
    for (let call = 0; call < callsPerCase; call += 1) calls.push(await decode());
    // A call cut at the cap ends the model process (killed after the abort's grace): then the choice at load is shown.
    const choice = provider.loaded()?.threadChoice ?? atLoad.threadChoice;
    const measured = choice?.auto ? ` (measured ${Object.entries(choice.measured).map(([count, rate]) => `${count}: ${rate}`).join(', ')} tokens/s)` : '';
    return { label, threads: `${choice?.count ?? '?'}${choice?.auto ? ' auto' : ''}${measured}`, calls, load: loadavg()[0] ?? 0 };
  } finally {
    await provider.unload();
  }
}

/** node-llama-cpp used directly, in this process, with the same history, grammar and settings. */
async function direct(label: string, threads: number): Promise<CaseResult> {
  // Imported when used, as the model process does (node-llama-cpp is an ES module with top-level await).
  const { getLlama, LlamaChat, LlamaLogLevel } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error, maxThreads: threads });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize, threads });
  try {
    const chat = new LlamaChat({ contextSequence: context.getSequence() });
    const grammar = await llama.createGrammarForJsonSchema(toolCallGrammarSchema(tools, (tool) => grammarLimitsFor(maxTokens, tool.parameters)) as never);
    const history = toChatHistory(request.messages, tools);
    const decode = async (): Promise<CallFigures> => {
      const clock = pieceClock();
      await chat.generateResponse(history as never, { grammar, maxTokens, temperature: 0, onTextChunk: clock.onPiece, signal: AbortSignal.timeout(callCapMs), stopOnAbortSignal: true });
      return clock.figures();
    };
    await decode();
    const calls: CallFigures[] = [];
    for (let call = 0; call < callsPerCase; call += 1) calls.push(await decode());
    return { label, threads: String(threads), calls, load: loadavg()[0] ?? 0 };
  } finally {
    await context.dispose();
    await model.dispose();
    await llama.dispose();
  }
}

/** Two busy processes, bounded to ten minutes each in case the bench itself is killed. */
function startLoad(): ChildProcess[] {
  const burner = 'const end = Date.now() + 600000; while (Date.now() < end) {}';
  return [0, 1].map(() => spawn(process.execPath, ['-e', burner], { stdio: 'ignore' }));
}

function print(result: CaseResult): void {
  const rates = result.calls.map((call) => call.tokensPerSecond.toFixed(1)).join(' / ');
  console.log(
    `  ${result.label.padEnd(34)} threads ${result.threads.padEnd(8)}  first token ${(medianFirstToken(result) / 1000).toFixed(2)} s  generation ${medianRate(result).toFixed(1)} tokens/s (calls: ${rates})  load ${result.load.toFixed(1)}`,
  );
}

async function runCases(cases: (() => Promise<CaseResult>)[]): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const run of cases) {
    const result = await run();
    print(result);
    results.push(result);
  }
  return results;
}

async function main(): Promise<void> {
  if (!existsSync(modelPath)) {
    console.log(`NOT RUN: no model at ${modelPath} (set DWB_TEST_MODEL, or run .ci/run once to fetch SmolLM2-135M-Instruct)`);
    return;
  }
  console.log(`Local model benchmark: ${modelPath}, ${cores} cores, tool call up to ${maxTokens} tokens, ${callsPerCase} calls a case (median shown)`);
  const counts = candidateThreadCounts(cores);
  const cases = (): (() => Promise<CaseResult>)[] => [
    ...counts.map((count) => () => direct(`node-llama-cpp direct`, count)),
    () => product('product, threads auto', 'auto'),
    () => product(`product, threads ${cores} (explicit)`, cores),
  ];

  console.log(`\nidle (the machine as it is, load ${(loadavg()[0] ?? 0).toFixed(1)})`);
  const idle = await runCases(cases());

  const burners = startLoad();
  const stopLoad = (): void => burners.forEach((burner) => burner.kill('SIGKILL'));
  process.once('exit', stopLoad);
  // Stopped from outside (Ctrl+C, a timeout), the busy processes go with the bench.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopLoad();
      process.exit(1);
    });
  }
  let loaded: CaseResult[];
  try {
    console.log(`\nunder load (two busy processes started by the bench)`);
    loaded = await runCases(cases());
  } finally {
    stopLoad();
  }

  const idleDirectBest = Math.max(...idle.filter((result) => result.label.startsWith('node-llama-cpp')).map(medianRate));
  const idleBest = Math.max(...idle.map(medianRate));
  const idleAuto = medianRate(idle.find((result) => result.label.includes('auto'))!);
  const loadedAuto = medianRate(loaded.find((result) => result.label.includes('auto'))!);
  const loadedExplicit = medianRate(loaded.find((result) => result.label.includes('explicit'))!);
  const percent = (part: number, whole: number): string => `${whole > 0 ? ((part / whole) * 100).toFixed(0) : 'n/a'} %`;
  const verdict = (met: boolean): string => (met ? 'met' : 'NOT met');
  console.log('\ngoals');
  console.log(
    `  under load, product (auto) ${loadedAuto.toFixed(1)} tokens/s = ${percent(loadedAuto, idleBest)} of the idle best ${idleBest.toFixed(1)} (goal ≥ 80 %): ${verdict(loadedAuto >= 0.8 * idleBest)}` +
      `  [explicit ${cores} threads: ${loadedExplicit.toFixed(1)} = ${percent(loadedExplicit, idleBest)}]`,
  );
  console.log(`  idle, product (auto) ${idleAuto.toFixed(1)} tokens/s = ${percent(idleAuto, idleDirectBest)} of node-llama-cpp direct ${idleDirectBest.toFixed(1)} (goal within 5 %): ${verdict(idleAuto >= 0.95 * idleDirectBest)}`);
}

void main();
