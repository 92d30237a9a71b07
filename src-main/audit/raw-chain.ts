import { z } from 'zod';
import { hashEntry } from './hash-chain';

/**
 * A run-log entry read from a file or a bundle, before it is trusted: the envelope is checked
 * exactly (no missing or extra fields) but the event only for its `type`, so logs written by a
 * newer workbench, with event types this one does not know, can still be verified.
 */
export const rawLoggedEventSchema = z.strictObject({
  runId: z.string(),
  seq: z.number().int(),
  at: z.string(),
  event: z.looseObject({ type: z.string() }),
  prevHash: z.string(),
  hash: z.string(),
});
export type RawLoggedEvent = z.infer<typeof rawLoggedEventSchema>;

/** Where a chain stops checking out: the entry's index, its event type when readable, and why. */
export interface ChainBreak {
  index: number;
  type: string | null;
  reason: string;
}

/**
 * Checks entries of unknown shape as a hash chain: each must be well formed, belong to the
 * first entry's run, carry its position as `seq`, link to the entry before it and match its own
 * hash. Returns the typed entries, or the first entry that fails and why.
 */
export function checkRawChain(entries: readonly unknown[]): { ok: true; entries: RawLoggedEvent[] } | { ok: false; failure: ChainBreak } {
  const checked: RawLoggedEvent[] = [];
  for (const [index, value] of entries.entries()) {
    const parsed = rawLoggedEventSchema.safeParse(value);
    if (!parsed.success) return { ok: false, failure: { index, type: typeOf(value), reason: `malformed entry: ${firstIssue(parsed.error)}` } };
    const entry = parsed.data;
    const fail = (reason: string) => ({ ok: false as const, failure: { index, type: entry.event.type, reason } });
    const previous = checked[index - 1];
    const runId = checked[0]?.runId ?? entry.runId;
    if (entry.runId !== runId) return fail(`belongs to run ${entry.runId}, not to run ${runId} like the entries before it`);
    if (entry.seq !== index) return fail(`sequence number ${entry.seq} where ${index} was expected (entries were removed, added or reordered)`);
    if (entry.prevHash !== (previous?.hash ?? '')) return fail('does not link to the entry before it (an entry before it was removed, added or changed)');
    if (hashEntry(entry) !== entry.hash) return fail('its content does not match its hash (it was changed after it was logged)');
    checked.push(entry);
  }
  return { ok: true, entries: checked };
}

/** The event type of something that may or may not be an entry, for naming it in a message. */
export function typeOf(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const event = (value as { event?: unknown }).event;
  const holder = typeof event === 'object' && event !== null ? event : value;
  const type = (holder as { type?: unknown }).type;
  return typeof type === 'string' ? type : null;
}

/** `path.to.field: message` of a zod error's first issue. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'unreadable';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}
