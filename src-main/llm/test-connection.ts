import { APIError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { withDeadline } from './deadline';
import { createOpenAiClient } from './openai-client';
import { toProviderError } from './provider-errors';
import { formatSeconds, parseProviderSettings, redactUrl, type ProviderSettings, type ProviderSettingsInput } from './settings';
import { completionSchema, readWire, tokenLimitField } from './wire-format';

/** What the "Test connection" button shows. */
export interface ConnectionReport {
  /** True when the configured model answered a tiny completion. */
  ok: boolean;
  /** Model ids from `GET /models`; absent when the server does not list models or the call failed. */
  models?: string[];
  /** Time of the tiny completion (or of the failed step). */
  latencyMs: number;
  /** Whether a request with a tool got a tool call back; 'unknown' when it could not be tried. */
  supportsTools: boolean | 'unknown';
  /**
   * Structured output the endpoint honoured: `tool_choice: "required"` answered with a tool
   * call, `response_format` with a JSON schema answered with JSON of that schema. Absent when
   * the connection failed. Saved with the settings, so runs ask for it only where it works.
   */
  structuredOutput?: { toolChoice: boolean; jsonSchema: boolean };
  /** One paragraph for the analyst. */
  message: string;
}

const probeTool = {
  type: 'function',
  function: {
    name: 'report_status',
    description: 'Reports that the connection works.',
    parameters: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
  },
} as const;

/**
 * Checks settings against the live server in three steps: list models, one tiny completion,
 * one request with a trivial tool. Tries each request once (no retries), so the button
 * answers quickly; each step is bounded by `requestTimeoutMs`. Never throws.
 */
export async function testProviderConnection(input: ProviderSettingsInput): Promise<ConnectionReport> {
  let settings: ProviderSettings;
  try {
    settings = parseProviderSettings(input);
  } catch (error) {
    return { ok: false, latencyMs: 0, supportsTools: 'unknown', message: error instanceof Error ? error.message : String(error) };
  }
  const baseUrl = redactUrl(settings.baseUrl);
  const client = createOpenAiClient(settings, { maxRetries: 0 });
  const bounded = <T>(work: (signal: AbortSignal) => Promise<T>) =>
    withDeadline({ timeoutMs: settings.requestTimeoutMs, timeoutMessage: `No answer from ${baseUrl} within ${formatSeconds(settings.requestTimeoutMs)}.` }, work);
  const failure = (error: unknown) => toProviderError(error, { baseUrl, model: settings.model, attempts: 1 }).message;

  const listing = await bounded(async (signal) => {
    const page = await client.models.list({ signal });
    return page.data.map((model) => model.id);
  }).then(
    (models) => ({ models, problem: null }),
    (error: unknown) => ({ models: undefined, problem: error }),
  );
  // A refused connection will not get better for the completion: stop here.
  if (listing.problem && !(listing.problem instanceof APIError && listing.problem.status !== undefined)) {
    return { ok: false, latencyMs: 0, supportsTools: 'unknown', message: failure(listing.problem) };
  }

  const base: ChatCompletionCreateParamsNonStreaming = {
    model: settings.model,
    messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
    temperature: 0,
    ...(tokenLimitField(settings.baseUrl) === 'max_tokens' ? { max_tokens: 16 } : { max_completion_tokens: 16 }),
  };
  const started = performance.now();
  try {
    await bounded(async (signal) => readWire(completionSchema, await client.chat.completions.create(base, { signal }), 'The answer'));
  } catch (error) {
    return { ok: false, models: listing.models, latencyMs: Math.round(performance.now() - started), supportsTools: 'unknown', message: failure(error) };
  }
  const latencyMs = Math.round(performance.now() - started);

  const tools = await probeTools(client, base, bounded);
  const jsonSchema = await probeJsonSchema(client, base, bounded);
  const structuredOutput = { toolChoice: tools.toolChoice, jsonSchema };
  return {
    ok: true,
    models: listing.models,
    latencyMs,
    supportsTools: tools.supportsTools,
    structuredOutput,
    message: summary(settings, baseUrl, latencyMs, listing.models, tools.supportsTools, structuredOutput),
  };
}

const probeSchema = { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } }, required: ['status'], additionalProperties: false } as const;

