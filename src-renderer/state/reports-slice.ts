import { z } from 'zod';
import { WorkbenchError } from '../../src-main/contract/errors';
import {
  exportedReportSchema,
  reportDownloadSchema,
  reportPreviewSchema,
  type ExportedReport,
  type ReportDownload,
  type ReportFormatValue,
  type ReportPreview,
  type SignOffValue,
} from '../../src-main/contract/reports';
import { runSummarySchema, type RunSummary } from '../../src-main/contract/run';

/**
 * The requests this slice makes. Typed loosely on purpose: the workbench client satisfies it,
 * and every answer is checked against the contract's schema before it reaches the state.
 */
export interface ReportsTransport {
  invoke(method: string, params: unknown): Promise<unknown>;
}

export interface ReportDialogTarget {
  notebookId: string;
  /** The run to report on; null picks the notebook's latest finished run. */
  runId: string | null;
}

export interface ReportsSlice {
  /** The export dialog's notebook and run while it is open, null when closed. */
  reportDialog: ReportDialogTarget | null;
  /** Finished runs of the dialog's notebook, newest first. */
  reportRuns: RunSummary[];
  /** The latest preview and what it was made for, so a stale answer never replaces a newer one. */
  reportPreview: { key: string; preview: ReportPreview } | null;
  /** Files exported in this session, newest first. */
  reportExports: ExportedReport[];

  openReportDialog(target: ReportDialogTarget): Promise<void>;
  closeReportDialog(): void;
  chooseReportRun(runId: string): void;
  /** Renders the preview for the run and sign-off; resolves when it is in the state. */
  previewReport(runId: string, signOff: SignOffValue | null): Promise<void>;
  /** Exports one format; null when the analyst cancelled the save dialog. */
  exportReport(runId: string, format: ReportFormatValue, signOff: SignOffValue | null): Promise<ExportedReport | null>;
  /** Opens an export with the system's app; false when the platform cannot (browser mode): fetch it instead. */
  openExportedReport(exported: ExportedReport): Promise<boolean>;
  downloadExportedReport(exported: ExportedReport): Promise<ReportDownload>;
}

interface ReportsSliceContext {
  client: ReportsTransport;
  set(partial: Partial<ReportsSlice>): void;
  get(): ReportsSlice;
}

/** The identity of a preview request: the same run and sign-off give the same bundle head. */
export function previewKey(runId: string, signOff: SignOffValue | null): string {
  return JSON.stringify([runId, signOff?.name.trim() ?? null, signOff?.comment?.trim() ?? null]);
}

export function createReportsSlice({ client, set, get }: ReportsSliceContext): ReportsSlice {
  let latestPreview = '';
  return {
    reportDialog: null,
    reportRuns: [],
    reportPreview: null,
    reportExports: [],

    openReportDialog: async ({ notebookId, runId }) => {
      set({ reportDialog: { notebookId, runId }, reportRuns: [], reportPreview: null });
      const runs = z.array(runSummarySchema).parse(await client.invoke('runs/list', { notebookId })).filter((run) => run.status !== 'running');
      if (get().reportDialog?.notebookId !== notebookId) return;
      set({ reportRuns: runs, reportDialog: { notebookId, runId: runId ?? runs[0]?.id ?? null } });
    },
    closeReportDialog: () => {
      latestPreview = '';
      set({ reportDialog: null, reportPreview: null });
    },
    chooseReportRun: (runId) => {
      const dialog = get().reportDialog;
      if (dialog) set({ reportDialog: { ...dialog, runId }, reportPreview: null });
    },

    previewReport: async (runId, signOff) => {
      const dialog = get().reportDialog;
      if (!dialog) return;
      const key = previewKey(runId, signOff);
      latestPreview = key;
      const preview = reportPreviewSchema.parse(await client.invoke('reports/preview', { notebookId: dialog.notebookId, runId, signOff }));
      if (latestPreview === key) set({ reportPreview: { key, preview } });
    },
    exportReport: async (runId, format, signOff) => {
      const dialog = get().reportDialog;
      if (!dialog) throw new WorkbenchError('invalid-request', 'The export dialog is closed');
      const exported = exportedReportSchema.nullable().parse(await client.invoke('reports/export', { notebookId: dialog.notebookId, runId, format, signOff }));
      if (exported) set({ reportExports: [exported, ...get().reportExports] });
      return exported;
    },
    openExportedReport: async (exported) => {
      try {
        await client.invoke('reports/open', { exportId: exported.exportId });
        return true;
      } catch (error) {
        if (error instanceof WorkbenchError && error.code === 'unsupported') return false;
        throw error;
      }
    },
    downloadExportedReport: async (exported) => reportDownloadSchema.parse(await client.invoke('reports/download', { exportId: exported.exportId })),
  };
}
