/**
 * The model process: loads one GGUF model with node-llama-cpp and answers generate requests,
 * streaming text back. It runs apart from the app (a Node child process, or an Electron
 * utility process) so that a crash or an out-of-memory in llama.cpp ends only this process.
 * It never downloads or builds llama.cpp: only the prebuilt binaries are used.
 */
import { availableParallelism } from 'node:os';
import type { Llama, LlamaChat, LlamaContext, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import type { FromModelProcess, GenerateRequest, LoadRequest, ThreadChoice, ToModelProcess } from './protocol';
import { candidateThreadCounts, fastestCount, probeTokens, rateCallsForMeasuring } from './thread-choice';

interface ParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

// Electron utility processes talk through `process.parentPort`; forked Node children through IPC.
const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;
const post = (message: FromModelProcess): void => {
  if (parentPort) parentPort.postMessage(message);
  else process.send?.(message);
};
const listen = (listener: (message: ToModelProcess) => void): void => {
  if (parentPort) parentPort.on('message', (event) => listener(event.data as ToModelProcess));
  else process.on('message', (message) => listener(message as ToModelProcess));
};
// Without a parent there is nobody to answer: leave rather than linger.
if (!parentPort) process.on('disconnect', () => process.exit(0));

let loaded: { llama: Llama; model: LlamaModel; context: LlamaContext; chat: LlamaChat } | null = null;
/** The thread count in use; with `auto`, also the generation rate seen first after choosing it. */
let threads: ThreadChoice = { count: 1, auto: false, measured: {} };
let rateAtChoice: number | null = null;
const running = new Map<number, AbortController>();
const grammars = new Map<string, LlamaGrammar>();
const maxRssBytes = (): number => process.resourceUsage().maxRSS * 1024;
const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function load(request: LoadRequest): Promise<void> {
  const { getLlama, LlamaChat: Chat, LlamaLogLevel } = await import('node-llama-cpp');
  try {
    const auto = request.threads === 'auto';
    const cores = auto ? availableParallelism() : (request.threads as number);
    // With auto, the context may use every core and llama.maxThreads (the thread splitter's
    // budget, read before each decode) holds it to the measured count.
    const llama = await getLlama({ gpu: request.gpu, build: 'never', logLevel: LlamaLogLevel.error, maxThreads: cores });
    let reported = -1;
    const model = await llama.loadModel({
      modelPath: request.path,
      // Every percent is enough for a progress bar; the loader reports far more often.
      onLoadProgress: (progress) => {
        const percent = Math.floor(progress * 100);
        if (percent === reported) return;
        reported = percent;
        post({ type: 'load-progress', progress });
      },
    });
    const context = await model.createContext({ contextSize: request.contextSize, threads: auto ? { ideal: cores, min: 1 } : cores });
    const chat = new Chat({ contextSequence: context.getSequence() });
    loaded = { llama, model, context, chat };
    threads = auto && !llama.gpu ? await chooseThreads(cores) : { count: cores, auto: false, measured: {} };
    post({ type: 'loaded', contextSize: context.contextSize, threads, gpu: llama.gpu, maxRssBytes: maxRssBytes() });
  } catch (error) {
    post({ type: 'load-failed', message: loadFailure(describe(error)) });
  }
}

/** llama.cpp's own words for an unknown architecture are cryptic; say it plainly. */
function loadFailure(message: string): string {
  if (/unknown model architecture|unsupported model architecture/i.test(message)) return `unsupported model architecture (${message})`;
  return message;
}

/** Decodes a few tokens with each candidate count and keeps the fastest (see thread-choice.ts). */
async function chooseThreads(cores: number): Promise<ThreadChoice> {
  const measured: Record<number, number> = {};
  for (const count of candidateThreadCounts(cores)) measured[count] = await decodeRate(count);
  const count = fastestCount(measured);
  loaded!.llama.maxThreads = count;
  rateAtChoice = null;
  return { count, auto: true, measured };
}

/** Tokens/s of plain decoding with `count` threads, on the chat's own sequence (cleared after). */
async function decodeRate(count: number): Promise<number> {
  const { llama, model, chat } = loaded!;
  llama.maxThreads = count;
  const sequence = chat.sequence;
  await sequence.clearHistory();
  let decoded = 0;
  let started = 0;
  for await (const _token of sequence.evaluate(model.tokenize('Once upon a time'), { temperature: 0 })) {
    // The first token carries the prompt's prefill; the rate is measured from it on.
    if (decoded === 0) started = performance.now();
    decoded += 1;
    if (decoded > probeTokens) break;
  }
  const seconds = (performance.now() - started) / 1000;
  await sequence.clearHistory();
  return decoded > 1 && seconds > 0 ? Math.round(((decoded - 1) / seconds) * 10) / 10 : 0;
}

/** After a generation with `auto`: measures again when its rate is far from the one seen at the choice. */
async function watchRate(tokens: number, firstTokenAt: number | null): Promise<void> {
  if (!threads.auto || firstTokenAt === null || tokens < probeTokens) return;
  const rate = (tokens - 1) / ((performance.now() - firstTokenAt) / 1000);
  if (rateAtChoice === null) {
    rateAtChoice = rate;
    return;
  }
  if (!rateCallsForMeasuring(rate, rateAtChoice)) return;
  const before = threads.count;
  threads = await chooseThreads(availableParallelism());
  if (threads.count !== before) post({ type: 'threads', threads });
}

async function grammarFor(schema: NonNullable<GenerateRequest['grammar']>): Promise<LlamaGrammar> {
  const key = JSON.stringify(schema);
  const cached = grammars.get(key);
  if (cached) return cached;
  const grammar = await loaded!.llama.createGrammarForJsonSchema(schema as never);
  grammars.set(key, grammar);
  return grammar;
}

async function generate(request: GenerateRequest): Promise<void> {
  if (!loaded) {
    post({ type: 'failed', id: request.id, message: 'no model is loaded' });
    return;
  }
  const controller = new AbortController();
  running.set(request.id, controller);
  const sequence = loaded.chat.sequence;
  const outputBefore = sequence.tokenMeter.usedOutputTokens;
  let firstTokenAt: number | null = null;
  try {
    const grammar = request.grammar ? await grammarFor(request.grammar) : undefined;
    const result = await loaded.chat.generateResponse(request.history as never, {
      ...(grammar ? { grammar } : {}),
      maxTokens: request.maxTokens,
      temperature: request.temperature,
      ...(request.stop.length > 0 ? { customStopTriggers: request.stop } : {}),
      signal: controller.signal,
      stopOnAbortSignal: true,
      onTextChunk: (text) => {
        firstTokenAt ??= performance.now();
        post({ type: 'token', id: request.id, text });
      },
    });
    const completionTokens = sequence.tokenMeter.usedOutputTokens - outputBefore;
    const promptTokens = Math.max(0, sequence.contextTokens.length - completionTokens);
    // Before the reply is sent, so that the next request never meets a measurement in progress.
    await watchRate(completionTokens, firstTokenAt);
    post({
      type: 'done',
      id: request.id,
      text: result.response,
      stopReason: result.metadata.stopReason,
      promptTokens,
      completionTokens,
      maxRssBytes: maxRssBytes(),
    });
  } catch (error) {
    post({ type: 'failed', id: request.id, message: describe(error) });
  } finally {
    running.delete(request.id);
  }
}

listen((message) => {
  switch (message.type) {
    case 'load':
      void load(message);
      break;
    case 'generate':
      void generate(message);
      break;
    case 'abort':
      running.get(message.id)?.abort();
      break;
  }
});