/** Whether `response_format: json_schema` is accepted and answered with JSON of the schema. */
async function probeJsonSchema(
  client: ReturnType<typeof createOpenAiClient>,
  base: ChatCompletionCreateParamsNonStreaming,
  bounded: <T>(work: (signal: AbortSignal) => Promise<T>) => Promise<T>,
): Promise<boolean> {
  const request: ChatCompletionCreateParamsNonStreaming = {
    ...base,
    messages: [{ role: 'user', content: 'Reply with the JSON object {"status": "ok"}.' }],
    response_format: { type: 'json_schema', json_schema: { name: 'status_report', schema: probeSchema, strict: true } },
  };
  try {
    const completion = await bounded(async (signal) => readWire(completionSchema, await client.chat.completions.create(request, { signal }), 'The answer'));
    const parsed = JSON.parse(completion.choices[0]?.message.content ?? '') as { status?: unknown };
    return parsed.status === 'ok';
  } catch {
    // A refusal, or an answer that ignored the schema: not supported for the purpose of runs.
    return false;
  }
}

async function probeTools(
  client: ReturnType<typeof createOpenAiClient>,
  base: ChatCompletionCreateParamsNonStreaming,
  bounded: <T>(work: (signal: AbortSignal) => Promise<T>) => Promise<T>,
): Promise<{ supportsTools: boolean | 'unknown'; toolChoice: boolean }> {
  const request: ChatCompletionCreateParamsNonStreaming = {
    ...base,
    messages: [{ role: 'user', content: 'Call the report_status tool with status "ok".' }],
    tools: [probeTool],
  };
  // `required` makes the answer unambiguous, but some servers know tools and not `required`:
  // after a refusal the probe is asked once more with the default choice.
  for (const toolChoice of ['required', undefined] as const) {
    try {
      const probe = toolChoice ? { ...request, tool_choice: toolChoice } : request;
      const completion = await bounded(async (signal) => readWire(completionSchema, await client.chat.completions.create(probe, { signal }), 'The answer'));
      const called = (completion.choices[0]?.message.tool_calls?.length ?? 0) > 0;
      return { supportsTools: called, toolChoice: called && toolChoice === 'required' };
    } catch (error) {
      // A 4xx is the server refusing tools; anything else (timeout, 5xx) says nothing about tools.
      if (!(error instanceof APIError && error.status !== undefined && error.status >= 400 && error.status < 500)) return { supportsTools: 'unknown', toolChoice: false };
    }
  }
  return { supportsTools: false, toolChoice: false };
}

function summary(
  settings: ProviderSettings,
  baseUrl: string,
  latencyMs: number,
  models: string[] | undefined,
  supportsTools: boolean | 'unknown',
  structured: { toolChoice: boolean; jsonSchema: boolean },
): string {
  const parts = [`Connected to ${baseUrl}: ${settings.model} answered in ${latencyMs} ms.`];
  if (models) {
    parts.push(`The server lists ${models.length} model${models.length === 1 ? '' : 's'}.`);
    if (models.length > 0 && !models.includes(settings.model)) parts.push(`"${settings.model}" is not among them (${models.slice(0, 5).join(', ')}${models.length > 5 ? ', …' : ''}).`);
  }
  if (supportsTools === true) parts.push('Native tool calling works.');
  else if (supportsTools === false)
    parts.push(settings.toolMode === 'tools' ? 'Native tool calling does not work here: choose tool mode "auto" or "text".' : 'No native tool calling: tools will be described in the prompt (text mode).');
  else parts.push('Tool calling could not be checked.');
  const kinds = [structured.toolChoice ? 'required tool calls' : null, structured.jsonSchema ? 'JSON-schema replies' : null].filter((kind) => kind !== null);
  parts.push(kinds.length > 0 ? `Structured output: ${kinds.join(' and ')}.` : 'No structured output: unusable replies are repaired by asking again.');
  return parts.join(' ');
}
