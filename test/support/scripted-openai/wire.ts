import type { ScriptedTurn, ScriptedUsage, WireChatRequest } from './script';

/**
 * The wire objects real OpenAI-compatible servers send: a `chat.completion` for a plain
 * request; for a streamed one a sequence of `chat.completion.chunk`s — the role, the content
 * pieces, each tool call's header and then its argument pieces, the finish reason, and (when
 * `stream_options.include_usage`) a last chunk with empty choices and the usage.
 */

interface ResolvedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A turn's answer with every default applied. */
export interface ResolvedAnswer {
  id: string;
  created: number;
  model: string;
  content: string;
  contentChunks: string[];
  toolCalls: ResolvedToolCall[];
  argumentChunkSize: number;
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

export function resolveAnswer(turn: ScriptedTurn, request: WireChatRequest, turnIndex: number): ResolvedAnswer {
  const content = turn.content ?? turn.contentChunks?.join('') ?? '';
  const toolCalls = (turn.toolCalls ?? []).map((call, position) => ({
    id: call.id ?? `call_${turnIndex}_${position}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  return {
    id: `chatcmpl-scripted-${turnIndex}`,
    created: Math.floor(Date.now() / 1000),
    model: turn.model ?? request.model,
    content,
    contentChunks: turn.contentChunks ?? content.match(/\S+\s*|\s+/g) ?? [],
    toolCalls,
    argumentChunkSize: Math.max(1, turn.argumentChunkSize ?? 7),
    finishReason: turn.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: turn.usage === null ? null : wireUsage(turn.usage ?? estimateUsage(request, content, toolCalls)),
  };
}

function estimateUsage(request: WireChatRequest, content: string, toolCalls: ResolvedToolCall[]): ScriptedUsage {
  const promptCharacters = JSON.stringify(request.messages).length + JSON.stringify(request.tools ?? []).length;
  const completionCharacters = content.length + toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
  return { promptTokens: Math.ceil(promptCharacters / 4), completionTokens: Math.max(1, Math.ceil(completionCharacters / 4)) };
}

function wireUsage(usage: ScriptedUsage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens ?? usage.promptTokens + usage.completionTokens,
  };
}

/** The `chat.completion` object of a non-streamed answer. */
export function completionObject(answer: ResolvedAnswer): Record<string, unknown> {
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    system_fingerprint: 'fp_scripted',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          // Like OpenAI: null content when the answer is only tool calls.
          content: answer.content.length === 0 && answer.toolCalls.length > 0 ? null : answer.content,
          refusal: null,
          ...(answer.toolCalls.length > 0
            ? { tool_calls: answer.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) }
            : {}),
        },
        logprobs: null,
        finish_reason: answer.finishReason,
      },
    ],
    ...(answer.usage ? { usage: answer.usage } : {}),
  };
}

/** The `chat.completion.chunk` objects of a streamed answer, in sending order. */
export function chunkObjects(answer: ResolvedAnswer, includeUsage: boolean): Record<string, unknown>[] {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: answer.id,
    object: 'chat.completion.chunk',
    created: answer.created,
    model: answer.model,
    system_fingerprint: 'fp_scripted',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    // OpenAI sends `usage: null` on every chunk but the last when usage was asked for.
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks: Record<string, unknown>[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of answer.contentChunks) chunks.push(chunk({ content: piece }));
  answer.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (let start = 0; start < call.arguments.length; start += answer.argumentChunkSize) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(start, start + answer.argumentChunkSize) } }] }));
    }
  });
  chunks.push(chunk({}, answer.finishReason));
  if (includeUsage && answer.usage) {
    chunks.push({ id: answer.id, object: 'chat.completion.chunk', created: answer.created, model: answer.model, system_fingerprint: 'fp_scripted', choices: [], usage: answer.usage });
  }
  return chunks;
}

/** One server-sent event carrying a JSON payload. */
export function sseEvent(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

export const sseDone = 'data: [DONE]\n\n';

/** The OpenAI error body. */
export function errorBody(status: number, message: string): Record<string, unknown> {
  const type = status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_request_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param: null, code: status === 401 ? 'invalid_api_key' : null } };
}
