import { createHash } from 'node:crypto';
import type { RunEvent } from '../contract/run';
import { canonicalJson } from './canonical-json';

/** One entry of a run log: the event, who wrote it, when, and its place in the chain. */
export interface LoggedEvent {
  runId: string;
  seq: number;
  at: string;
  event: RunEvent;
  /** Hash of the previous entry ("" for the first), so no entry can be removed or reordered unseen. */
  prevHash: string;
  hash: string;
}

/** The fields of an entry its hash covers; `event` is any JSON so bundles can be checked before they are trusted. */
export interface ChainedFields {
  runId: string;
  seq: number;
  at: string;
  event: unknown;
  prevHash: string;
}

export function hashEntry(entry: ChainedFields): string {
  return createHash('sha256').update(entry.prevHash).update('\n').update(canonicalJson({ runId: entry.runId, seq: entry.seq, at: entry.at, event: entry.event })).digest('hex');
}

export function chainEntry(previous: LoggedEvent | null, runId: string, at: string, event: RunEvent): LoggedEvent {
  const base = { runId, seq: previous ? previous.seq + 1 : 0, at, event, prevHash: previous?.hash ?? '' };
  return { ...base, hash: hashEntry(base) };
}

/** The first entry that breaks the chain, or null when every hash and link checks out. */
export function findChainBreak(entries: LoggedEvent[]): { index: number; reason: string } | null {
  let previous: LoggedEvent | null = null;
  for (const [index, entry] of entries.entries()) {
    if (entry.seq !== index) return { index, reason: `sequence number ${entry.seq} where ${index} was expected` };
    if (entry.prevHash !== (previous?.hash ?? '')) return { index, reason: 'does not link to the entry before it' };
    if (hashEntry(entry) !== entry.hash) return { index, reason: 'its content does not match its hash' };
    previous = entry;
  }
  return null;
}
