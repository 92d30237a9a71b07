import type { DocumentSummary, Result } from '../../src-main/contract';
import type { SliceContext } from './store';
import { restoreFailure, type CaptureOption } from './undo';

export interface DocumentsSlice {
  /** The open notebook's attached documents (for that notebook only). */
  documents: { notebookId: string; list: DocumentSummary[] } | null;
  loadDocuments(notebookId: string): Promise<void>;
  /** Sends a file's bytes; the main process checks it (size, binary, UTF-8) and says why it refuses one. */
  attachDocument(notebookId: string, file: File): Promise<DocumentSummary>;
  /** Moves a document to the trash; the notice's Undo, Ctrl+Z or the trash puts it back. */
  removeDocument(id: string, options: CaptureOption): Promise<void>;
  /** Builds the DeLLMa agriculture example, opens its notebook and the run composer with DeLLMa and the question. */
  openAgricultureExample(): Promise<Result<'examples/dellma-agriculture'>>;
}

/** A file's bytes as base64, in slices so a large file does not overflow the argument list. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let start = 0; start < bytes.length; start += 0x8000) binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  return btoa(binary);
}

export function createDocumentsSlice({ client, set, get }: SliceContext): DocumentsSlice {
  client.on('documents-change', ({ notebookId, documents }) => {
    if (get().currentNotebookId === notebookId) set({ documents: { notebookId, list: documents } });
  });
  return {
    documents: null,
    loadDocuments: async (notebookId) => {
      const list = await client.invoke('documents/list', { notebookId });
      if (get().currentNotebookId === notebookId) set({ documents: { notebookId, list } });
    },
    attachDocument: async (notebookId, file) => {
      const added = await client.invoke('documents/add', { notebookId, name: file.name, base64: await base64Of(file) });
      await get().loadDocuments(notebookId);
      return added;
    },
    removeDocument: async (id, { capture }) => {
      const current = get().documents;
      const name = current?.list.find((document) => document.id === id)?.name ?? 'The document';
      await client.invoke('documents/remove', { id });
      if (current) await get().loadDocuments(current.notebookId);
      const restore = async (): Promise<void> => {
        get().dropUndo(id);
        const restored = await client.invoke('documents/restore', { id }).catch((error: unknown) => {
          throw restoreFailure(error, name);
        });
        await get().loadDocuments(restored.notebookId);
      };
      if (capture === 'capture') get().pushUndo({ label: `Restore the document ${name}`, targetId: id, undo: restore });
      get().notify({
        tone: 'info',
        message: `${name} removed — in the trash; Ctrl+Z restores it`,
        restores: id,
        action: { label: 'Undo', run: () => void restore().catch((error: unknown) => get().reportError(error, 'Could not restore the document')) },
      });
    },
    openAgricultureExample: async () => {
      const opened = await client.invoke('examples/dellma-agriculture', {});
      await Promise.all([get().loadConnections(), get().loadNotebooks()]);
      get().setMainView('notebook');
      await get().openNotebook(opened.notebookId);
      get().openRunDraft({ question: opened.question, technique: 'dellma', connectionId: opened.connectionId });
      return opened;
    },
  };
}
