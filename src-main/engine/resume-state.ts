import type { LoggedEvent } from '../audit/hash-chain';
import type { Transcript } from '../llm/transcript';
import { copyMessage } from '../llm/transcript';
import type { ResumeState } from './decision-run';

/**
 * Rebuilds where an interrupted run stood from its own records: the run log says what was
 * planned, queried and spent; the transcript holds the exact conversation. The model call that
 * was under way (or whose reply was only partly carried out) is made again, so nothing the
 * model asked for is silently lost; what was already done stays in the log.
 */
export function resumeStateFrom(entries: LoggedEvent[], transcript: Transcript): ResumeState {
  let planned = false;
  let plan: string[] = [];
  let queries = 0;
  let queryCount = 0;
  let tokens = 0;
  const evidence: string[] = [];
  for (const { event } of entries) {
    if (event.type === 'plan') {
      planned = true;
      plan = event.steps;
    } else if (event.type === 'replan') {
      plan = event.steps;
    } else if (event.type === 'query-start') {
      queries++;
      queryCount++;
    } else if (event.type === 'observation' && event.queryId === null) {
      queries++; // a query the analyst skipped still counts as the model's turn
    } else if (event.type === 'query-end' && event.result) {
      evidence.push(event.queryId);
    } else if (event.type === 'model-response') {
      tokens += event.usage?.totalTokens ?? 0;
    }
  }
  const last = transcript.exchanges.at(-1);
  return {
    messages: last ? last.request.messages.map(copyMessage) : null,
    planned,
    plan,
    queries,
    queryCount,
    steps: Math.max(0, transcript.exchanges.length - 1),
    tokens,
    evidence,
  };
}
