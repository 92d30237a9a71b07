import type { ReportBundle } from './bundle-format';
import { serializeBundle } from './create-bundle';
import { renderHtmlReport } from './render-html';
import { renderIpynb } from './render-ipynb';
import { renderMarkdownReport } from './render-markdown';
import { printHtmlToPdf } from './render-pdf';
import { buildReport } from './report-model';

export const reportFormats = ['html', 'pdf', 'md', 'json', 'ipynb'] as const;
export type ReportFormat = (typeof reportFormats)[number];

export const reportFileTypes: Record<ReportFormat, { extension: string; mimeType: string; label: string }> = {
  html: { extension: 'html', mimeType: 'text/html; charset=utf-8', label: 'HTML report' },
  pdf: { extension: 'pdf', mimeType: 'application/pdf', label: 'PDF report' },
  md: { extension: 'md', mimeType: 'text/markdown; charset=utf-8', label: 'Markdown report' },
  json: { extension: 'json', mimeType: 'application/json', label: 'JSON bundle (for verification)' },
  ipynb: { extension: 'ipynb', mimeType: 'application/x-ipynb+json', label: 'Jupyter notebook' },
};

/** Prints report HTML to PDF: headless Chromium from the CLI and browser mode, Electron in the app. */
export type PdfPrinter = (html: string, footer: { title: string; runId: string }) => Promise<Buffer>;

export interface ExportOptions {
  /** Rows of each result table shown in the HTML, PDF and Markdown reports. */
  maxTableRows?: number;
  printPdf?: PdfPrinter;
}

/** One verified bundle in one format, as the bytes to write. */
export async function exportReport(bundle: ReportBundle, format: ReportFormat, options: ExportOptions = {}): Promise<Buffer> {
  const maxTableRows = options.maxTableRows ?? 15;
  if (format === 'json') return Buffer.from(serializeBundle(bundle), 'utf8');
  const report = buildReport(bundle);
  switch (format) {
    case 'html':
      return Buffer.from(renderHtmlReport(report, { maxTableRows }), 'utf8');
    case 'md':
      return Buffer.from(renderMarkdownReport(report, { maxTableRows }), 'utf8');
    case 'ipynb':
      return Buffer.from(renderIpynb(bundle, report), 'utf8');
    case 'pdf':
      return (options.printPdf ?? printHtmlToPdf)(renderHtmlReport(report, { maxTableRows }), { title: report.title, runId: report.runId });
  }
}
