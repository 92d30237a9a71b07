import { useEffect, useRef, useState } from 'react';
import type { ExportedReport, ReportDownload, ReportFormatValue, SignOffValue } from '../../src-main/contract/reports';
import { useWorkbench } from '../ui/store-context';
import { useDialogKeys } from '../ui/use-dialog-keys';
import type { ReportsSlice } from '../state/reports-slice';
import type { WorkbenchState } from '../state/store';

const formats: { value: ReportFormatValue; label: string; hint: string }[] = [
  { value: 'html', label: 'HTML', hint: 'one self-contained file, opens offline in any browser' },
  { value: 'pdf', label: 'PDF', hint: 'the same report, printed for A4' },
  { value: 'md', label: 'Markdown', hint: 'for wikis and tickets' },
  { value: 'json', label: 'JSON bundle', hint: 'everything needed to verify: dwb verify' },
  { value: 'ipynb', label: 'Jupyter notebook', hint: 'the notebook as .ipynb, with query outputs' },
];

/** The reports slice, once the store has it (it is always there when wired). */
function hasReports(state: WorkbenchState): state is WorkbenchState & ReportsSlice {
  return 'reportDialog' in state;
}

function useReports<T>(selector: (reports: ReportsSlice) => T, fallback: T): T {
  return useWorkbench((state) => (hasReports(state) ? selector(state) : fallback));
}

/**
 * Export a run's report: pick the run and the format, sign it off, watch the live preview (the
 * HTML report itself, in a sandboxed frame), export, and open the result. Every file exported
 * with the same sign-off names the same integrity head.
 */
export function ExportDialog() {
  const dialog = useReports((reports) => reports.reportDialog, null);
  if (!dialog) return null;
  return <ExportDialogBody key={dialog.notebookId} />;
}

/** Browser mode (`dwb serve`): no desktop bridge, so files reach the analyst as downloads. */
const browserMode = typeof window !== 'undefined' && !window.dwb;

function fileUrl(file: ReportDownload): string {
  const bytes = Uint8Array.from(atob(file.base64), (character) => character.charCodeAt(0));
  return URL.createObjectURL(new Blob([bytes], { type: file.mimeType }));
}

