import { markdownToPlainText } from './markdown-plain-text';
import type { CellKind } from '../contract/notebook';
import type { SearchHit } from '../contract/search';
import type { AppDatabase } from './app-database';

const contextChars = 70;

/**
 * The kinds the notebook renders as Markdown (cells/NoteCell, cells/ReadOnlyCard): their snippet
 * shows what they say, not their markup. Queries, observations and experiments are shown as
 * written, so they are searched as written.
 */
const markdownKinds: ReadonlySet<CellKind> = new Set(['note', 'question', 'thought', 'plan', 'replan', 'decision']);

/** The cell's searchable text: its source, and a decision's value and rationale (kept in its data), Markdown read as plain text. */
function searchableText(kind: CellKind, source: string, data: string): string {
  const plain = (text: string): string => (markdownKinds.has(kind) ? markdownToPlainText(text) : text);
  if (kind !== 'decision') return plain(source);
  try {
    const parsed = JSON.parse(data) as Record<string, unknown>;
    const parts = [parsed['decision'], parsed['rationale']].filter((part): part is string => typeof part === 'string');
    return [source, ...parts.filter((part) => !source.includes(part))].map(plain).join('\n');
  } catch {
    return plain(source);
  }
}

/** Cut around the match, on one line, with ellipses where text was left out. */
function snippetOf(text: string, at: number, length: number): Pick<SearchHit, 'snippet' | 'match'> {
  const start = Math.max(0, at - contextChars);
  const end = Math.min(text.length, at + length + contextChars);
  const lead = start > 0 ? '…' : '';
  const flat = (part: string): string => part.replace(/\s/g, ' ');
  const snippet = `${lead}${flat(text.slice(start, end))}${end < text.length ? '…' : ''}`;
  return { snippet, match: { start: lead.length + at - start, length } };
}

/**
 * Finds text in the cells of every notebook not in the trash. SQLite's instr on lower() keeps
 * the search literal (no LIKE wildcards to escape); the finer cut is made here.
 */
export function searchCells(database: AppDatabase, text: string, limit: number): { hits: SearchHit[]; more: boolean } {
  const needle = text.toLowerCase();
  const rows = database
    .prepare(
      `SELECT c.id, c.notebook_id AS notebookId, n.title AS notebookTitle, c.kind, c.source, c.data
         FROM cells c JOIN notebooks n ON n.id = c.notebook_id
        WHERE c.deleted_at IS NULL AND n.deleted_at IS NULL
          AND (instr(lower(c.source), ?) > 0 OR (c.kind = 'decision' AND instr(lower(c.data), ?) > 0))
        ORDER BY n.updated_at DESC, c.position
        LIMIT ?`,
    )
    .all(needle, needle, limit * 2 + 1) as { id: string; notebookId: string; notebookTitle: string; kind: CellKind; source: string; data: string }[];
  const hits: SearchHit[] = [];
  for (const row of rows) {
    const plain = searchableText(row.kind, row.source, row.data);
    // Text found only in the markup (a search for '**') is shown as written.
    const searchable = markdownKinds.has(row.kind) && !plain.toLowerCase().includes(needle) ? row.source : plain;
    // A decision's JSON may match on a key name only; such a row is not a hit.
    const at = searchable.toLowerCase().indexOf(needle);
    if (at < 0) continue;
    hits.push({ notebookId: row.notebookId, notebookTitle: row.notebookTitle, cellId: row.id, kind: row.kind, ...snippetOf(searchable, at, needle.length) });
  }
  return { hits: hits.slice(0, limit), more: hits.length > limit || rows.length > limit * 2 };
}
