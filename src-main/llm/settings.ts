import { z } from 'zod';
import { WorkbenchError } from '../contract/errors';

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

/** Settings of one OpenAI-compatible model server, as stored and as edited in settings. */
export const providerSettingsSchema = z.object({
  /** API root, e.g. `http://127.0.0.1:11434/v1` (the part before `/chat/completions`). */
  baseUrl: z.url({ protocol: /^https?$/, error: 'baseUrl must be an http(s) URL such as http://127.0.0.1:11434/v1' }),
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
});

/** Parsed settings: every field present, defaults applied. */
export type ProviderSettings = z.output<typeof providerSettingsSchema>;
/** Settings as a caller may write them: fields with defaults may be left out. */
export type ProviderSettingsInput = z.input<typeof providerSettingsSchema>;
/** What may be shown or recorded: everything but the key. */
export type PublicProviderSettings = Omit<ProviderSettings, 'apiKey'>;

/** Validates settings, with an `invalid-request` error naming the first bad field. */
export function parseProviderSettings(input: unknown): ProviderSettings {
  const parsed = providerSettingsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw new WorkbenchError('invalid-request', `Invalid model settings: ${where}${issue?.message ?? 'unknown problem'}`);
}

/** Settings without the API key, and without credentials written into the URL. */
export function publicSettings(settings: ProviderSettings): PublicProviderSettings {
  const { apiKey: _apiKey, ...rest } = settings;
  return { ...rest, baseUrl: redactUrl(settings.baseUrl) };
}

/** A URL safe to show: `user:password@` removed, no trailing slash. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** `300` → `0.3 s`, `120000` → `120 s`: timeouts are shown in seconds, as the analyst sets them. */
export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : Number(seconds.toFixed(seconds < 10 ? 2 : 1))} s`;
}
