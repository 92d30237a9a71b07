import type { ChatMessage, ToolCall, ToolSpec } from './types';

/**
 * Tool calling for servers or models without native support: the tools are described in the
 * system prompt, the model answers with fenced `tool_call` blocks, and this module turns the
 * blocks back into ToolCalls — so the engine sees the same ModelResponse in every tool mode.
 *
 *     ```tool_call
 *     {"name": "run_query", "arguments": {"sql": "SELECT 1"}}
 *     ```
 */

export const toolBlockFence = '```tool_call';
const closingFence = '```';

/** The instructions appended to the system prompt in text mode. */
export function renderToolInstructions(tools: ToolSpec[]): string {
  const sections = tools.map(
    (tool) => `## ${tool.name}\n${tool.description}\nArguments (JSON schema): ${JSON.stringify(tool.parameters)}`,
  );
  return [
    '# Tools',
    'You can call the tools below. To call one, write a block exactly like this and then stop writing:',
    `${toolBlockFence}\n{"name": "<tool name>", "arguments": {<arguments as JSON>}}\n${closingFence}`,
    'Write one block per call; you may write several. The results come back in the next message.',
    'When you need no tool, answer normally, without any such block.',
    ...sections,
  ].join('\n\n');
}

/**
 * Rewrites a conversation for a server that knows no tools: the tool instructions join the
 * system prompt, earlier calls are written back as blocks, and tool results become user
 * messages. Adjacent user messages are merged because many chat templates insist that roles
 * alternate.
 */
export function toTextModeMessages(messages: ChatMessage[], tools: ToolSpec[]): ChatMessage[] {
  const callNames = new Map<string, string>();
  const converted: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) callNames.set(call.id, call.name);
      const blocks = (message.toolCalls ?? []).map(renderToolBlock);
      converted.push({ role: 'assistant', content: [message.content, ...blocks].filter((part) => part.length > 0).join('\n\n') });
    } else if (message.role === 'tool') {
      const id = message.toolCallId ?? 'unknown';
      const name = callNames.get(id) ?? 'tool';
      converted.push({ role: 'user', content: `Result of ${name} (call ${id}):\n${message.content}` });
    } else {
      converted.push({ role: message.role, content: message.content });
    }
  }
  const withInstructions = tools.length > 0 ? addToSystemPrompt(converted, renderToolInstructions(tools)) : converted;
  return mergeAdjacentUserMessages(withInstructions);
}

function renderToolBlock(call: ToolCall): string {
  return `${toolBlockFence}\n{"name": ${JSON.stringify(call.name)}, "arguments": ${call.arguments.trim() || '{}'}}\n${closingFence}`;
}

function addToSystemPrompt(messages: ChatMessage[], instructions: string): ChatMessage[] {
  const first = messages[0];
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${instructions}` }, ...messages.slice(1)];
  return [{ role: 'system', content: instructions }, ...messages];
}

function mergeAdjacentUserMessages(messages: ChatMessage[]): ChatMessage[] {
  const merged: ChatMessage[] = [];
  for (const message of messages) {
    const previous = merged[merged.length - 1];
    if (previous?.role === 'user' && message.role === 'user') previous.content = `${previous.content}\n\n${message.content}`;
    else merged.push({ ...message });
  }
  return merged;
}

/** What was read out of a text-mode answer. */
export interface ParsedTextAnswer {
  /** The answer with the recognised tool blocks removed. */
  content: string;
  toolCalls: ToolCall[];
}

/**
 * Reads tool calls out of a text-mode answer. Recognised: `tool_call` fenced blocks, and — as
 * small models often do — an answer that is nothing but one JSON object (bare or in a `json`
 * fence) naming a known tool. A block that is not valid JSON stays in the content, so the
 * engine sees what the model wrote instead of losing it.
 */
export function parseTextToolCalls(text: string, toolNames: ReadonlySet<string>, newId: () => string): ParsedTextAnswer {
  const toolCalls: ToolCall[] = [];
  const content = text.replace(/```tool_call[^\n]*\n?([\s\S]*?)```/g, (block: string, body: string) => {
    const call = readCallObject(body, newId);
    if (!call) return block;
    toolCalls.push(call);
    return '';
  });
  if (toolCalls.length > 0) return { content: content.trim(), toolCalls };

  const whole = /^\s*(?:```(?:json)?\s*\n)?(\{[\s\S]*\})\s*(?:```)?\s*$/.exec(text);
  const call = whole?.[1] ? readCallObject(whole[1], newId) : null;
  if (call && toolNames.has(call.name)) return { content: '', toolCalls: [call] };
  return { content: text, toolCalls: [] };
}

function readCallObject(json: string, newId: () => string): ToolCall | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || !('name' in value) || typeof value.name !== 'string') return null;
  const args: unknown = 'arguments' in value ? value.arguments : {};
  return { id: newId(), name: value.name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) };
}

/**
 * Streams text-mode tokens without the tool blocks, so the UI shows the prose and not the
 * JSON. Text that might be the start of a fence is held back until it is known not to be one.
 */
export function createToolBlockFilter(emit: (text: string) => void): { push(text: string): void; flush(): void } {
  let pending = '';
  let insideBlock = false;
  const push = (text: string) => {
    pending += text;
    for (;;) {
      if (insideBlock) {
        const close = pending.indexOf(closingFence);
        if (close < 0) {
          pending = pending.slice(-(closingFence.length - 1));
          return;
        }
        pending = pending.slice(close + closingFence.length);
        insideBlock = false;
        continue;
      }
      const open = pending.indexOf(toolBlockFence);
      if (open >= 0) {
        if (open > 0) emit(pending.slice(0, open));
        pending = pending.slice(open + toolBlockFence.length);
        insideBlock = true;
        continue;
      }
      const keep = longestFencePrefixAtEnd(pending);
      const ready = pending.slice(0, pending.length - keep);
      if (ready.length > 0) emit(ready);
      pending = pending.slice(pending.length - keep);
      return;
    }
  };
  const flush = () => {
    if (!insideBlock && pending.length > 0) emit(pending);
    pending = '';
  };
  return { push, flush };
}

function longestFencePrefixAtEnd(text: string): number {
  for (let length = Math.min(text.length, toolBlockFence.length - 1); length > 0; length--) {
    if (toolBlockFence.startsWith(text.slice(-length))) return length;
  }
  return 0;
}
