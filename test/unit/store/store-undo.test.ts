/**
 * The renderer's store against a real workbench in memory (openWorkbench is transport-free):
 * the undo policy is the caller's, given with each mutation (`capture` or `never`).
 */
import { describe, expect, it } from 'vitest';
import type { WorkbenchClient } from '../../../src-main/contract';
import { openWorkbench } from '../../../src-main/services/workbench';
import { createWorkbenchStore, type WorkbenchStore } from '../../../src-renderer/state/store';
import { useCleanups } from '../../support/lifecycle';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const onCleanup = useCleanups();

/** The store reads and writes localStorage (the last notebook, the theme); node has none, so a plain one in memory. */
function memoryLocalStorage(): void {
  const items = new Map<string, string>();
  const storage = {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, String(value)),
    removeItem: (key: string) => void items.delete(key),
  };
  (globalThis as { window?: unknown }).window = { localStorage: storage };
}

async function openStore(): Promise<{ store: WorkbenchStore; client: WorkbenchClient; notebookId: string }> {
  memoryLocalStorage();
  const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' }, installDemo: false });
  onCleanup(() => workbench.close());
  const listeners = new Set<(event: string, payload: unknown) => void>();
  workbench.subscribe((event, payload) => {
    for (const listener of listeners) listener(event, payload);
  });
  const client: WorkbenchClient = {
    invoke: (method, params) => workbench.invoke(method, params),
    on: (event, listener) => {
      const forward = (name: string, payload: unknown): void => {
        if (name === event) (listener as (payload: unknown) => void)(payload);
      };
      listeners.add(forward);
      return () => void listeners.delete(forward);
    },
  };
  const store = createWorkbenchStore(client);
  await store.getState().createNotebook('Undo');
  const notebookId = store.getState().currentNotebookId;
  if (!notebookId) throw new Error('no notebook opened');
  return { store, client, notebookId };
}

const cellIds = (store: WorkbenchStore): string[] => store.getState().cells.map((cell) => cell.id);

describe('the store’s undo policy, given by each caller', () => {
  it('a deleted cell captured is restored by undo, in its place and in the workspace', async () => {
    const { store, client, notebookId } = await openStore();
    const first = await store.getState().addCell('note');
    const second = await store.getState().addCell('note');
    await store.getState().deleteCell(first.id, { capture: 'capture' });
    expect(cellIds(store)).toEqual([second.id]);
    expect(store.getState().undoStack.map((entry) => entry.label)).toEqual(['Restore the deleted cell']);

    expect(await store.getState().undo()).toBe(true);
    expect(cellIds(store)).toEqual([first.id, second.id]);
    expect((await client.invoke('notebooks/get', { id: notebookId })).cells.map((cell) => cell.id)).toEqual([first.id, second.id]);
    expect(store.getState().undoStack).toEqual([]);
    expect(await store.getState().undo()).toBe(false);
  });

  it('a delete the caller says never to capture leaves the undo stack alone but still goes to the trash', async () => {
    const { store, client } = await openStore();
    const kept = await store.getState().addCell('note');
    await store.getState().deleteCell(kept.id, { capture: 'capture' });
    const other = await store.getState().addCell('note');
    await store.getState().deleteCell(other.id, { capture: 'never' });
    expect(cellIds(store)).toEqual([]);
    // Only the captured delete is on the stack: undo brings back that one, not the newer one.
    expect(store.getState().undoStack).toHaveLength(1);
    await store.getState().undo();
    expect(cellIds(store)).toEqual([kept.id]);
    expect((await client.invoke('trash/list', {})).cells.map((cell) => cell.id)).toContain(other.id);
  });

  it('a kind change is undoable only when captured', async () => {
    const { store } = await openStore();
    const cell = await store.getState().addCell('query');
    await store.getState().changeCellKind(cell.id, 'note', { capture: 'never' });
    expect(store.getState().cells[0]?.kind).toBe('note');
    expect(store.getState().undoStack).toEqual([]);
    await store.getState().changeCellKind(cell.id, 'query', { capture: 'capture' });
    expect(store.getState().cells[0]?.kind).toBe('query');
    expect(store.getState().undoStack.map((entry) => entry.label)).toEqual(['Turn the query back into a note']);
    await store.getState().undo();
    expect(store.getState().cells[0]?.kind).toBe('note');
  });

  it('a document removed with capture comes back on undo; with never it stays in the trash', async () => {
    const { store, notebookId } = await openStore();
    await store.getState().loadDocuments(notebookId);
    const file = (name: string): File => new File([new TextEncoder().encode(`# ${name}\nNotes.`)], name, { type: 'text/markdown' });
    const kept = await store.getState().attachDocument(notebookId, file('kept.md'));
    const dropped = await store.getState().attachDocument(notebookId, file('dropped.md'));
    await store.getState().removeDocument(dropped.id, { capture: 'never' });
    await store.getState().removeDocument(kept.id, { capture: 'capture' });
    expect(store.getState().documents?.list).toEqual([]);
    expect(store.getState().undoStack.map((entry) => entry.label)).toEqual(['Restore the document kept.md']);
    await store.getState().undo();
    expect(store.getState().documents?.list.map((document) => document.name)).toEqual(['kept.md']);
  });

  it('opening another notebook forgets the entries (they restore into the notebook they came from)', async () => {
    const { store } = await openStore();
    const cell = await store.getState().addCell('note');
    await store.getState().deleteCell(cell.id, { capture: 'capture' });
    await store.getState().createNotebook('Other');
    expect(store.getState().undoStack).toEqual([]);
  });
});
