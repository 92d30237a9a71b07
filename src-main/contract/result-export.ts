import { z } from 'zod';
import { querySettingsLimits } from './notebook';

/**
 * Exporting a query cell's whole result as CSV (spread into `api` in ./api.ts). The grid keeps
 * only a preview (docs/data-sources.md › Large results); the export runs the cell's query again in the main process
 * and streams every row to the file, never holding the result in memory.
 */
export const resultExportOptionsSchema = z.object({
  /** Names this export in its progress events and in `results/export-cancel`. */
  exportId: z.string().min(1).max(100),
  cellId: z.string(),
  /**
   * Prefix text cells starting with = + - @ (or a tab or carriage return) with an apostrophe, so
   * a spreadsheet shows them as text instead of running them as formulas.
   */
  formulaSafe: z.boolean().default(false),
});

export const resultExportSchema = z.discriminatedUnion('status', [
  /** Desktop: every row was written where the analyst chose. */
  z.object({ status: z.literal('saved'), path: z.string(), rowCount: z.number().int(), truncated: z.boolean() }),
  /** Browser mode: the rows stream from this one-time address (the page hands it to the browser's downloads). */
  z.object({ status: z.literal('download'), url: z.string(), fileName: z.string() }),
  /** The save dialog was closed without a choice; nothing was run or written. */
  z.object({ status: z.literal('not-saved') }),
]);
export type ResultExport = z.infer<typeof resultExportSchema>;

export const resultExportRequests = {
  'results/export-csv': { params: resultExportOptionsSchema, result: resultExportSchema },
  /** Stops a running export; a partly written file is removed (an overwritten one is kept as it was). */
  'results/export-cancel': { params: z.object({ exportId: z.string() }), result: z.object({ cancelled: z.boolean() }) },
} as const;

/** Progress of an export: rows written so far, then how it ended. */
export const resultExportProgressSchema = z.object({
  exportId: z.string(),
  status: z.enum(['running', 'done', 'failed', 'cancelled']),
  rowCount: z.number().int(),
  /** Done: the result had more rows than an export reads (`resultExportMaxRows`). */
  truncated: z.boolean().optional(),
  /** Failed: why, as the database or the file system said it. */
  message: z.string().optional(),
});
export type ResultExportProgress = z.infer<typeof resultExportProgressSchema>;

/**
 * The most rows an export reads: the largest row cap a query can have. Connectors that cannot
 * stream read the capped result first, so some bound is needed to keep memory bounded.
 */
export const resultExportMaxRows = querySettingsLimits.maxRows;
