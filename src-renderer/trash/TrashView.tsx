import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { Result, WorkbenchClient } from '../../src-main/contract';
import type { TrashKind, TrashListing } from '../../src-main/contract/trash';
import { useWorkbench } from '../ui/store-context';
import { useDialogKeys } from '../ui/use-dialog-keys';

const when = (iso: string): string => new Date(iso).toLocaleString();

/** “1 notebook”, “2 cells”, “1 set of playbooks”. */
const countOf = (count: number, one: string, many = `${one}s`): string => `${count.toLocaleString()} ${count === 1 ? one : many}`;

/** Every id the listing holds, of whatever kind. */
const listedIds = (listing: TrashListing): string[] =>
  [listing.notebooks, listing.cells, listing.documents, listing.connections, listing.playbooks].flatMap((items) => items.map((item) => item.id));

/** What emptying the trash deleted, naming only the kinds it deleted. */
function purgedSummary(removed: Result<'trash/empty'>): string {
  const parts = [
    removed.notebooks > 0 && countOf(removed.notebooks, 'notebook'),
    removed.cells > 0 && countOf(removed.cells, 'cell'),
    removed.documents > 0 && countOf(removed.documents, 'document'),
    removed.connections > 0 && countOf(removed.connections, 'connection'),
    removed.playbooks > 0 && countOf(removed.playbooks, 'set of playbooks', 'sets of playbooks'),
  ].filter((part): part is string => typeof part === 'string');
  const kept = removed.kept ? ` (${countOf(removed.kept, 'notebook')} kept while a run writes to ${removed.kept === 1 ? 'it' : 'them'})` : '';
  return `${parts.length === 0 ? 'Nothing was deleted' : `Deleted for good: ${parts.join(', ')}`}${kept}.`;
}

/**
 * What was deleted — notebooks, cells, attached documents, connections, a removed connection's playbooks — until the analyst restores it or empties
 * the trash (after a confirmation). Nothing leaves the workspace any other way.
 */
