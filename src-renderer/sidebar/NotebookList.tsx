import { useState } from 'react';
import { useWorkbench } from '../ui/store-context';
import { CopyIcon, PencilIcon, TrashIcon } from '../ui/icons';
import { rovingListKeyDown } from '../ui/roving-list';

/** The workspace's notebooks: open, create, rename, duplicate, delete (with undo). */
export function NotebookList() {
  const notebooks = useWorkbench((state) => state.notebooks);
  const currentId = useWorkbench((state) => state.currentNotebookId);
  const openNotebook = useWorkbench((state) => state.openNotebook);
  const setMainView = useWorkbench((state) => state.setMainView);
  const createNotebook = useWorkbench((state) => state.createNotebook);
  const renameNotebook = useWorkbench((state) => state.renameNotebook);
  const duplicateNotebook = useWorkbench((state) => state.duplicateNotebook);
  const deleteNotebook = useWorkbench((state) => state.deleteNotebook);
  const reportError = useWorkbench((state) => state.reportError);
  const openAgricultureExample = useWorkbench((state) => state.openAgricultureExample);
  const [renaming, setRenaming] = useState<{ id: string; title: string } | null>(null);
  // The list's one tab stop: the row last focused, else the open notebook, else the first.
  const [focusedId, setFocusedId] = useState<string | null>(null);
  const tabStopId = [focusedId, currentId].find((id) => id !== null && notebooks.some((notebook) => notebook.id === id)) ?? notebooks[0]?.id ?? null;

  const attempt = (work: Promise<unknown>, context: string): void => void work.catch((error: unknown) => reportError(error, context));

  return (
    <section className="panel" aria-label="Notebooks">
      <header className="panel-header">
        <h2>Notebooks</h2>
        <button className="ghost small" data-testid="new-notebook" title="New notebook (Ctrl+Alt+N)" onClick={() => attempt(createNotebook(), 'Could not create a notebook')}>
          + New
        </button>
        <button
          className="ghost small"
          data-testid="open-dellma-example"
          title="Open the DeLLMa agriculture example: the USDA 2021 California figures as a database, the USDA report attached, and the question which fruit to plant for DeLLMa"
          onClick={() => attempt(openAgricultureExample(), 'Could not open the DeLLMa example')}
        >
          + Example
        </button>
      </header>
      <ul className="list" data-testid="notebook-list" aria-label="Notebooks (arrow keys move, Enter opens)" onKeyDown={rovingListKeyDown}>
        {notebooks.map((notebook) => (
          <li key={notebook.id} className={notebook.id === currentId ? 'selected' : ''}>
            {renaming?.id === notebook.id ? (
              <input
                autoFocus
                aria-label="New notebook name"
                value={renaming.title}
                onChange={(event) => setRenaming({ id: notebook.id, title: event.target.value })}
                onBlur={() => setRenaming(null)}
                onKeyDown={(event) => {
                  if (event.key === 'Escape') setRenaming(null);
                  if (event.key === 'Enter' && renaming.title.trim()) {
                    attempt(renameNotebook(notebook.id, renaming.title.trim()), 'Rename failed');
                    setRenaming(null);
                  }
                }}
              />
            ) : (
              <button
                className="list-item"
                data-roving-item
                tabIndex={notebook.id === tabStopId ? 0 : -1}
                aria-current={notebook.id === currentId ? 'page' : undefined}
                onFocus={() => setFocusedId(notebook.id)}
                // Choosing a notebook shows it, the open one too, whatever view (trash, benchmarks, playbooks) is in front.
                onClick={() => attempt(openNotebook(notebook.id).then(() => setMainView('notebook')), 'Could not open the notebook')} onDoubleClick={() => setRenaming({ id: notebook.id, title: notebook.title })}>
                <span className="list-title">{notebook.title}</span>
                <span className="list-meta">{notebook.cellCount}</span>
              </button>
            )}
            <span className="row-actions">
              <button className="icon" data-roving-action tabIndex={-1} title="Rename" aria-label={`Rename ${notebook.title}`} onClick={() => setRenaming({ id: notebook.id, title: notebook.title })}>
                <PencilIcon />
              </button>
              <button className="icon" data-roving-action tabIndex={-1} title="Duplicate" aria-label={`Duplicate ${notebook.title}`} onClick={() => attempt(duplicateNotebook(notebook.id), 'Duplicate failed')}>
                <CopyIcon />
              </button>
              <button className="icon" data-roving-action tabIndex={-1} title="Delete (undo from the notice)" aria-label={`Delete ${notebook.title}`} onClick={() => attempt(deleteNotebook(notebook.id), 'Delete failed')}>
                <TrashIcon />
              </button>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
