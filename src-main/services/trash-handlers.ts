import type { PlaybookStore } from '../engine/techniques/autoplan/playbook-store';
import type { DocumentStore } from '../workspace/document-store';
import type { TrashStore } from '../workspace/trash-store';
import type { EventBus } from './event-bus';
import type { HandlersFor } from './router';

/**
 * The `trash/*` requests: what was deleted (notebooks, cells, connections, documents and a
 * removed connection's playbooks), restored one by one or emptied at once. Emptying keeps the
 * notebooks a run is still writing to (`busyNotebooks`).
 */
export function trashHandlers(dependencies: {
  trash: TrashStore;
  documents: DocumentStore;
  playbooks: PlaybookStore;
  busyNotebooks(): ReadonlySet<string>;
  bus: EventBus;
  notebooksChanged(): void;
}): HandlersFor<'trash/'> {
  const { trash, documents, playbooks, bus } = dependencies;
  return {
    'trash/list': () => ({
      ...trash.list(),
      playbooks: playbooks.setAsideList().map((aside) => ({ ...aside, connectionName: trash.connectionName(aside.scenario.slice('conn-'.length)) })),
    }),
    'trash/restore': ({ kind, id }) => {
      if (kind === 'document') {
        const notebookId = documents.restore(id);
        bus.emit('documents-change', { notebookId, documents: documents.list(notebookId) });
        return { ok: true as const };
      }
      if (kind === 'playbooks') {
        playbooks.putBack(id);
        bus.emit('playbooks-change', {});
        return { ok: true as const };
      }
      trash.restore(kind, id);
      if (kind === 'connection') bus.emit('connections-change', {});
      dependencies.notebooksChanged();
      return { ok: true as const };
    },
    'trash/empty': () => {
      const removed = trash.empty(dependencies.busyNotebooks());
      bus.emit('connections-change', {});
      return { ...removed, playbooks: playbooks.emptySetAside() };
    },
  };
}
