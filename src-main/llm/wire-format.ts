import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { WorkbenchError } from '../contract/errors';
import { MalformedResponseError } from './provider-errors';
import type { ChatMessage, ModelUsage, ToolCall, ToolSpec } from './types';

/** Engine messages → OpenAI wire messages (native tool mode). */
export function toWireMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message, index): ChatCompletionMessageParam => {
    switch (message.role) {
      case 'system':
      case 'user':
        return { role: message.role, content: message.content };
      case 'assistant':
        if (!message.toolCalls || message.toolCalls.length === 0) return { role: 'assistant', content: message.content };
        return {
          role: 'assistant',
          // An empty string rather than null: several local servers' templates fail on null content.
          content: message.content,
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        };
      case 'tool':
        if (!message.toolCallId) throw new WorkbenchError('invalid-request', `Message ${index} is a tool result without a toolCallId.`);
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    }
  });
}

export function toWireTools(tools: ToolSpec[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/**
 * OpenAI's newer models refuse `max_tokens`, while most local servers only know it; the
 * official endpoint gets `max_completion_tokens`, every other server `max_tokens`.
 */
export function tokenLimitField(baseUrl: string): 'max_tokens' | 'max_completion_tokens' {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens';
  } catch {
    return 'max_tokens';
  }
}

// Lenient readers of what servers send: only the fields used here are required, so servers
// that add or omit other fields still work, and a garbage answer is named precisely.

const usageSchema = z
  .object({ prompt_tokens: z.number().nullish(), completion_tokens: z.number().nullish(), total_tokens: z.number().nullish() })
  .nullish();

const wireToolCallSchema = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({ name: z.string(), arguments: z.string().nullish() }),
});

/** A non-streamed `chat.completion`. */
export const completionSchema = z.object({
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish(), tool_calls: z.array(wireToolCallSchema).nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1, 'no choices'),
  usage: usageSchema,
});

/** One streamed `chat.completion.chunk`. */
export const chunkSchema = z.object({
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().int().nonnegative().nullish(),
                  id: z.string().nullish(),
                  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: usageSchema,
});
/** A streamed chunk as read (only the fields used here). */
export type WireChunk = z.infer<typeof chunkSchema>;
/** One streamed piece of a tool call. */
export type WireToolCallDelta = NonNullable<NonNullable<NonNullable<WireChunk['choices']>[number]['delta']>['tool_calls']>[number];

/** Parses with a schema, or throws a MalformedResponseError naming the first problem. */
export function readWire<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  if (typeof value === 'string') throw new MalformedResponseError(`${what} is text, not JSON: ${preview(value)}`);
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw new MalformedResponseError(`${what} is malformed (${path}${issue?.message ?? 'unknown problem'})`);
}

export function readUsage(usage: z.infer<typeof usageSchema>): ModelUsage | null {
  if (!usage || typeof usage.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return null;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
  };
}

/** Wire tool calls → ToolCalls; servers that send no id get a generated one. */
export function readToolCalls(calls: z.infer<typeof wireToolCallSchema>[] | null | undefined, newId: () => string): ToolCall[] {
  return (calls ?? []).map((call) => ({ id: call.id || newId(), name: call.function.name, arguments: call.function.arguments ?? '' }));
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat || '(empty)';
}
