import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WorkbenchError } from '../contract/errors';
import { createLocalModelProvider, type LocalModelProvider } from '../llm/local/local-provider';
import type { LocalModelSettings } from '../llm/local/local-settings';
import { defaultContextSize } from '../llm/local/model-file';
import { readModelInfoOffThread } from '../llm/local/model-header';
import { createOpenAiProvider } from '../llm/openai-provider';
import { parseProviderSettings, redactUrl, type ProviderSettings } from '../llm/settings';
import { probeJsonSchemaOutput } from '../llm/structured-output-probe';
import type { ModelProvider } from '../llm/types';
import { positiveInteger, type CommandIo } from './command-io';

/** The model options every command that calls a model takes (spread into its parseArgs options). */
export const modelCliOptions = {
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-file': { type: 'string' },
  'tool-mode': { type: 'string', default: 'auto' },
  'timeout-ms': { type: 'string' },
  'model-file': { type: 'string' },
  threads: { type: 'string' },
  context: { type: 'string' },
  'max-tokens': { type: 'string' },
} as const;

export const modelCliUsage =
  '(--base-url URL --model M [--api-key-file F] [--tool-mode tools|text|auto] | --model-file PATH.gguf [--threads N]) [--context N] [--max-tokens N]';

/** The parsed values of `modelCliOptions`. */
export type ModelCliValues = Partial<Record<keyof typeof modelCliOptions, string | undefined>>;

/** A provider made from command-line options, with what the run records about it. */
export interface CliModel {
  provider: ModelProvider;
  /** The engine's tool mode: a local model always calls tools natively (under a grammar). */
  toolMode: 'tools' | 'text';
  /** For the transcript header. */
  recordedSettings: ProviderSettings | LocalModelSettings;
  /** For the run's `run-start` details: the endpoint (a file: URL for a local model) and sampling. */
  details: Pick<ProviderSettings, 'baseUrl' | 'model' | 'temperature' | 'maxTokens'>;
  /** The local model, to unload when the command ends; null over HTTP. */
  local: LocalModelProvider | null;
  /**
   * The model's context window in tokens, which a run keeps its prompts inside (old
   * observations summarised): `--context`, else a local model's default from its file; null
   * over HTTP without `--context` (the server's window is unknown).
   */
  contextTokens(): Promise<number | null>;
}

/**
 * One model from `dwb run` / `dwb dqa solve` options: `--model-file` runs a GGUF model in a
 * child process; otherwise `--base-url` and `--model` name an OpenAI-compatible server. The two
 * are exclusive, and each refuses the other's options. The API key, if any, is resolved by the
 * caller (a file or the environment: cli/secret-args.ts).
 */
export function providerFromCliOptions(values: ModelCliValues, usage: string, apiKey?: string): CliModel {
  const maxTokens = positiveInteger(values['max-tokens'], '--max-tokens');
  const requestTimeoutMs = positiveInteger(values['timeout-ms'], '--timeout-ms');
  const modelFile = values['model-file'];
  if (modelFile !== undefined) {
    for (const flag of ['base-url', 'model', 'api-key', 'api-key-file'] as const) {
      if (values[flag] !== undefined) throw new WorkbenchError('invalid-request', `--model-file and --${flag} exclude each other: a local model needs no server`);
    }
    if (values['tool-mode'] !== undefined && values['tool-mode'] !== 'auto' && values['tool-mode'] !== 'tools') {
      throw new WorkbenchError('invalid-request', '--model-file always calls tools under a grammar: --tool-mode text does not apply');
    }
    // `auto` (also when left out): the model process measures which count decodes fastest now.
    const threads = values.threads === undefined || values.threads === 'auto' ? undefined : positiveInteger(values.threads, '--threads');
    const contextSize = positiveInteger(values.context, '--context');
    const local = createLocalModelProvider({
      modelPath: resolve(modelFile),
      ...(threads ? { threads } : {}),
      ...(contextSize ? { contextSize } : {}),
      ...(maxTokens ? { maxTokens } : {}),
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
    });
    const settings: LocalModelSettings = local.settings;
    return {
      contextTokens: async () => contextSize ?? defaultContextSize(await readModelInfoOffThread(settings.modelPath)),
      provider: local,
      toolMode: 'tools',
      recordedSettings: { ...settings },
      details: { baseUrl: pathToFileURL(settings.modelPath).href, model: basename(settings.modelPath), temperature: settings.temperature, maxTokens: settings.maxTokens },
      local,
    };
  }
  if (values.threads !== undefined) throw new WorkbenchError('invalid-request', '--threads applies to --model-file only');
  // Over HTTP the server sets the window; --context tells the run how large it is.
  const contextTokens = positiveInteger(values.context, '--context') ?? null;
  const required = (flag: 'base-url' | 'model'): string => {
    const value = values[flag];
    if (!value) throw new WorkbenchError('invalid-request', `--${flag} is required (or --model-file for a local model): ${usage}`);
    return value;
  };
  const toolMode = values['tool-mode'] ?? 'auto';
  if (!['tools', 'text', 'auto'].includes(toolMode)) throw new WorkbenchError('invalid-request', `--tool-mode must be tools, text or auto, got "${toolMode}"`);
  const settings = parseProviderSettings({
    baseUrl: required('base-url'),
    model: required('model'),
    toolMode,
    ...(apiKey ? { apiKey } : {}),
    ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
    ...(maxTokens ? { maxTokens } : {}),
  });
  return {
    provider: createOpenAiProvider(settings),
    toolMode: toolMode === 'text' ? 'text' : 'tools',
    recordedSettings: settings,
    details: settings,
    local: null,
    contextTokens: () => Promise.resolve(contextTokens),
  };
}

/**
 * Finds out once per command, before any run, whether the endpoint holds replies to a JSON
 * schema (`response_format`), as Test connection does in the app, and records the answer in the
 * settings: every provider made from them (one per benchmark question) then asks for JSON-schema
 * replies only where they are honoured, and says truthfully in each response how it was held
 * (`constrained`), and the transcript header keeps it. A local model needs no check: its replies
 * are decoded under a grammar. Settings that already say (a saved Test connection) are kept.
 */
export async function checkStructuredOutput(model: CliModel, io: Pick<CommandIo, 'stderr'>): Promise<CliModel> {
  if (model.local) {
    io.stderr('structured output: a grammar holds every JSON reply and tool call (local model)');
    return model;
  }
  const settings = model.recordedSettings as ProviderSettings;
  const known = settings.structuredOutput?.jsonSchema;
  const honoured = known ?? (await probeJsonSchemaOutput(settings));
  const endpoint = `${settings.model} at ${redactUrl(settings.baseUrl)}`;
  if (honoured === null) {
    io.stderr(`structured output: could not check whether ${endpoint} honours JSON-schema replies; asked for, and dropped at the first refusal`);
    return model;
  }
  io.stderr(
    honoured
      ? `structured output: ${endpoint} honours JSON-schema replies (response_format): every JSON reply is asked for with its schema`
      : `structured output: ${endpoint} does not honour JSON-schema replies: JSON is asked for in the prompt and repaired when unusable`,
  );
  if (known !== undefined) return model;
  const checked: ProviderSettings = { ...settings, structuredOutput: { ...settings.structuredOutput, jsonSchema: honoured } };
  return { ...model, provider: createOpenAiProvider(checked), recordedSettings: checked, details: checked };
}
