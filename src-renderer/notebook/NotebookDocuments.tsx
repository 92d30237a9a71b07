import { useEffect, useRef, useState } from 'react';
import { documentLimits } from '../../src-main/contract/documents';
import { useWorkbench } from '../ui/store-context';

/**
 * The notebook's attached documents (plain text or Markdown): attach, list, remove. Runs of
 * this notebook receive them; DeLLMa reads them into its context. Names and sizes are shown as
 * text only: a document is data the model reads, never markup.
 */
export function NotebookDocuments({ notebookId }: { notebookId: string }) {
  const documents = useWorkbench((state) => (state.documents?.notebookId === notebookId ? state.documents.list : null));
  const loadDocuments = useWorkbench((state) => state.loadDocuments);
  const attachDocument = useWorkbench((state) => state.attachDocument);
  const removeDocument = useWorkbench((state) => state.removeDocument);
  const reportError = useWorkbench((state) => state.reportError);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    void loadDocuments(notebookId).catch((caught: unknown) => reportError(caught, 'Could not list the documents'));
  }, [notebookId, loadDocuments, reportError]);

  const attach = async (files: FileList | null): Promise<void> => {
    if (!files || files.length === 0) return;
    setBusy(true);
    setError(null);
    const problems: string[] = [];
    for (const file of Array.from(files)) {
      try {
        await attachDocument(notebookId, file);
      } catch (caught) {
        problems.push(caught instanceof Error ? caught.message : String(caught));
      }
    }
    setError(problems.length ? problems.join(' ') : null);
    setBusy(false);
    if (input.current) input.current.value = '';
  };

  return (
    <section className="notebook-documents" data-testid="notebook-documents" aria-label="Attached documents">
      <span className="muted">Documents{documents && documents.length > 0 ? ` (${documents.length})` : ''}:</span>
      {documents?.length === 0 && <span className="muted">none attached</span>}
      <ul className="document-list">
        {documents?.map((document) => (
          <li key={document.id} className="document-chip" data-testid="attached-document" title={`${document.chars.toLocaleString('en-US')} characters, added ${new Date(document.addedAt).toLocaleString()}`}>
            <span className="document-name">{document.name}</span>
            <span className="muted small"> {document.chars.toLocaleString('en-US')} chars</span>
            <button
              className="icon small"
              aria-label={`Remove document ${document.name}`}
              onClick={() => void removeDocument(document.id, { capture: 'capture' }).catch((caught: unknown) => setError(caught instanceof Error ? caught.message : String(caught)))}
            >
              ✕
            </button>
          </li>
        ))}
      </ul>
      <input
        ref={input}
        type="file"
        hidden
        multiple
        accept=".txt,.md,.markdown,.text,.csv,text/plain,text/markdown"
        data-testid="document-file"
        onChange={(event) => void attach(event.target.files)}
      />
      <button className="ghost small" data-testid="attach-document" disabled={busy} onClick={() => input.current?.click()} title={`Plain text or Markdown, up to ${(documentLimits.maxBytes / 1_000_000).toLocaleString('en-US')} MB; DeLLMa runs read them`}>
        {busy ? 'Attaching…' : 'Attach document…'}
      </button>
      {error && (
        <p className="form-error" role="alert" data-testid="document-error">
          {error}
        </p>
      )}
    </section>
  );
}
