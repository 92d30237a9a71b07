import type { ModelUsage, ToolCall } from './types';
import { readUsage, type WireChunk, type WireToolCallDelta } from './wire-format';

/** Everything one streamed answer added up to. */
export interface AssembledStream {
  content: string;
  toolCalls: ToolCall[];
  /** Null when no chunk carried a finish reason (the stream was cut short). */
  finishReason: string | null;
  usage: ModelUsage | null;
  model: string | null;
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Adds up `chat.completion.chunk`s: content deltas in order, tool calls from their argument
 * pieces (keyed by the delta's `index`), the finish reason, and usage wherever it comes
 * (OpenAI sends it in a final chunk without choices; llama.cpp alongside the finish reason).
 */
export class StreamAssembler {
  private content = '';
  private readonly calls: PartialCall[] = [];
  private finishReason: string | null = null;
  private usage: ModelUsage | null = null;
  private model: string | null = null;

  constructor(private readonly newId: () => string) {}

  /** Adds a chunk and returns the content text it carried ('' if none), for `onToken`. */
  add(chunk: WireChunk): string {
    if (chunk.model) this.model = chunk.model;
    const usage = readUsage(chunk.usage);
    if (usage) this.usage = usage;
    let text = '';
    // Only the first choice is used: requests never ask for n > 1.
    const choice = chunk.choices?.[0];
    if (!choice) return text;
    if (choice.delta?.content) {
      text = choice.delta.content;
      this.content += text;
    }
    for (const delta of choice.delta?.tool_calls ?? []) this.addToolCallDelta(delta);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return text;
  }

  private addToolCallDelta(delta: WireToolCallDelta): void {
    // Servers that omit `index` send each call whole, or continue the last one without an id.
    const index = delta.index ?? (delta.id && !this.calls.some((call) => call.id === delta.id) ? this.calls.length : Math.max(0, this.calls.length - 1));
    const call = (this.calls[index] ??= { id: '', name: '', arguments: '' });
    if (delta.id && !call.id) call.id = delta.id;
    // The name comes whole in the first delta; some servers repeat it, so it is set only once.
    if (delta.function?.name && !call.name) call.name = delta.function.name;
    if (delta.function?.arguments) call.arguments += delta.function.arguments;
  }

  result(): AssembledStream {
    return {
      content: this.content,
      toolCalls: this.calls.filter((call) => call !== undefined).map((call) => ({ id: call.id || this.newId(), name: call.name, arguments: call.arguments })),
      finishReason: this.finishReason,
      usage: this.usage,
      model: this.model,
    };
  }
}
