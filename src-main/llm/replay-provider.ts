import { WorkbenchError } from '../contract/errors';
import { copyMessage, copyResponse, readTranscript, type Transcript } from './transcript';
import type { ChatMessage, ModelProvider, ModelResponse } from './types';

/** Options of `createReplayProvider`. */
export interface ReplayOptions {
  /**
   * Check that each request's messages equal the recorded ones, and fail with an
   * `invalid-request` error naming the first differing message when they do not.
   */
  strict?: boolean;
}

/**
 * A provider that answers from a transcript instead of a model: call N gets exchange N's
 * recorded response (latency and usage included) or throws its recorded error, so a run can be
 * re-executed exactly, offline. Calls a technique makes at the same time (a plan graph's level)
 * may come in another order than they were recorded: a call whose messages equal those of a
 * later unused exchange gets that exchange. Accepts a parsed transcript or the text of a
 * transcript file.
 */
export function createReplayProvider(transcript: Transcript | string, options: ReplayOptions = {}): ModelProvider {
  const { header, exchanges } = typeof transcript === 'string' ? readTranscript(transcript) : transcript;
  const used = new Set<number>();
  let next = 0;

  return {
    description: `replay of ${header.provider}`,
    async generate(request, generateOptions = {}): Promise<ModelResponse> {
      if (generateOptions.signal?.aborted) throw new WorkbenchError('cancelled', 'The model request was cancelled.');
      while (used.has(next)) next++;
      const asked = request.messages.map(copyMessage);
      const matching = exchanges.findIndex((candidate, position) => position >= next && !used.has(position) && firstDifference(candidate.request.messages, asked) === null);
      const position = matching >= 0 ? matching : next;
      const exchange = exchanges[position];
      if (!exchange) {
        throw new WorkbenchError(
          'invalid-request',
          `The transcript is exhausted: it recorded ${exchanges.length} model call${exchanges.length === 1 ? '' : 's'}, and call ${next + 1} was asked for.`,
        );
      }
      if (options.strict) {
        const difference = firstDifference(exchange.request.messages, asked);
        if (difference) throw new WorkbenchError('invalid-request', `Replay diverged at exchange ${exchange.index}: ${difference}`);
      }
      used.add(position);
      if (exchange.error) throw new WorkbenchError(exchange.error.code, exchange.error.message);
      if (!exchange.response) throw new WorkbenchError('internal', `Exchange ${exchange.index} has neither a response nor an error.`);
      const response = copyResponse(exchange.response);
      if (response.content.length > 0) generateOptions.onToken?.(response.content);
      return response;
    },
  };
}

/** Describes the first message that differs, or returns null when the lists are equal. */
function firstDifference(recorded: ChatMessage[], requested: ChatMessage[]): string | null {
  const length = Math.max(recorded.length, requested.length);
  for (let index = 0; index < length; index++) {
    const was = recorded[index];
    const now = requested[index];
    if (!was) return `message ${index} is new (the request has ${requested.length} messages, the recording ${recorded.length}).`;
    if (!now) return `message ${index} is missing (the request has ${requested.length} messages, the recording ${recorded.length}).`;
    const field = differingField(was, now);
    if (field) return `message ${index} differs in ${field}.`;
  }
  return null;
}

function differingField(was: ChatMessage, now: ChatMessage): string | null {
  if (was.role !== now.role) return `role (recorded "${was.role}", requested "${now.role}")`;
  if (was.content !== now.content) return describeTextDifference(was.content, now.content);
  if (was.toolCallId !== now.toolCallId) return `toolCallId (recorded ${String(was.toolCallId)}, requested ${String(now.toolCallId)})`;
  if (JSON.stringify(was.toolCalls ?? []) !== JSON.stringify(now.toolCalls ?? [])) return 'toolCalls';
  return null;
}

/** Where two texts part, with a little context, since whole messages can be pages long. */
function describeTextDifference(was: string, now: string): string {
  let at = 0;
  while (at < was.length && at < now.length && was[at] === now[at]) at++;
  const from = Math.max(0, at - 20);
  const excerpt = (text: string) => JSON.stringify(`${from > 0 ? '…' : ''}${text.slice(from, at + 40)}${text.length > at + 40 ? '…' : ''}`);
  return `content from character ${at} (recorded ${excerpt(was)}, requested ${excerpt(now)})`;
}
