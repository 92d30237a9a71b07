import type { GrammarSchema } from './grammar-schema';

/**
 * Messages between the app and the model process (a forked child process, or an Electron
 * utility process in the desktop app). Plain data only: they cross a process boundary.
 */

/** A conversation in the shape node-llama-cpp's chat takes (the last item is the reply to write). */
export type ChatHistoryEntry = { type: 'system'; text: string } | { type: 'user'; text: string } | { type: 'model'; response: string[] };

export interface LoadRequest {
  type: 'load';
  path: string;
  /** A thread count, or `auto`: the process measures which count decodes fastest now and uses it. */
  threads: number | 'auto';
  contextSize: number;
  /** `auto`: offload to a GPU when the prebuilt binaries find one; false: CPU only. */
  gpu: 'auto' | false;
}

export interface GenerateRequest {
  type: 'generate';
  id: number;
  history: ChatHistoryEntry[];
  /** Decode under this JSON schema (grammar subset); null: free text. */
  grammar: GrammarSchema | null;
  maxTokens: number;
  temperature: number;
  /** Text at which generation stops (left out of the reply); empty: none. */
  stop: string[];
}

/** The thread count in use, and how it was chosen. */
export interface ThreadChoice {
  count: number;
  /** True when measured (`auto`); false when given explicitly. */
  auto: boolean;
  /** Tokens/s measured for each count tried (auto only), e.g. `{1: 28.1, 2: 7.4}`. */
  measured: Record<number, number>;
}

export type ToModelProcess = LoadRequest | GenerateRequest | { type: 'abort'; id: number };

export type FromModelProcess =
  | { type: 'load-progress'; progress: number }
  | { type: 'loaded'; contextSize: number; threads: ThreadChoice; gpu: string | false; maxRssBytes: number }
  /** The automatic thread count changed (the rate fell well below the one it was chosen at). */
  | { type: 'threads'; threads: ThreadChoice }
  | { type: 'load-failed'; message: string }
  | { type: 'token'; id: number; text: string }
  | {
      type: 'done';
      id: number;
      text: string;
      /** node-llama-cpp's stop reason: `eogToken`, `stopGenerationTrigger`, `customStopTrigger`, `maxTokens`, `abort`, … */
      stopReason: string;
      promptTokens: number;
      completionTokens: number;
      /** The process's peak resident memory so far. */
      maxRssBytes: number;
    }
  | { type: 'failed'; id: number; message: string };

/** One running model process, whatever started it. */
export interface ModelProcess {
  readonly pid: number | undefined;
  send(message: ToModelProcess): void;
  onMessage(listener: (message: FromModelProcess) => void): void;
  /** Called once when the process ends, with how (`exit code 1`, `signal SIGKILL`). */
  onExit(listener: (how: string) => void): void;
  kill(): void;
}

/**
 * Starts a model process. The CLI and browser mode fork a Node child process
 * (`forkModelProcess`); the desktop app passes one that starts an Electron utility process, so
 * this layer never imports electron.
 */
export type ModelProcessLauncher = () => ModelProcess;
