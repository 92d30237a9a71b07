/**
 * The model process: loads one GGUF model with node-llama-cpp and answers generate requests,
 * streaming text back. It runs apart from the app (a Node child process, or an Electron
 * utility process) so that a crash or an out-of-memory in llama.cpp ends only this process.
 * It never downloads or builds llama.cpp: only the prebuilt binaries are used.
 */
import type { Llama, LlamaChat, LlamaContext, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import type { FromModelProcess, GenerateRequest, LoadRequest, ToModelProcess } from './protocol';

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
const running = new Map<number, AbortController>();
const grammars = new Map<string, LlamaGrammar>();
const maxRssBytes = (): number => process.resourceUsage().maxRSS * 1024;
const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function load(request: LoadRequest): Promise<void> {
  const { getLlama, LlamaChat: Chat, LlamaLogLevel } = await import('node-llama-cpp');
  try {
    const llama = await getLlama({ gpu: request.gpu, build: 'never', logLevel: LlamaLogLevel.error, maxThreads: request.threads });
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
    const context = await model.createContext({ contextSize: request.contextSize, threads: request.threads });
    const chat = new Chat({ contextSequence: context.getSequence() });
    loaded = { llama, model, context, chat };
    post({ type: 'loaded', contextSize: context.contextSize, threads: request.threads, gpu: llama.gpu, maxRssBytes: maxRssBytes() });
  } catch (error) {
    post({ type: 'load-failed', message: loadFailure(describe(error)) });
  }
}

/** llama.cpp's own words for an unknown architecture are cryptic; say it plainly. */
function loadFailure(message: string): string {
  if (/unknown model architecture|unsupported model architecture/i.test(message)) return `unsupported model architecture (${message})`;
  return message;
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
  try {
    const grammar = request.grammar ? await grammarFor(request.grammar) : undefined;
    const result = await loaded.chat.generateResponse(request.history as never, {
      ...(grammar ? { grammar } : {}),
      maxTokens: request.maxTokens,
      temperature: request.temperature,
      ...(request.stop.length > 0 ? { customStopTriggers: request.stop } : {}),
      signal: controller.signal,
      stopOnAbortSignal: true,
      onTextChunk: (text) => post({ type: 'token', id: request.id, text }),
    });
    const completionTokens = sequence.tokenMeter.usedOutputTokens - outputBefore;
    post({
      type: 'done',
      id: request.id,
      text: result.response,
      stopReason: result.metadata.stopReason,
      promptTokens: Math.max(0, sequence.contextTokens.length - completionTokens),
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
