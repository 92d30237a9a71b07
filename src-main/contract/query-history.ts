import { z } from 'zod';

/** Entries kept per workspace; older ones are dropped as new queries run. */
export const queryHistoryLimit = 5000;

export const queryHistoryEntrySchema = z.object({
  id: z.number().int(),
  connectionId: z.string(),
  text: z.string(),
  ranAt: z.string(),
  durationMs: z.number(),
  /** Rows the query returned; null when it failed. */
  rowCount: z.number().int().nullable(),
  /** The WorkbenchError code of a failed run (`syntax`, `timeout`, `cancelled`, …); null when it succeeded. */
  errorCode: z.string().nullable(),
  /** The notebook and cell it ran from, when they are still there. */
  notebookId: z.string().nullable(),
  notebookTitle: z.string().nullable(),
  cellId: z.string().nullable(),
});
export type QueryHistoryEntry = z.infer<typeof queryHistoryEntrySchema>;

export const queryHistoryRequests = {
  /**
   * The queries query cells ran on one connection, newest first; `text` keeps those holding it
   * (literal, case-insensitive, like `search/cells`). A connection in the trash has none to show.
   */
  'history/queries': {
    params: z.object({ connectionId: z.string().min(1), text: z.string().trim().max(200).optional(), limit: z.number().int().min(1).max(500).default(100) }),
    result: z.object({ entries: z.array(queryHistoryEntrySchema), more: z.boolean() }),
  },
} as const;
