import { escapeHtml } from './html-escape';
import { launchChromium } from './chromium';

/** Page size and the margins the header and footer are printed in. */
export const pdfLayout = { format: 'A4', margin: { top: '16mm', right: '14mm', bottom: '18mm', left: '14mm' } } as const;

/**
 * Prints an HTML report to PDF with headless Chromium, as the app prints it with Electron: the
 * same HTML, A4, backgrounds on, a running footer with the title and page numbers. The page
 * is offline: every request it might make is refused (a report has no external asset anyway).
 */
export async function printHtmlToPdf(html: string, footer: { title: string; runId: string }): Promise<Buffer> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.route('**/*', (route) => route.abort());
    await page.setContent(html, { waitUntil: 'load' });
    await page.emulateMedia({ media: 'print' });
    return await page.pdf({
      ...pdfLayout,
      printBackground: true,
      displayHeaderFooter: true,
      headerTemplate: '<span></span>',
      footerTemplate: footerTemplate(footer.title, footer.runId),
    });
  } finally {
    await browser.close();
  }
}

/** Chromium fills `pageNumber` and `totalPages`; everything else is escaped text. */
export function footerTemplate(title: string, runId: string): string {
  const clipped = title.length > 90 ? `${title.slice(0, 89)}…` : title;
  return `<div style="width:100%;font:8px 'DejaVu Sans',Arial,sans-serif;color:#6a7382;padding:0 14mm;display:flex;justify-content:space-between;gap:12px">
<span>Decision report · ${escapeHtml(clipped)} · ${escapeHtml(runId)}</span><span style="white-space:nowrap">Page <span class="pageNumber"></span> of <span class="totalPages"></span></span></div>`;
}
