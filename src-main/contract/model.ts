import { z } from 'zod';

/**
 * How tools reach the model:
 * - `tools`: the server's native tool calling (`tools` in the request, `tool_calls` back);
 * - `text`: tools are described in the system prompt and calls are read back from fenced
 *   blocks in the answer, for servers or models without native tool calling;
 * - `auto`: native first; if the server rejects a request with tools (HTTP 400) the same
 *   request is retried in text mode, and text mode is kept once that succeeds.
 */
export const toolModes = ['tools', 'text', 'auto'] as const;
/** One of `toolModes`. */
export type ToolMode = (typeof toolModes)[number];

/**
 * True when a base URL carries what could be a credential: a user name or password
 * (`http://user:secret@host/`), any query string (`?api_key=…`, `?key=…`) or any fragment
 * (`#…`). An API root needs none of them, and each would be stored, logged and shown with
 * the URL; a `?` or `#` anywhere counts, even with nothing after it.
 */
export function urlHasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '' || url.includes('?') || url.includes('#');
  } catch {
    return false;
  }
}

/** Said when a base URL carries credentials; never quotes the URL, which holds the secret. */
export const credentialsInUrlMessage =
  'baseUrl must not contain a user name or password (user:secret@), a query string (?api_key=…) or a fragment (#…): remove them and give the key as the API key, which is kept in the secret store';

/** Settings of one OpenAI-compatible model server, as stored and as edited in settings. */
export const providerSettingsSchema = z.object({
  /**
   * API root, e.g. `http://127.0.0.1:11434/v1` (the part before `/chat/completions`). Never with
   * credentials, a query or a fragment: the URL is stored and shown in plain text.
   */
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'baseUrl must be an http(s) URL such as http://127.0.0.1:11434/v1' })
    .refine((url) => !urlHasCredentials(url), { error: credentialsInUrlMessage, abort: true }),
  model: z.string().trim().min(1, 'model must name the model to use'),
  /** Local servers need none; hosted ones do. Never written to transcripts or logs. */
  apiKey: z.string().optional(),
  temperature: z.number().min(0).max(2).default(0.2),
  maxTokens: z.number().int().positive().default(2048),
  /** Upper bound of one whole `generate` call: connection, retries, backoff and streaming. */
  requestTimeoutMs: z.number().int().positive().max(3_600_000).default(120_000),
  /** Extra attempts after a 408/409/429/5xx answer or a network error (the SDK's retries). */
  maxRetries: z.number().int().min(0).max(10).default(2),
  stream: z.boolean().default(true),
  toolMode: z.enum(toolModes).default('auto'),
  /**
   * Structured output this endpoint was found to support by Test connection (`tool_choice:
   * "required"`, `response_format` with a JSON schema). Absent: not known yet — asked for, and
   * dropped for good at the first refusal. False: never asked for (today's repair turns). Either
   * may be absent alone: the CLI checks only JSON-schema replies (`llm/structured-output-probe.ts`).
   */
  structuredOutput: z.object({ toolChoice: z.boolean().optional(), jsonSchema: z.boolean().optional() }).optional(),
});

/** Parsed settings: every field present, defaults applied. */
export type ProviderSettings = z.output<typeof providerSettingsSchema>;
/** Settings as a caller may write them: fields with defaults may be left out. */
export type ProviderSettingsInput = z.input<typeof providerSettingsSchema>;
/** What may be shown or recorded: everything but the key. */
export type PublicProviderSettings = Omit<ProviderSettings, 'apiKey'>;

/** A starting point for the settings form: a local server or OpenAI. */
export const providerPresetSchema = z.object({
  id: z.string(),
  /** `endpoint`: an OpenAI-compatible server at `baseUrl`; `local`: a GGUF file from the model manager (no URL). */
  kind: z.enum(['endpoint', 'local']),
  label: z.string(),
  baseUrl: z.string(),
  exampleModel: z.string(),
  requiresApiKey: z.boolean(),
  note: z.string(),
});
export type ProviderPresetInfo = z.infer<typeof providerPresetSchema>;

/** The model settings as the UI sees them: never the key itself, only whether one is stored. */
export const modelSettingsViewSchema = z.object({
  settings: providerSettingsSchema.omit({ apiKey: true }).nullable(),
  hasApiKey: z.boolean(),
  /** False in browser mode: a key lasts until the server stops, and is never written to disk. */
  secretsPersistent: z.boolean(),
  /** Said once after opening a workspace whose stored base URL held credentials, which were removed. */
  notice: z.string().optional(),
  presets: z.array(providerPresetSchema),
});
export type ModelSettingsView = z.infer<typeof modelSettingsViewSchema>;

export const connectionReportSchema = z.object({
  ok: z.boolean(),
  models: z.array(z.string()).optional(),
  latencyMs: z.number(),
  supportsTools: z.union([z.boolean(), z.literal('unknown')]),
  /** What structured output the endpoint honoured; absent when the connection failed. */
  structuredOutput: z.object({ toolChoice: z.boolean(), jsonSchema: z.boolean() }).optional(),
  message: z.string(),
});
export type ConnectionReport = z.infer<typeof connectionReportSchema>;
