import { APIError } from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { WorkbenchError } from '../contract/errors';
import { withDeadline } from './deadline';
import { createOpenAiClient } from './openai-client';
import { IncompleteStreamError, MalformedResponseError, toProviderError } from './provider-errors';
import { formatSeconds, parseProviderSettings, redactUrl, type ProviderSettings, type ProviderSettingsInput } from './settings';
import { StreamAssembler } from './stream-assembler';
import { createToolBlockFilter, parseTextToolCalls, toTextModeMessages } from './text-tools';
import type { GenerateOptions, ModelProvider, ModelRequest, ModelResponse } from './types';
import { chunkSchema, completionSchema, readToolCalls, readUsage, readWire, tokenLimitField, toWireMessages, toWireTools } from './wire-format';

type Answer = Omit<ModelResponse, 'latencyMs'>;
type EffectiveToolMode = 'tools' | 'text';
/** The structured-output field a request carries, if any. */
type Structure = 'tool-choice' | 'json-schema' | 'none';

/**
 * A ModelProvider for any OpenAI-compatible server (Ollama, LM Studio, llama.cpp, vLLM,
 * OpenAI), through the official SDK's chat completions. Every call is bounded by
 * `requestTimeoutMs` — retries, backoff and streaming included — and fails only with
 * WorkbenchErrors (see `toProviderError`).
 */
export function createOpenAiProvider(input: ProviderSettingsInput): ModelProvider {
  const settings = parseProviderSettings(input);
  const baseUrl = redactUrl(settings.baseUrl);
  // In `auto` mode a server that refuses native tools is switched to text mode for good.
  let learnedTextMode = false;
  // What the endpoint supports: from Test connection (settings), else learned at the first refusal.
  const supports = { 'tool-choice': settings.structuredOutput?.toolChoice, 'json-schema': settings.structuredOutput?.jsonSchema };
  let idCounter = 0;
  const newToolCallId = () => `call_${++idCounter}`;

  async function generate(request: ModelRequest, options: GenerateOptions = {}): Promise<ModelResponse> {
    if (request.messages.length === 0) throw new WorkbenchError('invalid-request', 'A model request needs at least one message.');
    const started = performance.now();
    let attempts = 0;
    const client = createOpenAiClient(settings, { onAttempt: () => attempts++, deadline: Date.now() + settings.requestTimeoutMs });
    const send = (mode: EffectiveToolMode, structure: Structure, signal: AbortSignal) =>
      requestAnswer({ client, settings, request, mode, structure, signal, onToken: options.onToken, newToolCallId });
    // Structured output where asked for and not known to be refused; a refusal (HTTP 400/422)
    // from an endpoint not known to support it is remembered, and the call made without it.
    const call = async (mode: EffectiveToolMode, signal: AbortSignal): Promise<Answer> => {
      const structure = structureFor(request, mode);
      if (structure === 'none' || supports[structure] === false) return send(mode, 'none', signal);
      try {
        return await send(mode, structure, signal);
      } catch (error) {
        if (supports[structure] === true || !refusesStructure(error)) throw error;
        supports[structure] = false;
        return send(mode, 'none', signal);
      }
    };

    try {
      const answer = await withDeadline(
        {
          timeoutMs: settings.requestTimeoutMs,
          signal: options.signal,
          timeoutMessage: `The model ${settings.model} at ${baseUrl} did not answer within ${formatSeconds(settings.requestTimeoutMs)} (the request timeout).`,
        },
        async (signal) => {
          const hasTools = (request.tools?.length ?? 0) > 0;
          const mode: EffectiveToolMode = settings.toolMode === 'text' || learnedTextMode ? 'text' : 'tools';
          try {
            return await call(mode, signal);
          } catch (error) {
            if (!(settings.toolMode === 'auto' && hasTools && mode === 'tools' && refusesTools(error))) throw error;
            const answer = await call('text', signal);
            learnedTextMode = true;
            return answer;
          }
        },
      );
      return { ...answer, latencyMs: Math.round(performance.now() - started) };
    } catch (error) {
      throw toProviderError(error, { baseUrl, model: settings.model, attempts });
    }
  }

  return { description: `${settings.model} at ${baseUrl}`, generate };
}

/** The structured output a request asks for, in a tool mode: a required tool call needs native tools. */
function structureFor(request: ModelRequest, mode: EffectiveToolMode): Structure {
  if (request.output?.kind === 'json') return 'json-schema';
  if (request.output?.kind === 'tool-call' && mode === 'tools' && (request.tools?.length ?? 0) > 0) return 'tool-choice';
  return 'none';
}

/**
 * OpenAI's strict mode takes only schemas whose every object lists all its properties as
 * required and allows no others; a looser schema is sent non-strict rather than refused.
 */
function strictCompatible(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return true;
  if (Array.isArray(schema)) return schema.every(strictCompatible);
  const node = schema as Record<string, unknown>;
  if (node.type === 'object') {
    const properties = Object.keys((node.properties ?? {}) as object);
    const required = Array.isArray(node.required) ? (node.required as string[]) : [];
    if (node.additionalProperties !== false || properties.some((name) => !required.includes(name))) return false;
  }
  return Object.values(node).every(strictCompatible);
}

