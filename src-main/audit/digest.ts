import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

/** sha256 of a UTF-8 string, as lowercase hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** sha256 of the canonical JSON of a value: equal for equal data, whatever its key order. */
export function jsonDigest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** The first characters of a hash, enough to compare by eye in a report or a terminal. */
export function shortHash(hash: string, length = 12): string {
  return hash.length > length ? `${hash.slice(0, length)}…` : hash;
}
