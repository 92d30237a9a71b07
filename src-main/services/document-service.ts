import type { z } from 'zod';
import type { documentRequests } from '../contract/documents';
import { WorkbenchError } from '../contract/errors';
import type { DocumentStore } from '../workspace/document-store';

type Requests = typeof documentRequests;
type Handler<M extends keyof Requests> = (params: z.output<Requests[M]['params']>) => z.output<Requests[M]['result']>;

/** Reads base64 strictly: anything but the base64 alphabet is a transport error, not a document. */
function decodeBase64(name: string, base64: string): Uint8Array {
  const compact = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw new WorkbenchError('invalid-request', `"${name}" did not arrive as base64`);
  return new Uint8Array(Buffer.from(compact, 'base64'));
}

/** The `documents/*` requests: a notebook's attached documents (src-main/contract/documents.ts). */
export function documentHandlers(store: DocumentStore, changed: (notebookId: string) => void): { [M in keyof Requests]: Handler<M> } {
  return {
    'documents/list': ({ notebookId }) => store.list(notebookId),
    'documents/get': ({ id }) => store.get(id),
    'documents/add': ({ notebookId, name, base64 }) => {
      const added = store.add(notebookId, name, decodeBase64(name, base64));
      changed(notebookId);
      return added;
    },
    'documents/remove': ({ id }) => {
      changed(store.remove(id));
      return { ok: true as const };
    },
    'documents/restore': ({ id }) => {
      changed(store.restore(id));
      return store.get(id);
    },
  };
}
