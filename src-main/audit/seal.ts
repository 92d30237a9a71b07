import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/**
 * A seal continues a run log's hash chain past its last event: each entry records something
 * about the run (what an export contained, who signed it off) and is chained to the entry
 * before it — the first to the run log's last hash — exactly as the run log chains its events.
 * Changing, removing or reordering anything before a seal entry therefore breaks that entry.
 */
export interface SealEntry<R extends { type: string } = { type: string }> {
  seq: number;
  at: string;
  record: R;
  /** The hash of the entry before: the run log's last hash for entry 0. */
  prevHash: string;
  hash: string;
  /** The analyst's Ed25519 signature of `hash` (see audit/signing.ts); outside the hash, which it covers. */
  signature?: SealSignature;
}

export interface SealSignature {
  /** The signing key, base64 DER; its fingerprint is the one the entry's record declares. */
  publicKey: string;
  /** base64 Ed25519 signature. */
  value: string;
}

/** sha256 of the previous hash, a newline and the canonical JSON of the entry's own fields. */
export function hashSealEntry(entry: { seq: number; at: string; record: unknown; prevHash: string }): string {
  return createHash('sha256').update(entry.prevHash).update('\n').update(canonicalJson({ seq: entry.seq, at: entry.at, record: entry.record })).digest('hex');
}

/** A new entry after `previous` (or, for the first, after the run log's head hash). */
export function sealEntry<R extends { type: string }>(previous: { seq: number; hash: string } | { headHash: string }, at: string, record: R): SealEntry<R> {
  const base = 'headHash' in previous ? { seq: 0, at, record, prevHash: previous.headHash } : { seq: previous.seq + 1, at, record, prevHash: previous.hash };
  return { ...base, hash: hashSealEntry(base) };
}
