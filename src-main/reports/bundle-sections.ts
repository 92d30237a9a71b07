import { jsonDigest } from '../audit/digest';
import type { JsonObject } from './bundle-format';

/**
 * Per-item hashes of the transcript and the notebook. Sealing each line and each cell (rather
 * than a section as a whole) lets verification name the exact line or cell that was changed.
 */
export function transcriptHashes(transcript: readonly unknown[]): string[] {
  return transcript.map(jsonDigest);
}

export function notebookHashes(notebook: { cells: readonly unknown[] }): { header: string; cells: string[] } {
  const { cells, ...header } = notebook;
  return { header: jsonDigest(header), cells: cells.map(jsonDigest) };
}

/** A short name for an item in a message: its `type` or `kind` when it has one. */
export function itemLabel(item: unknown): string | null {
  if (typeof item !== 'object' || item === null) return null;
  const { type, kind } = item as JsonObject;
  if (typeof kind === 'string') return kind;
  return typeof type === 'string' ? type : null;
}
