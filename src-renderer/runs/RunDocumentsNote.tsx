import { documentLimits, type DocumentSummary } from '../../src-main/contract/documents';
import { useWorkbench } from '../ui/store-context';

/** One empty list, so the store selector below returns the same value while nothing is attached. */
const noDocuments: readonly DocumentSummary[] = [];

/** The composer's line about the notebook's documents: which technique reads them, and how much of them. */
export function RunDocumentsNote({ technique }: { technique: string }) {
  const documents = useWorkbench((state) => (state.documents?.notebookId === state.currentNotebookId ? state.documents.list : noDocuments));
  if (documents.length === 0) {
    return technique === 'dellma' ? <p className="muted small" data-testid="run-documents-note">No documents attached: attach reports or notes to the notebook (Attach document…) and DeLLMa reads them into its context.</p> : null;
  }
  const names = documents.map((document) => document.name).join(', ');
  return (
    <p className="muted small" data-testid="run-documents-note">
      {technique === 'dellma'
        ? `DeLLMa reads the attached document(s) into its context: ${names} (at most ${documentLimits.contextChars.toLocaleString('en-US')} characters in all; a longer one is cut, and the context cell says how much was used).`
        : `Attached documents (${names}) are used by DeLLMa only; this technique does not read them.`}
    </p>
  );
}
