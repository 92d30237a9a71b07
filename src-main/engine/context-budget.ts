import type { ChatMessage } from '../llm/types';

/**
 * Keeps a conversation's prompt inside the model's context window. The prompt is measured in
 * the model's own tokens as far as the engine knows them: the last call's prompt tokens per
 * character (as the server counted them), or about 4 characters a token before any call.
 * When the prompt nears the window, the oldest observations are summarised — their first
 * lines kept, the rest named — rather than the conversation being cut blindly; the latest
 * observations stay whole, since the model is working on them.
 */

/** Share of the window a prompt may fill; the rest is left for the reply. */
export const promptShare = 0.75;
/** Observations kept whole, counted from the newest. */
const keptWhole = 2;
/** Lines of a summarised observation kept (the row count, the header and the first rows). */
const linesKept = 5;
const summaryMark = '[summarised to fit the context]';

/** The prompt's size in tokens, estimated from the characters and the model's own token rate. */
export function estimateTokens(messages: readonly ChatMessage[], tokensPerChar: number | null): number {
  const chars = messages.reduce((sum, message) => sum + message.content.length + (message.toolCalls ?? []).reduce((calls, call) => calls + call.arguments.length, 0), 0);
  return Math.ceil(chars * (tokensPerChar ?? 0.25)) + 4 * messages.length;
}

/**
 * Summarises old observations in `messages` (in place, oldest first) until the prompt fits
 * `promptShare` of `contextTokens`; nothing changes without a window. Returns how many were summarised.
 */
export function fitToContext(messages: ChatMessage[], contextTokens: number | null, tokensPerChar: number | null): number {
  if (contextTokens === null) return 0;
  const budget = contextTokens * promptShare;
  const observations = messages.map((message, index) => ({ message, index })).filter(({ message }) => isObservation(message));
  const candidates = observations.slice(0, Math.max(0, observations.length - keptWhole));
  let summarised = 0;
  for (const { index } of candidates) {
    if (estimateTokens(messages, tokensPerChar) <= budget) break;
    const message = messages[index] as ChatMessage;
    const shorter = summariseObservation(message.content);
    if (shorter === message.content) continue;
    messages[index] = { ...message, content: shorter };
    summarised++;
  }
  return summarised;
}

function isObservation(message: ChatMessage): boolean {
  return (message.role === 'tool' || (message.role === 'user' && message.content.startsWith('Observation:'))) && !message.content.includes(summaryMark);
}

/** The first lines of an observation (its row count, header and first rows) and how much was left out. */
export function summariseObservation(content: string): string {
  const lines = content.split('\n');
  if (lines.length <= linesKept + 1) return content;
  const left = lines.length - linesKept;
  return `${lines.slice(0, linesKept).join('\n')}\n… ${summaryMark} ${left} more lines left out; query again if you need them.`;
}
