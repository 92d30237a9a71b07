import { z } from 'zod';

/**
 * Report export requests (spread into `api` in ./api.ts). A report is made from one run of a
 * notebook: its hash-chained log, its transcript and its cells, sealed into a bundle together
 * with the analyst's sign-off; every format shows the bundle's head hash.
 */
export const reportFormatSchema = z.enum(['html', 'pdf', 'md', 'json', 'ipynb']);
export type ReportFormatValue = z.infer<typeof reportFormatSchema>;

/** The analyst's sign-off, sealed into the bundle (the time is the workbench's). */
export const signOffSchema = z.object({
  name: z.string().trim().min(1, 'the sign-off needs a name').max(200),
  comment: z.string().max(4000).default(''),
});
export type SignOffValue = z.input<typeof signOffSchema>;

const runReference = { notebookId: z.string(), runId: z.string() };

export const reportPreviewSchema = z.object({
  html: z.string(),
  /** The bundle's head hash: the same in every format exported with this sign-off. */
  head: z.string(),
  eventCount: z.number().int(),
});
export type ReportPreview = z.infer<typeof reportPreviewSchema>;

export const exportedReportSchema = z.object({
  exportId: z.string(),
  path: z.string(),
  format: reportFormatSchema,
  bytes: z.number().int(),
  head: z.string(),
});
export type ExportedReport = z.infer<typeof exportedReportSchema>;

export const reportDownloadSchema = z.object({ fileName: z.string(), mimeType: z.string(), base64: z.string() });
export type ReportDownload = z.infer<typeof reportDownloadSchema>;

export const reportRequests = {
  /** The HTML report of a finished run, with the sign-off as typed so far: the dialog's live preview. */
  'reports/preview': {
    params: z.object({ ...runReference, signOff: signOffSchema.nullable().default(null) }),
    result: reportPreviewSchema,
  },
  /**
   * Writes one format: where the analyst chooses in the desktop app (null when the save dialog
   * is cancelled), or into the workspace's `exports/` folder in browser mode.
   */
  'reports/export': {
    params: z.object({ ...runReference, format: reportFormatSchema, signOff: signOffSchema.nullable().default(null) }),
    result: exportedReportSchema.nullable(),
  },
  /** Opens an exported file with the system's default app (desktop only; browser mode answers `unsupported`). */
  'reports/open': { params: z.object({ exportId: z.string() }), result: z.object({ ok: z.literal(true) }) },
  /** An exported file's bytes, so browser mode can open or save it from the page. */
  'reports/download': { params: z.object({ exportId: z.string() }), result: reportDownloadSchema },
} as const;
