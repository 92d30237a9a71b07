import type { AppDatabase } from '../workspace/app-database';
import { searchCells } from '../workspace/cell-search';
import type { DocumentStore } from '../workspace/document-store';
import type { NotebookStore } from '../workspace/notebook-store';
import type { HandlersFor } from './router';

/**
 * The `notebooks/*`, `cells/*` and `search/*` requests. `notebooksChanged` tells every client
 * that the notebook list changed (a cell's change reaches them through the cell's own reply).
 */
export function notebookHandlers(dependencies: {
  notebooks: NotebookStore;
  documents: DocumentStore;
  database: AppDatabase;
  notebooksChanged(): void;
}): HandlersFor<'notebooks/' | 'cells/' | 'search/'> {
  const { notebooks, documents, database } = dependencies;
  const changed = <T>(value: T): T => {
    dependencies.notebooksChanged();
    return value;
  };
  return {
    'notebooks/list': () => notebooks.list(),
    'notebooks/get': ({ id }) => notebooks.get(id),
    'notebooks/create': ({ title }) => changed(notebooks.create(title)),
    'notebooks/rename': ({ id, title }) => changed(notebooks.rename(id, title)),
    'notebooks/duplicate': ({ id }) => {
      const copy = notebooks.duplicate(id);
      documents.copy(id, copy.id);
      return changed(copy);
    },
    'notebooks/delete': ({ id }) => {
      notebooks.delete(id);
      return changed({ ok: true as const });
    },
    'notebooks/restore': ({ id }) => changed(notebooks.restore(id)),

    'cells/insert': (params) => notebooks.insertCell(params),
    'cells/update': (params) => notebooks.updateCell(params),
    'cells/change-kind': (params) => notebooks.changeCellKind(params),
    'cells/move': ({ id, afterCellId }) => {
      notebooks.moveCell(id, afterCellId);
      return { ok: true as const };
    },
    'cells/delete': ({ id }) => {
      notebooks.deleteCell(id);
      return { ok: true as const };
    },
    'cells/restore': ({ id }) => notebooks.restoreCell(id),

    'search/cells': ({ text, limit }) => searchCells(database, text, limit),
  };
}