function refusesStructure(error: unknown): boolean {
  return error instanceof APIError && (error.status === 400 || error.status === 422);
}

/** A 400/422, or a server error that talks about tools (llama.cpp without `--jinja`). */
function refusesTools(error: unknown): boolean {
  if (!(error instanceof APIError) || error.status === undefined) return false;
  if (error.status === 400 || error.status === 422) return true;
  return error.status >= 500 && /tool|jinja|function/i.test(error.message);
}

interface AnswerInput {
  client: ReturnType<typeof createOpenAiClient>;
  settings: ProviderSettings;
  request: ModelRequest;
  mode: EffectiveToolMode;
  structure: Structure;
  signal: AbortSignal;
  onToken: ((text: string) => void) | undefined;
  newToolCallId: () => string;
}

/** One attempt in one tool mode (the SDK may still retry it over HTTP). */
async function requestAnswer(input: AnswerInput): Promise<Answer> {
  const { settings, request, mode } = input;
  const tools = request.tools ?? [];
  const emulateTools = mode === 'text' && tools.length > 0;
  const maxTokens = request.maxTokens ?? settings.maxTokens;
  const params: ChatCompletionCreateParamsBase = {
    model: settings.model,
    messages: toWireMessages(mode === 'text' ? toTextModeMessages(request.messages, tools) : request.messages),
    temperature: request.temperature ?? settings.temperature,
    ...(tokenLimitField(settings.baseUrl) === 'max_tokens' ? { max_tokens: maxTokens } : { max_completion_tokens: maxTokens }),
    ...(mode === 'tools' && tools.length > 0 ? { tools: toWireTools(tools) } : {}),
    ...(input.structure === 'tool-choice' ? { tool_choice: 'required' as const } : {}),
    ...(input.structure === 'json-schema' && request.output?.kind === 'json'
      ? { response_format: { type: 'json_schema' as const, json_schema: { name: request.output.name, schema: request.output.schema, strict: strictCompatible(request.output.schema) } } }
      : {}),
    ...(request.stop && request.stop.length > 0 ? { stop: request.stop } : {}),
  };
  const answer = { ...(settings.stream ? await streamAnswer(input, params, emulateTools) : await fetchAnswer(input, params)), constrained: input.structure };
  if (!emulateTools) return answer;

  const parsed = parseTextToolCalls(answer.content, new Set(tools.map((tool) => tool.name)), input.newToolCallId);
  const finishReason = parsed.toolCalls.length > 0 && answer.finishReason === 'stop' ? 'tool_calls' : answer.finishReason;
  return { ...answer, content: parsed.content, toolCalls: parsed.toolCalls, finishReason };
}

async function fetchAnswer(input: AnswerInput, params: ChatCompletionCreateParamsBase): Promise<Answer> {
  const raw: unknown = await input.client.chat.completions.create({ ...params, stream: false }, { signal: input.signal });
  const completion = readWire(completionSchema, raw, 'The answer');
  const choice = completion.choices[0];
  if (!choice) throw new MalformedResponseError('The answer has no choices');
  return {
    content: choice.message.content ?? '',
    toolCalls: readToolCalls(choice.message.tool_calls, input.newToolCallId),
    finishReason: choice.finish_reason ?? 'unknown',
    usage: readUsage(completion.usage),
    model: completion.model || input.settings.model,
  };
}

async function streamAnswer(input: AnswerInput, params: ChatCompletionCreateParamsBase, emulateTools: boolean): Promise<Answer> {
  const stream = await input.client.chat.completions.create(
    { ...params, stream: true, stream_options: { include_usage: true } },
    { signal: input.signal },
  );
  const assembler = new StreamAssembler(input.newToolCallId);
  const emit = (text: string) => input.onToken?.(text);
  // In text mode the tool blocks are held back so the analyst sees prose, not JSON.
  const filter = emulateTools ? createToolBlockFilter(emit) : null;
  let chunks = 0;
  for await (const raw of stream) {
    chunks++;
    const text = assembler.add(readWire(chunkSchema, raw, `Streamed chunk ${chunks}`));
    if (text.length === 0) continue;
    if (filter) filter.push(text);
    else emit(text);
  }
  filter?.flush();
  // The SDK ends an aborted stream quietly; withDeadline turns that into timeout/cancelled.
  if (input.signal.aborted) throw input.signal.reason;

  const assembled = assembler.result();
  if (chunks === 0) throw new MalformedResponseError('The streamed answer held no chunks (is this an OpenAI-compatible server?)');
  if (assembled.finishReason === null) throw new IncompleteStreamError('ended the stream before the answer was complete (no finish reason).');
  return {
    content: assembled.content,
    toolCalls: assembled.toolCalls,
    finishReason: assembled.finishReason,
    usage: assembled.usage,
    model: assembled.model || input.settings.model,
  };
}
