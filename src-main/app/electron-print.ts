import { BrowserWindow, dialog, shell } from 'electron';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReportPlatform } from '../services/report-service';
import { footerTemplate } from '../reports/render-pdf';

/** Millimetres to the inches Electron's printToPDF takes. */
const inches = (millimetres: number): number => millimetres / 25.4;

/**
 * The desktop app's part of report export: Electron prints the same HTML the CLI prints with
 * headless Chromium (A4, backgrounds, the same footer), in a hidden window with scripts off
 * that loads nothing but the report file; a native save dialog; and opening the result.
 * Only the Electron entry point imports this module, so the CLI never loads Electron.
 */
export function electronReportPlatform(): Required<ReportPlatform> {
  return {
    printToPdf: async (html, footer) => {
      const folder = mkdtempSync(join(tmpdir(), 'dwb-report-'));
      const file = join(folder, 'report.html');
      writeFileSync(file, html);
      const window = new BrowserWindow({ show: false, webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: false } });
      try {
        await window.loadFile(file);
        return await window.webContents.printToPDF({
          pageSize: 'A4',
          printBackground: true,
          displayHeaderFooter: true,
          headerTemplate: '<span></span>',
          footerTemplate: footerTemplate(footer.title, footer.runId),
          margins: { top: inches(16), right: inches(14), bottom: inches(18), left: inches(14) },
        });
      } finally {
        window.destroy();
        rmSync(folder, { recursive: true, force: true });
      }
    },
    saveFileDialog: async ({ title, defaultName, extensions }) => {
      const choice = await dialog.showSaveDialog({ title, defaultPath: defaultName, filters: [{ name: title, extensions }] });
      return choice.canceled || !choice.filePath ? null : choice.filePath;
    },
    openPath: async (path) => {
      const problem = await shell.openPath(path);
      if (problem) throw new Error(`Could not open ${path}: ${problem}`);
    },
  };
}
