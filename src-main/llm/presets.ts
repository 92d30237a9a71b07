import { parseProviderSettings, type ProviderSettings, type ProviderSettingsInput } from './settings';

/** Identifiers of the known OpenAI-compatible servers. */
export const presetIds = ['ollama', 'lm-studio', 'llama-cpp', 'vllm', 'openai'] as const;
/** One of `presetIds`. */
export type PresetId = (typeof presetIds)[number];

/** A starting point for the settings form: everything but the model (and, for OpenAI, the key). */
export interface ProviderPreset {
  id: PresetId;
  label: string;
  /** Settings this preset fills in; `model` is chosen by the analyst. */
  defaults: Omit<ProviderSettings, 'model' | 'apiKey'>;
  /** A model name to show as a placeholder; servers list what they really have (`GET /models`). */
  exampleModel: string;
  requiresApiKey: boolean;
  /** One line of advice shown next to the preset. */
  note: string;
}

// Local servers can take minutes to load a model on its first call, hence the long timeouts;
// `auto` tool mode copes with servers or models that have no native tool calling. OpenAI always
// has native tools, and there a 400 means a real problem, not a missing feature: mode `tools`.
const localDefaults = {
  temperature: 0.2,
  maxTokens: 2048,
  requestTimeoutMs: 300_000,
  maxRetries: 2,
  stream: true,
  toolMode: 'auto',
} as const satisfies Omit<ProviderSettings, 'model' | 'apiKey' | 'baseUrl'>;

/** The known servers, in the order the settings form lists them. */
export const providerPresets: readonly ProviderPreset[] = [
  {
    id: 'ollama',
    label: 'Ollama',
    defaults: { ...localDefaults, baseUrl: 'http://127.0.0.1:11434/v1' },
    exampleModel: 'qwen2.5:7b-instruct',
    requiresApiKey: false,
    note: 'Pull the model first (`ollama pull <model>`); tool calling depends on the model.',
  },
  {
    id: 'lm-studio',
    label: 'LM Studio',
    defaults: { ...localDefaults, baseUrl: 'http://127.0.0.1:1234/v1' },
    exampleModel: 'qwen2.5-7b-instruct',
    requiresApiKey: false,
    note: 'Start the local server in the Developer tab and load a model.',
  },
  {
    id: 'llama-cpp',
    label: 'llama.cpp server',
    defaults: { ...localDefaults, baseUrl: 'http://127.0.0.1:8080/v1' },
    exampleModel: 'default',
    requiresApiKey: false,
    note: 'Native tool calling needs `llama-server --jinja`; otherwise text mode is used.',
  },
  {
    id: 'vllm',
    label: 'vLLM',
    defaults: { ...localDefaults, baseUrl: 'http://127.0.0.1:8000/v1' },
    exampleModel: 'Qwen/Qwen2.5-7B-Instruct',
    requiresApiKey: false,
    note: 'Native tool calling needs `--enable-auto-tool-choice --tool-call-parser <parser>`.',
  },
  {
    id: 'openai',
    label: 'OpenAI',
    defaults: { ...localDefaults, baseUrl: 'https://api.openai.com/v1', maxTokens: 4096, requestTimeoutMs: 120_000, toolMode: 'tools' },
    exampleModel: 'gpt-4.1-mini',
    requiresApiKey: true,
    note: 'Needs an API key; data leaves this machine.',
  },
];

/**
 * The model the workbench runs itself: a GGUF file from the model manager, in its own process,
 * every reply decoded under the tools' grammar. Listed beside the servers; it has no URL.
 */
export const localModelPreset = {
  id: 'local',
  label: 'Local model',
  note: 'A GGUF file on this computer, run by the workbench itself (no server, nothing downloaded); every reply is held to the tool schemas.',
} as const;

export function findPreset(id: PresetId): ProviderPreset {
  const preset = providerPresets.find((candidate) => candidate.id === id);
  if (!preset) throw new Error(`Unknown preset ${id}`);
  return preset;
}

/** Complete, validated settings from a preset plus the analyst's choices (model, key, overrides). */
export function settingsFromPreset(id: PresetId, choices: Pick<ProviderSettingsInput, 'model'> & Partial<ProviderSettingsInput>): ProviderSettings {
  return parseProviderSettings({ ...findPreset(id).defaults, ...choices });
}