/** Hands a file to the browser's downloads, under its name. */
function saveWithBrowser(url: string, fileName: string): void {
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function ExportDialogBody() {
  const dialog = useReports((reports) => reports.reportDialog, null);
  const runs = useReports((reports) => reports.reportRuns, []);
  const preview = useReports((reports) => reports.reportPreview, null);
  // Actions are selected one by one: they never change, so effects depending on them run only when asked.
  const previewReport = useReports((reports) => reports.previewReport, null);
  const exportReport = useReports((reports) => reports.exportReport, null);
  const chooseReportRun = useReports((reports) => reports.chooseReportRun, null);
  const closeReportDialog = useReports((reports) => reports.closeReportDialog, null);
  const openExportedReport = useReports((reports) => reports.openExportedReport, null);
  const downloadExportedReport = useReports((reports) => reports.downloadExportedReport, null);
  const reportError = useWorkbench((state) => state.reportError);
  const [format, setFormat] = useState<ReportFormatValue>('html');
  const [name, setName] = useState('');
  const [comment, setComment] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [exported, setExported] = useState<ExportedReport | null>(null);
  const [downloaded, setDownloaded] = useState<string | null>(null);
  const runId = dialog?.runId ?? null;
  const signOff: SignOffValue | null = name.trim() ? { name: name.trim(), comment: comment.trim() } : null;
  const signOffKey = JSON.stringify(signOff);
  const dialogElement = useRef<HTMLDivElement>(null);
  useDialogKeys(dialogElement, () => closeReportDialog?.());

  useEffect(() => {
    if (!previewReport || !runId) return;
    // Typing a sign-off re-seals the bundle: wait for a pause in the typing first.
    const timer = setTimeout(() => {
      previewReport(runId, JSON.parse(signOffKey) as SignOffValue | null).then(
        () => setError(null),
        (caught: unknown) => setError(caught instanceof Error ? caught.message : String(caught)),
      );
    }, 350);
    return () => clearTimeout(timer);
  }, [previewReport, runId, signOffKey]);

  if (!dialog || !exportReport || !chooseReportRun || !closeReportDialog || !openExportedReport || !downloadExportedReport) return null;
  const close = (): void => closeReportDialog();

  const runExport = async (): Promise<void> => {
    if (!runId) return;
    setBusy(true);
    setError(null);
    // The line says this export only: an earlier export's download must not stand beside this one's path.
    setExported(null);
    setDownloaded(null);
    try {
      const result = await exportReport(runId, format, signOff);
      if (result) setExported(result);
      // Browser mode: the file was written on the server; the browser downloads its copy too.
      if (result && browserMode) {
        const file = await downloadExportedReport(result);
        saveWithBrowser(fileUrl(file), file.fileName);
        setDownloaded(file.fileName);
      }
      // The first signed export makes the analyst's key: preview again so the head shown is the one exported.
      if (result && signOff) await previewReport?.(runId, signOff);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };

  const openResult = async (result: ExportedReport): Promise<void> => {
    try {
      if (await openExportedReport(result)) return;
      // Browser mode: the page opens (HTML, PDF) or saves (the rest) the file itself.
      const file = await downloadExportedReport(result);
      const url = fileUrl(file);
      if (result.format === 'html' || result.format === 'pdf') {
        window.open(url, '_blank', 'noopener');
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
      } else {
        saveWithBrowser(url, file.fileName);
      }
    } catch (caught) {
      reportError(caught, 'Could not open the report');
    }
  };

  return (
    <div className="dialog-backdrop" role="presentation" onMouseDown={(event) => event.target === event.currentTarget && close()}>
      <div
        ref={dialogElement}
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-label="Export report"
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !busy && runId) {
            event.preventDefault();
            void runExport();
          }
        }}
        data-testid="export-dialog" style={{ width: 'min(1240px, 96vw)', height: '92vh', maxHeight: '92vh' }}>
        <header className="dialog-header">
          <h2>Export decision report</h2>
          <button className="icon" aria-label="Close" onClick={close}>
            ✕
          </button>
        </header>
        <div style={{ display: 'grid', gridTemplateColumns: '320px 1fr', gap: 16, flex: 1, minHeight: 0 }}>
          <div style={{ display: 'flex', flexDirection: 'column', gap: 12, overflow: 'auto' }}>
            <label>
              Run
              <select aria-label="Run" value={runId ?? ''} onChange={(event) => chooseReportRun(event.target.value)} style={{ width: '100%' }}>
                {runs.length === 0 && <option value="">No finished run in this notebook</option>}
                {runs.map((run) => (
                  <option key={run.id} value={run.id}>
                    {new Date(run.createdAt).toLocaleString()} · {run.technique} · {run.decision ?? run.status}
                  </option>
                ))}
              </select>
            </label>
            <fieldset style={{ border: '1px solid var(--border, #ddd)', borderRadius: 8, padding: '8px 12px' }}>
              <legend>Format</legend>
              {formats.map((option) => (
                <label key={option.value} className="checkbox" style={{ display: 'flex', gap: 8, alignItems: 'baseline', margin: '4px 0' }}>
                  <input type="radio" name="report-format" aria-label={option.label} checked={format === option.value} onChange={() => setFormat(option.value)} />
                  <span>
                    <strong>{option.label}</strong> <span className="hint">— {option.hint}</span>
                  </span>
                </label>
              ))}
            </fieldset>
            <fieldset style={{ border: '1px solid var(--border, #ddd)', borderRadius: 8, padding: '8px 12px', display: 'flex', flexDirection: 'column', gap: 8 }}>
              <legend>Sign-off</legend>
              <label>
                Signed off by
                <input aria-label="Signed off by" value={name} placeholder="Your name, as registered with your signing key (leave empty for no sign-off)" onChange={(event) => setName(event.target.value)} style={{ width: '100%' }} />
              </label>
              <label>
                Comment
                <textarea aria-label="Sign-off comment" value={comment} rows={4} placeholder="What you checked, caveats, approval" onChange={(event) => setComment(event.target.value)} style={{ width: '100%' }} />
              </label>
              <span className="hint">The sign-off and its time are sealed into the report’s hash chain and signed with your key: your first signed export makes it, registered to the name you sign with, and keeps it in the system’s key store (in browser mode, a private file in your config folder).</span>
            </fieldset>
            {preview && (
              <p className="hint" data-testid="report-head" title={preview.preview.head}>
                Integrity head <code>{preview.preview.head.slice(0, 16)}…</code> · {preview.preview.eventCount} events sealed
              </p>
            )}
            {error && (
              <p className="form-error" role="alert">
                {error}
              </p>
            )}
            {exported && (
              <div className="test-report ok" role="status" data-testid="export-result">
                <div>
                  Saved <code data-testid="export-path" style={{ wordBreak: 'break-all' }}>{exported.path}</code>
                  {downloaded && (
                    <>
                      {' '}
                      and downloaded as <code data-testid="export-downloaded">{downloaded}</code>
                    </>
                  )}
                </div>
                <button className="ghost small" data-testid="open-export" onClick={() => void openResult(exported)}>
                  Open
                </button>
              </div>
            )}
          </div>
          <div style={{ border: '1px solid var(--border, #ddd)', borderRadius: 8, overflow: 'hidden', background: '#eef1f5', minHeight: 0 }}>
            {preview ? (
              <iframe title="Report preview" data-testid="report-preview" sandbox="" srcDoc={preview.preview.html} style={{ width: '100%', height: '100%', border: 0 }} />
            ) : (
              <p className="hint" style={{ padding: 16 }}>
                {runId ? 'Preparing the preview…' : 'Choose a finished run.'}
              </p>
            )}
          </div>
        </div>
        <footer className="dialog-footer">
          <span className="hint">Verify a JSON bundle later with: npx dwb verify BUNDLE.json</span>
          <span className="spacer" />
          <button className="ghost" onClick={close}>
            Close
          </button>
          <button className="primary" data-testid="export-report-file" title="Ctrl+Enter" disabled={busy || !runId} onClick={() => void runExport()}>
            {busy ? 'Exporting…' : `Export ${formats.find((option) => option.value === format)?.label ?? ''}`}
          </button>
        </footer>
      </div>
    </div>
  );
}
