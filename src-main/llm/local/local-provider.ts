import { freemem } from 'node:os';
import { WorkbenchError } from '../../contract/errors';
import { withDeadline } from '../deadline';
import { formatSeconds } from '../settings';
import type { GenerateOptions, ModelProvider, ModelRequest, ModelResponse } from '../types';
import { toChatHistory } from './chat-history';
import { forkModelProcess } from './fork-model-process';
import { grammarLimitsFor, readToolCallReply, toGrammarSchema, toolCallGrammarSchema, type GrammarSchema } from './grammar-schema';
import { parseLocalModelSettings, threadSetting, type LocalModelSettings, type LocalModelSettingsInput } from './local-settings';
import { assertEnoughMemory, defaultContextSize, estimateLoadBytes, type GgufModelInfo } from './model-file';
import { readModelInfoOffThread } from './model-header';
import type { ChatHistoryEntry, FromModelProcess, ModelProcess, ModelProcessLauncher, ThreadChoice } from './protocol';
import { repeatedTail } from './repetition';

/** A loaded model, as the model manager shows it. */
export interface LoadedLocalModel {
  info: GgufModelInfo;
  contextSize: number;
  /** Threads in use now. */
  threads: number;
  /** How they were chosen (`auto`: measured, with the rates), kept up to date when auto measures again. */
  threadChoice: ThreadChoice;
  /** The GPU backend in use (`cuda`, `vulkan`, `metal`), or false on CPU only. */
  gpu: string | false;
  loadMs: number;
  /** Peak resident memory of the model process so far. */
  maxRssBytes: number;
}

/** A ModelProvider that runs a GGUF model itself, in a separate process it can load and unload. */
export interface LocalModelProvider extends ModelProvider {
  readonly settings: LocalModelSettings;
  /** Loads the model (once; later calls wait for the same load). `onProgress` gets 0…1. */
  load(options?: { onProgress?: (progress: number) => void }): Promise<LoadedLocalModel>;
  /** The loaded model, or null. */
  loaded(): LoadedLocalModel | null;
  /** Ends the model process; the next `generate` or `load` starts a new one. */
  unload(): Promise<void>;
  /** The model process's id while one runs (tests and the benchmark watch it). */
  processId(): number | undefined;
}

export interface LocalProviderDependencies {
  /** Starts the model process; default: a forked Node child process. */
  launch?: ModelProcessLauncher;
  /** Free memory now; default: `os.freemem()`. */
  freeMemory?: () => number;
}

/** How long a generation may take to stop after an abort before its process is killed. */
const abortGraceMs = 500;

/**
 * Before its first token a call reads the whole prompt, which llama.cpp does in one batch with
 * no sign of progress: on a busy machine a 1,500-token prompt took over a minute. The first
 * token is therefore allowed the stall timeout plus the prompt read at this slow rate (about
 * three characters a token).
 */
const slowestPromptTokensPerSecond = 10;
const promptReadingMs = (history: readonly ChatHistoryEntry[]): number => {
  const characters = history.reduce((sum, entry) => sum + ('text' in entry ? entry.text.length : entry.response.join('').length), 0);
  return Math.ceil(characters / 3 / slowestPromptTokensPerSecond) * 1000;
};

interface Generation {
  id: number;
  onToken: ((text: string) => void) | undefined;
  settle(message: FromModelProcess & { type: 'done' | 'failed' }): void;
  crash(how: string): void;
}

/**
 * Loads a GGUF model in a separate process and answers model requests from it. With tools,
 * every reply is decoded under a grammar made from the offered tools' schemas, so it is always
 * exactly one valid call (`constrained: 'grammar'`); with `output: {kind: 'json'}` the reply
 * is JSON of that schema. Cancelling answers at once: the process is told to stop, and killed
 * if it has not stopped within half a second. A crash of the process fails the call with a
 * clear error and the next call loads the model again.
 */
