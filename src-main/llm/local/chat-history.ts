import type { ChatMessage, ToolSpec } from '../types';
import type { ChatHistoryEntry } from './protocol';

/**
 * The engine's conversation → the chat history the model's own template renders. The tools
 * are described in the system prompt; an earlier call is written back exactly as the grammar
 * makes the model write one (`{"tool": …, "arguments": …}`), and tool results become user
 * turns, so the model sees its own format in the history. The last entry is the empty reply
 * the model writes.
 */
export function toChatHistory(messages: ChatMessage[], tools: readonly ToolSpec[]): ChatHistoryEntry[] {
  const callNames = new Map<string, string>();
  const history: ChatHistoryEntry[] = [];
  const pushUser = (text: string): void => {
    const last = history[history.length - 1];
    // Chat templates insist that user and model turns alternate.
    if (last?.type === 'user') last.text = `${last.text}\n\n${text}`;
    else history.push({ type: 'user', text });
  };
  for (const message of messages) {
    if (message.role === 'system') history.push({ type: 'system', text: message.content });
    else if (message.role === 'user') pushUser(message.content);
    else if (message.role === 'tool') {
      const name = callNames.get(message.toolCallId ?? '') ?? 'tool';
      pushUser(`Result of ${name}:\n${message.content}`);
    } else {
      for (const call of message.toolCalls ?? []) callNames.set(call.id, call.name);
      const calls = (message.toolCalls ?? []).map((call) => `{"tool": ${JSON.stringify(call.name)}, "arguments": ${call.arguments.trim() || '{}'}}`);
      const text = [message.content, ...calls].filter((part) => part.trim().length > 0).join('\n');
      const last = history[history.length - 1];
      if (last?.type === 'model') last.response.push(`\n${text}`);
      else history.push({ type: 'model', response: [text] });
    }
  }
  if (tools.length > 0) addToSystemPrompt(history, renderTools(tools));
  history.push({ type: 'model', response: [] });
  return history;
}

function renderTools(tools: readonly ToolSpec[]): string {
  return [
    '# Tools',
    'Every reply is exactly one tool call, written as one JSON object: {"tool": "<tool name>", "arguments": {<the arguments>}}. Leave out an optional argument by giving null.',
    ...tools.map((tool) => `## ${tool.name}\n${tool.description}\nArguments (JSON schema): ${JSON.stringify(withoutNoise(tool.parameters))}`),
  ].join('\n\n');
}

/** An enum longer than this is not listed in the prompt: the grammar holds the reply to it anyway. */
const enumListedUpTo = 24;

/**
 * The schema as the prompt shows it: `$schema` and `additionalProperties` only cost tokens, and
 * a long enum (the candidates of a decision: 80 names are about 400 tokens on every call) is
 * said in a few words, since the grammar already makes any other value impossible.
 */
function withoutNoise(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _schema, additionalProperties: _additional, ...rest } = schema;
  return shortEnums(rest) as Record<string, unknown>;
}

function shortEnums(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(shortEnums);
  if (typeof node !== 'object' || node === null) return node;
  const entries = Object.entries(node as Record<string, unknown>);
  const values = (node as { enum?: unknown }).enum;
  if (Array.isArray(values) && values.length > enumListedUpTo) {
    const { enum: _enum, description, ...rest } = node as Record<string, unknown>;
    const said = `One of ${values.length} fixed values (the candidates, as the data names them); the reply format accepts only these.`;
    return { ...rest, description: typeof description === 'string' ? `${description} ${said}` : said };
  }
  return Object.fromEntries(entries.map(([key, value]) => [key, shortEnums(value)]));
}

function addToSystemPrompt(history: ChatHistoryEntry[], text: string): void {
  const first = history[0];
  if (first?.type === 'system') first.text = `${first.text}\n\n${text}`;
  else history.unshift({ type: 'system', text });
}
