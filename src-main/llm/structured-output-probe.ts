import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { withDeadline } from './deadline';
import { createOpenAiClient } from './openai-client';
import { formatSeconds, redactUrl, type ProviderSettings } from './settings';
import { completionSchema, readWire, tokenLimitField } from './wire-format';

/** The schema's name, so a log (or a test server) can tell the probe from a run's own calls. */
export const structuredOutputProbeName = 'dwb_structured_output_probe';
/** The one value the schema allows. The prompt never names it, so only a server that enforces the schema writes it. */
export const structuredOutputProbeValue = 'schema-enforced';

const probeSchema = {
  type: 'object',
  properties: { check: { type: 'string', enum: [structuredOutputProbeValue] } },
  required: ['check'],
  additionalProperties: false,
} as const;

/**
 * Whether an OpenAI-compatible endpoint holds replies to a `response_format` JSON schema: one
 * small request whose prompt asks for something else ("Say hello") and whose schema allows one
 * value the prompt never mentions. A server that enforces the schema answers with that value;
 * one that ignores `response_format` answers the prompt; one that refuses it answers 4xx.
 * Returns null when the question could not be settled (a timeout, the server unreachable), so
 * the provider keeps its default (ask, and learn at the first refusal). Never throws.
 */
export async function probeJsonSchemaOutput(settings: ProviderSettings): Promise<boolean | null> {
  const client = createOpenAiClient(settings, { maxRetries: 0 });
  const request: ChatCompletionCreateParamsNonStreaming = {
    model: settings.model,
    messages: [{ role: 'user', content: 'Say hello.' }],
    temperature: 0,
    ...(tokenLimitField(settings.baseUrl) === 'max_tokens' ? { max_tokens: 32 } : { max_completion_tokens: 32 }),
    response_format: { type: 'json_schema', json_schema: { name: structuredOutputProbeName, schema: probeSchema, strict: true } },
  };
  try {
    const completion = await withDeadline(
      { timeoutMs: settings.requestTimeoutMs, timeoutMessage: `No answer from ${redactUrl(settings.baseUrl)} within ${formatSeconds(settings.requestTimeoutMs)}.` },
      async (signal) => readWire(completionSchema, await client.chat.completions.create(request, { signal }), 'The answer'),
    );
    return readsAsEnforced(completion.choices[0]?.message.content ?? '');
  } catch (error) {
    // A 400/422 is the server refusing `response_format`; anything else (a bad key, a timeout) says nothing about it.
    const status = (error as { status?: unknown }).status;
    return status === 400 || status === 422 ? false : null;
  }
}

function readsAsEnforced(content: string): boolean {
  try {
    return (JSON.parse(content) as { check?: unknown }).check === structuredOutputProbeValue;
  } catch {
    return false;
  }
}
