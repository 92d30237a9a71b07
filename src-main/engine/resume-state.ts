import { z } from 'zod';
import type { LoggedEvent } from '../audit/hash-chain';
import { TraceReader } from '../audit/run-trace';
import type { Transcript } from '../llm/transcript';
import { copyMessage } from '../llm/transcript';
import { chatMessageSchema } from '../llm/transcript-schema';

/**
 * Where a run interrupted by an app stop picks up again: what the run saves just before each
 * model call (`onCheckpoint`), defined once for the saved checkpoint and the engine's type.
 */
export const resumeStateSchema = z.object({
  /** The conversation as it stood before the unfinished model call, or null to start it afresh. */
  messages: z.array(chatMessageSchema).nullable(),
  planned: z.boolean(),
  plan: z.array(z.string()),
  queries: z.number().int().nonnegative(),
  steps: z.number().int().nonnegative(),
  tokens: z.number().nonnegative(),
  evidence: z.array(z.string()),
  queryCount: z.number().int().nonnegative(),
  /** A technique's own state (absent for one-conversation techniques and in older checkpoints). */
  technique: z.unknown().optional(),
});
export type ResumeState = z.infer<typeof resumeStateSchema>;

/**
 * A saved checkpoint holds the conversation, or null from a technique that makes its model
 * calls outside one conversation and keeps its own state (`technique`) instead.
 */
const checkpointSchema = resumeStateSchema.refine((state) => state.messages !== null || state.technique !== undefined);

/**
 * Where an interrupted run picks up. The checkpoint saved before the latest model call is
 * exact: that call is made again with the same conversation, whether the app stopped while the
 * model was answering or while its reply was being carried out. Runs without a usable
 * checkpoint fall back to their log and transcript (resumeStateFrom). Tokens always come from
 * the log, since a call that was answered before the stop was spent even if it is made again.
 */
export function resumeStateFor(entries: LoggedEvent[], transcript: Transcript, checkpoint: unknown): ResumeState {
  const fromRecords = resumeStateFrom(entries, transcript);
  const saved = checkpointSchema.safeParse(checkpoint);
  if (!saved.success) return fromRecords;
  return { ...saved.data, messages: saved.data.messages ? saved.data.messages.map(copyMessage) : null, tokens: fromRecords.tokens };
}

/**
 * Rebuilds where an interrupted run stood from its own records: the run log says what was
 * planned, queried and spent; the transcript holds the exact conversation. The model call that
 * was under way (or whose reply was only partly carried out) is made again, so nothing the
 * model asked for is silently lost; what was already done stays in the log.
 */
export function resumeStateFrom(entries: LoggedEvent[], transcript: Transcript): ResumeState {
  const trace = TraceReader.of(entries);
  const queries = trace.queryList();
  const last = transcript.exchanges.at(-1);
  return {
    messages: last ? last.request.messages.map(copyMessage) : null,
    planned: trace.plans.some((plan) => plan.reason === null),
    plan: trace.plans.at(-1)?.steps ?? [],
    // A query the analyst skipped still counts as the model's turn.
    queries: queries.length + trace.skippedQueries,
    queryCount: queries.length,
    steps: Math.max(0, transcript.exchanges.length - 1),
    tokens: trace.spent.totalTokens,
    evidence: queries.filter((query) => query.result !== null).map((query) => query.id),
  };
}
