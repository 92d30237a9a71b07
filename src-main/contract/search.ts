import { z } from 'zod';
import { cellKindSchema } from './notebook';

export const searchHitSchema = z.object({
  notebookId: z.string(),
  notebookTitle: z.string(),
  cellId: z.string(),
  kind: cellKindSchema,
  /** The matching text with some context; `match` is the found text's place in it. */
  snippet: z.string(),
  match: z.object({ start: z.number().int(), length: z.number().int() }),
});
export type SearchHit = z.infer<typeof searchHitSchema>;

export const searchRequests = {
  /**
   * Cells of every notebook whose text (a query, a note, a question, a decision and its
   * rationale) holds `text`, case-insensitively; the newest notebooks first, at most `limit`.
   */
  'search/cells': {
    params: z.object({ text: z.string().trim().min(1).max(200), limit: z.number().int().min(1).max(200).default(50) }),
    result: z.object({ hits: z.array(searchHitSchema), more: z.boolean() }),
  },
} as const;
