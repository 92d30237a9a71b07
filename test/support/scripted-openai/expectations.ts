import { messageText, toolResultsOf, type ReceivedChatRequest, type ScriptedTurn } from './script';

/**
 * Checks a request against its turn's expectations. Returns the first failure as a sentence,
 * or null. A thrown error (a vitest `expect` inside `turn.expect`) counts as a failure too.
 */
export function checkExpectations(turn: ScriptedTurn, request: ReceivedChatRequest): string | null {
  const body = request.chat;
  if (turn.expectStream !== undefined && Boolean(body.stream) !== turn.expectStream) {
    return `expected a ${turn.expectStream ? 'streamed' : 'non-streamed'} request`;
  }
  if (turn.expectTools) {
    const offered = (body.tools ?? []).map((tool) => tool.function.name).sort();
    const wanted = [...turn.expectTools].sort();
    if (JSON.stringify(offered) !== JSON.stringify(wanted)) return `expected tools [${wanted.join(', ')}], got [${offered.join(', ')}]`;
  }
  if (turn.expectToolResultContains !== undefined) {
    const results = toolResultsOf(request).map(messageText).join('\n');
    if (results.length === 0) return 'expected tool results after the last assistant message, found none';
    for (const needle of asList(turn.expectToolResultContains)) {
      if (!results.includes(needle)) return `expected the tool results to contain ${JSON.stringify(needle)}; they are ${JSON.stringify(shorten(results))}`;
    }
  }
  if (turn.expectLastMessageContains !== undefined) {
    const last = body.messages[body.messages.length - 1];
    const text = last ? messageText(last) : '';
    for (const needle of asList(turn.expectLastMessageContains)) {
      if (!text.includes(needle)) return `expected the last message to contain ${JSON.stringify(needle)}; it is ${JSON.stringify(shorten(text))}`;
    }
  }
  if (turn.expect) {
    try {
      const verdict = turn.expect(request);
      if (typeof verdict === 'string' && verdict.length > 0) return verdict;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
  return null;
}

function asList(value: string | string[]): string[] {
  return Array.isArray(value) ? value : [value];
}

function shorten(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