export function TrashView({ client }: { client: WorkbenchClient }) {
  const reportError = useWorkbench((state) => state.reportError);
  const notify = useWorkbench((state) => state.notify);
  const loadNotebooks = useWorkbench((state) => state.loadNotebooks);
  const openNotebook = useWorkbench((state) => state.openNotebook);
  const currentNotebookId = useWorkbench((state) => state.currentNotebookId);
  const dropUndo = useWorkbench((state) => state.dropUndo);
  const loadDocuments = useWorkbench((state) => state.loadDocuments);
  const [listing, setListing] = useState<TrashListing | null>(null);
  const [confirming, setConfirming] = useState(false);

  const reload = useCallback(async (): Promise<void> => setListing(await client.invoke('trash/list', {})), [client]);
  useEffect(() => {
    let current = true;
    client.invoke('trash/list', {}).then(
      (found) => current && setListing(found),
      (error: unknown) => reportError(error, 'Could not read the trash'),
    );
    return () => {
      current = false;
    };
  }, [client, reportError]);

  const restore = async (kind: TrashKind, id: string, notebookId: string | null): Promise<void> => {
    try {
      await client.invoke('trash/restore', { kind, id });
      dropUndo(id);
      if (kind === 'notebook') await loadNotebooks();
      // A restored cell shows in its notebook when that notebook is open.
      if (kind === 'cell' && notebookId !== null && notebookId === currentNotebookId) await openNotebook(notebookId);
      if (kind === 'cell') await loadNotebooks();
      // A restored document shows in its notebook's documents row when that notebook is open.
      if (kind === 'document' && notebookId !== null && notebookId === currentNotebookId) await loadDocuments(notebookId);
      await reload();
    } catch (error) {
      reportError(error, 'Could not restore');
    }
  };

  const empty = async (): Promise<void> => {
    setConfirming(false);
    try {
      const before = await client.invoke('trash/list', {});
      const removed = await client.invoke('trash/empty', {});
      const after = await client.invoke('trash/list', {});
      setListing(after);
      // Undo notices and Ctrl+Z entries for what is gone for good would only fail now.
      const left = new Set(listedIds(after));
      for (const id of listedIds(before)) if (!left.has(id)) dropUndo(id);
      notify({ tone: 'info', message: purgedSummary(removed) });
    } catch (error) {
      reportError(error, 'Could not empty the trash');
    }
  };

  const count = listing ? listing.notebooks.length + listing.cells.length + listing.documents.length + listing.connections.length + listing.playbooks.length : 0;
  return (
    <main className="notebook trash-view" data-testid="trash-view" aria-label="Trash">
      <h1 className="notebook-title">Trash</h1>
      <div className="notebook-actions">
        <span className="muted">{listing === null ? 'Reading…' : count === 0 ? 'The trash is empty.' : `${count} deleted item${count === 1 ? '' : 's'}; restore puts each back where it was.`}</span>
        <span className="spacer" />
        <button className="ghost danger" data-testid="empty-trash" disabled={count === 0} onClick={() => setConfirming(true)}>
          Empty the trash…
        </button>
      </div>
      {listing && listing.notebooks.length > 0 && (
        <TrashSection title="Notebooks">
          {listing.notebooks.map((notebook) => (
            <TrashRow key={notebook.id} kind="notebook" title={notebook.title} meta={`${countOf(notebook.cellCount, 'cell')} · deleted ${when(notebook.deletedAt)}`} onRestore={() => void restore('notebook', notebook.id, null)} />
          ))}
        </TrashSection>
      )}
      {listing && listing.cells.length > 0 && (
        <TrashSection title="Cells">
          {listing.cells.map((cell) => (
            <TrashRow
              key={cell.id}
              kind="cell"
              title={cell.excerpt || `(empty ${cell.kind})`}
              meta={`${cell.kind} in “${cell.notebookTitle}” · deleted ${when(cell.deletedAt)}`}
              onRestore={() => void restore('cell', cell.id, cell.notebookId)}
            />
          ))}
        </TrashSection>
      )}
      {listing && listing.documents.length > 0 && (
        <TrashSection title="Documents">
          {listing.documents.map((document) => (
            <TrashRow
              key={document.id}
              kind="document"
              title={document.name}
              meta={`attached to “${document.notebookTitle}” · ${document.chars.toLocaleString()} characters · removed ${when(document.deletedAt)}`}
              onRestore={() => void restore('document', document.id, document.notebookId)}
            />
          ))}
        </TrashSection>
      )}
      {listing && listing.connections.length > 0 && (
        <TrashSection title="Connections">
          {listing.connections.map((connection) => (
            <TrashRow
              key={connection.id}
              kind="connection"
              title={connection.name}
              meta={`${connection.engine} · deleted ${when(connection.deletedAt)}${connection.passwordForgotten ? ' · its password must be entered again' : ''}`}
              onRestore={() => void restore('connection', connection.id, null)}
            />
          ))}
        </TrashSection>
      )}
      {listing && listing.playbooks.length > 0 && (
        <TrashSection title="Playbooks">
          {listing.playbooks.map((aside) => (
            <TrashRow
              key={aside.id}
              kind="playbooks"
              title={`${aside.connectionName ?? `Removed connection ${aside.scenario.slice('conn-'.length)}`} × ${aside.db === 'rdb' ? 'relational' : 'graph'}`}
              meta={`${aside.versions} playbook version${aside.versions === 1 ? '' : 's'} · deleted ${when(aside.deletedAt)}`}
              onRestore={() => void restore('playbooks', aside.id, null)}
            />
          ))}
        </TrashSection>
      )}
      {confirming && <ConfirmEmpty count={count} onCancel={() => setConfirming(false)} onConfirm={() => void empty()} />}
    </main>
  );
}

function TrashSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="trash-section" aria-label={`Deleted ${title.toLowerCase()}`}>
      <h2>{title}</h2>
      <ul className="trash-list">{children}</ul>
    </section>
  );
}

function TrashRow({ kind, title, meta, onRestore }: { kind: TrashKind; title: string; meta: string; onRestore(): void }) {
  return (
    <li className="trash-row" data-testid="trash-item" data-kind={kind}>
      <span className="trash-text">
        <span className="trash-title">{title}</span>
        <span className="muted small">{meta}</span>
      </span>
      <button className="ghost small" aria-label={`Restore ${kind} ${title}`} onClick={onRestore}>
        Restore
      </button>
    </li>
  );
}

function ConfirmEmpty({ count, onCancel, onConfirm }: { count: number; onCancel(): void; onConfirm(): void }) {
  const dialog = useRef<HTMLDivElement>(null);
  useDialogKeys(dialog, onCancel);
  return (
    <div className="dialog-backdrop" role="presentation" onMouseDown={(event) => event.target === event.currentTarget && onCancel()}>
      <div ref={dialog} className="dialog" role="dialog" aria-modal="true" aria-label="Empty the trash" data-testid="confirm-empty-trash">
        <header className="dialog-header">
          <h2>Empty the trash?</h2>
        </header>
        <p>
          {count} item{count === 1 ? '' : 's'} will be deleted for good, with the runs and logs of deleted notebooks. This cannot be undone.
        </p>
        <footer className="dialog-footer">
          <span className="spacer" />
          <button className="ghost" onClick={onCancel}>
            Keep them
          </button>
          <button className="primary danger" data-testid="confirm-empty" onClick={onConfirm}>
            Delete for good
          </button>
        </footer>
      </div>
    </div>
  );
}