export function createLocalModelProvider(input: LocalModelSettingsInput, dependencies: LocalProviderDependencies = {}): LocalModelProvider {
  const settings = parseLocalModelSettings(input);
  const launch = dependencies.launch ?? forkModelProcess;
  const freeMemory = dependencies.freeMemory ?? freemem;
  const fileName = settings.modelPath.split(/[\\/]/).pop() ?? settings.modelPath;

  let child: ModelProcess | null = null;
  let loading: Promise<LoadedLocalModel> | null = null;
  let current: LoadedLocalModel | null = null;
  let generation: Generation | null = null;
  /** Settles when the process has finished the previous generation (or was killed). */
  let idle: Promise<void> = Promise.resolve();
  let queue: Promise<unknown> = Promise.resolve();
  let nextId = 1;

  function stopProcess(): void {
    const ending = child;
    child = null;
    loading = null;
    current = null;
    ending?.kill();
  }

  async function load(options: { onProgress?: (progress: number) => void } = {}): Promise<LoadedLocalModel> {
    // A cancelled generation may still end its process (killed after the grace period): wait for that.
    await idle;
    if (current) return current;
    loading ??= startLoad(options.onProgress).catch((error: unknown) => {
      stopProcess();
      throw error;
    });
    return loading;
  }

  async function startLoad(onProgress: ((progress: number) => void) | undefined): Promise<LoadedLocalModel> {
    // In a worker thread within a budget: a hostile header neither stalls the caller nor hangs the load.
    const info = await readModelInfoOffThread(settings.modelPath);
    const contextSize = settings.contextSize ?? defaultContextSize(info);
    assertEnoughMemory(estimateLoadBytes(info, contextSize), `${info.name} with a ${contextSize}-token context`, freeMemory());
    const started = performance.now();
    const process = launch();
    child = process;
    return new Promise<LoadedLocalModel>((resolve, reject) => {
      let settled = false;
      process.onMessage((message) => {
        if (message.type === 'load-progress') onProgress?.(message.progress);
        else if (message.type === 'loaded' && !settled) {
          settled = true;
          current = { info, contextSize: message.contextSize, threads: message.threads.count, threadChoice: message.threads, gpu: message.gpu, loadMs: Math.round(performance.now() - started), maxRssBytes: message.maxRssBytes };
          resolve(current);
        } else if (message.type === 'load-failed' && !settled) {
          settled = true;
          reject(new WorkbenchError('unsupported', `Cannot load ${fileName}: ${message.message}`));
        } else if (message.type === 'threads') {
          if (current) current = { ...current, threads: message.threads.count, threadChoice: message.threads };
        } else if (message.type === 'token') {
          if (generation?.id === message.id) generation.onToken?.(message.text);
        } else if (message.type === 'done' || message.type === 'failed') {
          if (current && message.type === 'done') current.maxRssBytes = Math.max(current.maxRssBytes, message.maxRssBytes);
          if (generation?.id === message.id) generation.settle(message);
        }
      });
      process.onExit((how) => {
        if (child === process) {
          child = null;
          loading = null;
          current = null;
        }
        if (!settled) {
          settled = true;
          reject(new WorkbenchError('internal', `The model process stopped while loading ${fileName} (${how}); it may have run out of memory.`));
        }
        generation?.crash(how);
      });
      process.send({ type: 'load', path: settings.modelPath, threads: threadSetting(settings), contextSize, gpu: settings.gpu === 'auto' ? 'auto' : false });
    });
  }

  async function generateOnce(request: ModelRequest, options: GenerateOptions, signal: AbortSignal): Promise<ModelResponse> {
    const started = performance.now();
    await idle;
    const model = await load();
    if (signal.aborted) throw signal.reason;
    const process = child;
    if (!process) throw new WorkbenchError('internal', `The model process for ${fileName} is not running.`);
    const maxTokens = request.maxTokens ?? settings.maxTokens;
    const tools = request.tools ?? [];
    const isToolCall = tools.length > 0 && request.output?.kind !== 'json';
    // Limits from each schema's own bounds, within what the token budget can hold (grammar-schema.ts).
    const grammar: GrammarSchema | null =
      request.output?.kind === 'json'
        ? toGrammarSchema(request.output.schema, request.output.name, grammarLimitsFor(maxTokens, request.output.schema))
        : isToolCall
          ? toolCallGrammarSchema(tools, (tool) => grammarLimitsFor(maxTokens, tool.parameters))
          : null;
    const history = toChatHistory(request.messages, tools);
    const temperature = request.temperature ?? settings.temperature;
    // Stop sequences only mean something for free text; a grammar already ends the reply.
    const stop = grammar ? [] : (request.stop ?? []);

    // Every token is passed on, a tool call's too: the run bar and the CLI show the reply forming.
    const { done, id, repeated, watched } = await decode(process, { history, grammar, maxTokens, temperature, stop }, options.onToken, signal, grammar !== null);
    const usage = { promptTokens: done.promptTokens, completionTokens: done.completionTokens, totalTokens: done.promptTokens + done.completionTokens };
    const base = { usage, latencyMs: Math.round(performance.now() - started), model: model.info.name, constrained: grammar ? ('grammar' as const) : ('none' as const) };
    // A reply cut for repeating itself is unusable: the caller asks again (the engine counts a repair).
    // Its text is what was streamed up to the cut: tokens the process decoded before it saw the
    // abort were never shown, so they are not recorded either.
    if (repeated !== null) return { ...base, content: watched, toolCalls: [], finishReason: 'repetition' };
    const cutOff = done.stopReason === 'maxTokens';
    if (grammar && isToolCall) {
      // Cut off at the token limit, the JSON is incomplete: reported as such, with the text, never decoded again.
      if (cutOff) return { ...base, content: done.text, toolCalls: [], finishReason: 'length' };
      const call = readToolCallReply(done.text, tools);
      return { ...base, content: '', toolCalls: [{ id: `call_${id}`, ...call }], finishReason: 'tool_calls' };
    }
    return { ...base, content: done.text, toolCalls: [], finishReason: cutOff ? 'length' : 'stop' };
  }

  /**
   * One generation in the model process; settles at once on abort (see `abortGraceMs`). Stopped
   * with a `timeout` when no token comes for `stallTimeoutMs` (the first one included: a busy
   * machine may take long to read the prompt, but not that long), and, when `watchRepetition`,
   * cut as soon as the text degenerates into one repeated unit (`repeated` names it).
   */
  function decode(
    process: ModelProcess,
    input: { history: ChatHistoryEntry[]; grammar: GrammarSchema | null; maxTokens: number; temperature: number; stop: string[] },
    onToken: ((text: string) => void) | undefined,
    signal: AbortSignal,
    watchRepetition: boolean,
  ): Promise<{ done: FromModelProcess & { type: 'done' }; id: number; repeated: string | null; watched: string }> {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      let finished!: () => void;
      idle = new Promise<void>((resolveIdle) => (finished = resolveIdle));
      let text = '';
      let repeated: string | null = null;
      let stallTimer: ReturnType<typeof setTimeout> | undefined;
      let stalled = false;
      let tokens = 0;
      const end = (): void => {
        generation = null;
        clearTimeout(stallTimer);
        signal.removeEventListener('abort', onAbort);
        finished();
      };
      /** Tells the process to stop; kills it if it has not stopped within the grace period. */
      const stopGeneration = (): void => {
        process.send({ type: 'abort', id });
        // A token can take seconds on a busy machine: if the process has not stopped by then, kill it.
        const killer = setTimeout(() => {
          if (generation?.id !== id) return;
          if (child === process) stopProcess();
          else process.kill();
        }, abortGraceMs);
        killer.unref?.();
      };
      const onAbort = (): void => {
        stopGeneration();
        reject(signal.reason);
      };
      const armStallTimer = (): void => {
        clearTimeout(stallTimer);
        const reading = tokens === 0 ? promptReadingMs(input.history) : 0;
        stallTimer = setTimeout(() => {
          stalled = true;
          stopGeneration();
          const waited = reading > 0 ? `${formatSeconds(settings.stallTimeoutMs)} beyond the ${formatSeconds(reading)} allowed for reading the prompt` : formatSeconds(settings.stallTimeoutMs);
          reject(new WorkbenchError('timeout', `The local model ${fileName} produced no token for ${waited} (the stall timeout); the machine may be too busy, or fewer threads may help.`));
        }, settings.stallTimeoutMs + reading);
      };
      generation = {
        id,
        onToken: (piece) => {
          if (stalled) return;
          tokens += 1;
          armStallTimer();
          if (repeated !== null) return;
          onToken?.(piece);
          if (!watchRepetition) return;
          text += piece;
          repeated = repeatedTail(text);
          // The process answers the abort with `done` (stop reason `abort`) and the text so far.
          if (repeated !== null) process.send({ type: 'abort', id });
        },
        settle: (message) => {
          end();
          if (message.type === 'done') resolve({ done: message, id, repeated, watched: text });
          else reject(new WorkbenchError('internal', `The local model ${fileName} failed to answer: ${message.message}`));
        },
        crash: (how) => {
          end();
          reject(new WorkbenchError('internal', `The local model process stopped unexpectedly (${how}) while answering; it may have run out of memory. The model will be loaded again on the next call.`));
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      armStallTimer();
      process.send({ type: 'generate', id, ...input });
    });
  }

  async function generate(request: ModelRequest, options: GenerateOptions = {}): Promise<ModelResponse> {
    if (request.messages.length === 0) throw new WorkbenchError('invalid-request', 'A model request needs at least one message.');
    const run = (): Promise<ModelResponse> =>
      withDeadline(
        {
          timeoutMs: settings.requestTimeoutMs,
          ...(options.signal ? { signal: options.signal } : {}),
          timeoutMessage: `The local model ${fileName} did not answer within ${formatSeconds(settings.requestTimeoutMs)} (the request timeout).`,
        },
        (signal) => generateOnce(request, options, signal),
      );
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  }

  return {
    description: `${fileName} (local, in-process)`,
    settings,
    generate,
    load,
    loaded: () => current,
    processId: () => child?.pid,
    async unload() {
      stopProcess();
      await idle;
    },
  };
}
