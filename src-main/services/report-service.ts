import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { z } from 'zod';
import type { Signer } from '../audit/signing';
import { WorkbenchError } from '../contract/errors';
import { readCellData } from '../contract/notebook';
import type { reportRequests } from '../contract/reports';
import { readTranscript } from '../llm/transcript';
import type { ReportBundle } from '../reports/bundle-format';
import type { RunMaterials } from '../reports/create-bundle';
import { exportReport, reportFileTypes, type PdfPrinter, type ReportFormat } from '../reports/export-report';
import { bundleFromRun } from '../reports/prepare-bundle';
import { buildReport } from '../reports/report-model';
import { renderHtmlReport } from '../reports/render-html';
import type { AnalystKeyStore } from '../secrets/analyst-key';
import type { Environment } from '../workspace/clock';
import type { NotebookStore } from '../workspace/notebook-store';
import type { RunStore } from '../workspace/run-store';
import { SignOffLog } from '../workspace/sign-off-log';

type Requests = typeof reportRequests;
type Handler<M extends keyof Requests> = (params: z.output<Requests[M]['params']>) => Promise<z.output<Requests[M]['result']>>;

/** What the desktop app adds: a save dialog, opening a file, and Electron's print to PDF. */
export interface ReportPlatform {
  saveFileDialog?(options: { title: string; defaultName: string; extensions: string[] }): Promise<string | null>;
  openPath?(path: string): Promise<void>;
  printToPdf?: PdfPrinter;
}

export interface ReportService {
  handlers: { [M in keyof Requests]: Handler<M> };
}

/**
 * The export dialog's requests. A run's bundle is sealed once per sign-off and kept, so the
 * preview and every format exported with the same sign-off share one head hash — the HTML, the
 * PDF and the JSON bundle a manager receives all name the same proof.
 *
 * With the analyst's key the seal and the sign-off are signed. The first export with a sign-off
 * makes the key, registered to the name signed with; later sign-offs must use that name. The
 * preview never makes a key: before there is one it shows the report without the sign-off.
 */
export function createReportService(dependencies: {
  runs: RunStore;
  notebooks: NotebookStore;
  environment: Environment;
  workspaceDir: string;
  platform: ReportPlatform;
  analystKeys?: AnalystKeyStore;
}): ReportService {
  const { runs, notebooks, environment, platform, analystKeys } = dependencies;
  const sealed = new Map<string, ReportBundle>();
  const exported = new Map<string, { path: string; format: ReportFormat }>();

  const signerFor = (signOff: { name: string } | null, purpose: 'preview' | 'export'): Signer | null => {
    if (!analystKeys) return null;
    const existing = analystKeys.load();
    if (existing || !signOff || purpose === 'preview') return existing;
    return analystKeys.create(signOff.name);
  };

  const bundleOf = (notebookId: string, runId: string, requested: { name: string; comment: string } | null, purpose: 'preview' | 'export'): ReportBundle => {
    const run = runs.list(notebookId).find((candidate) => candidate.id === runId);
    if (!run) throw new WorkbenchError('not-found', `No run ${runId} in this notebook`);
    if (run.status === 'running') throw new WorkbenchError('conflict', 'The run is still going: export its report once it has ended');
    const signer = signerFor(requested, purpose);
    const signOff = requested && (signer || purpose === 'export') ? requested : null;
    const events = runs.events(runId);
    const notebook = notebooks.get(notebookId);
    // The run's cells, and the analyst's query cells left as charts (a report shows each chart's settings and table).
    const cells = notebook.cells.filter((cell) => cell.provenance.runId === runId || (cell.kind === 'query' && readCellData('query', cell.data).display?.view === 'chart'));
    const key = JSON.stringify([runId, events.length, signOff?.name ?? null, signOff?.comment ?? null, signer?.fingerprint ?? null, cells.map((cell) => [cell.id, cell.updatedAt])]);
    const cached = sealed.get(key);
    if (cached) return cached;
    const transcript = readTranscript(runs.transcript(runId));
    const materials: RunMaterials = {
      events,
      transcript: [transcript.header, ...transcript.exchanges],
      notebook: { format: 'decision-workbench/notebook', version: 1, title: notebook.title, runId, cells },
    };
    const bundle = bundleFromRun(materials, { at: environment.now(), signOff, signer });
    sealed.set(key, bundle);
    return bundle;
  };

  const exportedFile = (exportId: string): { path: string; format: ReportFormat } => {
    const file = exported.get(exportId);
    if (!file) throw new WorkbenchError('not-found', 'No such export in this session');
    return file;
  };

  return {
    handlers: {
      'reports/preview': async ({ notebookId, runId, signOff }) => {
        const bundle = bundleOf(notebookId, runId, signOff, 'preview');
        return { html: renderHtmlReport(buildReport(bundle)), head: bundle.head, eventCount: bundle.events.length };
      },
      'reports/export': async ({ notebookId, runId, format, signOff }) => {
        const bundle = bundleOf(notebookId, runId, signOff, 'export');
        const type = reportFileTypes[format];
        const defaultName = `${fileStem(buildReport(bundle).title)}-${runId}.${type.extension}`;
        const path = platform.saveFileDialog
          ? await platform.saveFileDialog({ title: `Export ${type.label}`, defaultName, extensions: [type.extension] })
          : freePath(join(dependencies.workspaceDir, 'exports'), defaultName);
        if (path === null) return null;
        const data = await exportReport(bundle, format, platform.printToPdf ? { printPdf: platform.printToPdf } : {});
        writeFileSync(path, data);
        // Signed-off runs are training material for AutoPlan playbooks (services/playbook-service.ts).
        if (signOff) new SignOffLog(dependencies.workspaceDir).record({ runId, notebookId, name: signOff.name, comment: signOff.comment, at: environment.now(), head: bundle.head });
        const exportId = environment.newId();
        exported.set(exportId, { path, format });
        return { exportId, path, format, bytes: data.length, head: bundle.head };
      },
      'reports/open': async ({ exportId }) => {
        const { path } = exportedFile(exportId);
        if (!platform.openPath) throw new WorkbenchError('unsupported', 'Opening files is for the desktop app; in browser mode the page opens the report itself');
        await platform.openPath(path);
        return { ok: true as const };
      },
      'reports/download': async ({ exportId }) => {
        const { path, format } = exportedFile(exportId);
        return { fileName: basename(path), mimeType: reportFileTypes[format].mimeType, base64: readFileSync(path).toString('base64') };
      },
    },
  };
}

/** A file name from a title: letters, digits and dashes, at most 60 characters. */
function fileStem(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'decision-report'
  );
}

/** `folder/name`, or `folder/name-2` and so on when taken: an export never overwrites another. */
function freePath(folder: string, name: string): string {
  mkdirSync(folder, { recursive: true });
  const dot = name.lastIndexOf('.');
  for (let counter = 1; ; counter++) {
    const candidate = join(folder, counter === 1 ? name : `${name.slice(0, dot)}-${counter}${name.slice(dot)}`);
    if (!existsSync(candidate)) return candidate;
  }
}
