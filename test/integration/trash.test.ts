import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../src-main/contract';
import { openWorkbench, type Workbench } from '../../src-main/services/workbench';
import { fixedEnvironment, tinySqlite } from '../support/fixtures';
import { useTempDirs } from '../support/temp';

const tempDir = useTempDirs();
const opened: Workbench[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((workbench) => workbench.close()));
});

function open(directory = tempDir()): Workbench {
  const workbench = openWorkbench({ workspaceDir: directory, platform: { transport: 'websocket' }, environment: fixedEnvironment(), installDemo: false });
  opened.push(workbench);
  return workbench;
}

describe('the trash', () => {
  it('lists deleted notebooks, cells and connections, restores each where it was, and empties for good', async () => {
    const directory = tempDir();
    const workbench = open(directory);
    const kept = await workbench.invoke('notebooks/create', { title: 'Kept' });
    const first = await workbench.invoke('cells/insert', { notebookId: kept.id, kind: 'query', source: 'SELECT 1' });
    const second = await workbench.invoke('cells/insert', { notebookId: kept.id, afterCellId: first.id, kind: 'note', source: 'A note   worth\nkeeping' });
    await workbench.invoke('cells/insert', { notebookId: kept.id, afterCellId: second.id, kind: 'query', source: 'SELECT 3' });
    const dropped = await workbench.invoke('notebooks/create', { title: 'Dropped' });
    const droppedCell = await workbench.invoke('cells/insert', { notebookId: dropped.id, kind: 'note', source: 'inside the dropped notebook' });
    const connection = await workbench.invoke('connections/add', { name: 'tiny', target: { engine: 'sqlite', path: tinySqlite(tempDir()) } });

    await workbench.invoke('cells/delete', { id: second.id });
    await workbench.invoke('notebooks/delete', { id: dropped.id });
    await workbench.invoke('connections/remove', { id: connection.id });

    const listing = await workbench.invoke('trash/list', {});
    expect(listing.notebooks).toMatchObject([{ id: dropped.id, title: 'Dropped', cellCount: 1 }]);
    // A cell of a deleted notebook travels with its notebook; only the loose cell is listed.
    expect(listing.cells).toMatchObject([{ id: second.id, notebookId: kept.id, notebookTitle: 'Kept', kind: 'note', excerpt: 'A note worth keeping' }]);
    expect(listing.connections).toMatchObject([{ id: connection.id, name: 'tiny', engine: 'sqlite' }]);

    // Restored: the cell in its old place, the connection in the list.
    await workbench.invoke('trash/restore', { kind: 'cell', id: second.id });
    expect((await workbench.invoke('notebooks/get', { id: kept.id })).cells.map((cell) => cell.source)).toEqual(['SELECT 1', 'A note   worth\nkeeping', 'SELECT 3']);
    await workbench.invoke('trash/restore', { kind: 'connection', id: connection.id });
    expect((await workbench.invoke('connections/list', {})).map((item) => item.id)).toContain(connection.id);
    await expect(workbench.invoke('trash/restore', { kind: 'connection', id: connection.id })).rejects.toMatchObject({ code: 'not-found' });

    // Emptied: the deleted notebook (with its cell) and a newly deleted cell go for good; the rest stays.
    await workbench.invoke('cells/delete', { id: first.id });
    expect(await workbench.invoke('trash/empty', {})).toEqual({ notebooks: 1, cells: 2, connections: 0, documents: 0, kept: 0 });
    expect(await workbench.invoke('trash/list', {})).toEqual({ notebooks: [], cells: [], connections: [], documents: [] });
    await expect(workbench.invoke('notebooks/get', { id: dropped.id })).rejects.toMatchObject({ code: 'not-found' });
    await expect(workbench.invoke('cells/restore', { id: droppedCell.id })).rejects.toMatchObject({ code: 'not-found' });
    await expect(workbench.invoke('trash/restore', { kind: 'cell', id: first.id })).rejects.toMatchObject({ code: 'not-found' });
    expect((await workbench.invoke('notebooks/get', { id: kept.id })).cells.map((cell) => cell.source)).toEqual(['A note   worth\nkeeping', 'SELECT 3']);

    // And it holds after reopening the workspace.
    await workbench.close();
    opened.splice(opened.indexOf(workbench), 1);
    const again = open(directory);
    expect((await again.invoke('notebooks/list', {})).map((notebook) => notebook.title)).toEqual(['Kept']);
    expect(await again.invoke('trash/list', {})).toEqual({ notebooks: [], cells: [], connections: [], documents: [] });
  });

  it('keeps a removed document: listed with its notebook, restored in its place (by Undo or the trash), refused when its name was attached again, gone only when emptied', async () => {
    const directory = tempDir();
    const workbench = open(directory);
    const notebook = await workbench.invoke('notebooks/create', { title: 'Fruit' });
    const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
    const report = await workbench.invoke('documents/add', { notebookId: notebook.id, name: 'report.txt', base64: base64('Prices rise.') });
    await workbench.invoke('documents/add', { notebookId: notebook.id, name: 'notes.md', base64: base64('# Notes\nFrost in March.') });
    const changes: string[][] = [];
    workbench.subscribe((event, payload) => {
      if (event === 'documents-change') changes.push((payload as EventPayload<'documents-change'>).documents.map((document) => document.name));
    });

    await workbench.invoke('documents/remove', { id: report.id });
    expect((await workbench.invoke('documents/list', { notebookId: notebook.id })).map((document) => document.name)).toEqual(['notes.md']);
    await expect(workbench.invoke('documents/get', { id: report.id })).rejects.toMatchObject({ code: 'not-found' });
    expect((await workbench.invoke('trash/list', {})).documents).toMatchObject([{ id: report.id, notebookId: notebook.id, notebookTitle: 'Fruit', name: 'report.txt', chars: 12 }]);

    // Undo (the notice's button and Ctrl+Z call this): back first, as it was attached first.
    expect(await workbench.invoke('documents/restore', { id: report.id })).toMatchObject({ id: report.id, name: 'report.txt', chars: 12 });
    expect((await workbench.invoke('documents/list', { notebookId: notebook.id })).map((document) => document.name)).toEqual(['report.txt', 'notes.md']);
    expect((await workbench.invoke('documents/get', { id: report.id })).text).toBe('Prices rise.');
    expect((await workbench.invoke('trash/list', {})).documents).toEqual([]);
    await expect(workbench.invoke('documents/restore', { id: report.id })).rejects.toMatchObject({ code: 'not-found' });

    // From the trash view; but not over a document of the same name attached meanwhile.
    await workbench.invoke('documents/remove', { id: report.id });
    const replacement = await workbench.invoke('documents/add', { notebookId: notebook.id, name: 'report.txt', base64: base64('Prices fall.') });
    await expect(workbench.invoke('trash/restore', { kind: 'document', id: report.id })).rejects.toThrow(/"report.txt" is already attached to this notebook/);
    await workbench.invoke('documents/remove', { id: replacement.id });
    await workbench.invoke('trash/restore', { kind: 'document', id: report.id });
    expect((await workbench.invoke('documents/list', { notebookId: notebook.id })).map((document) => document.name)).toEqual(['report.txt', 'notes.md']);
    expect(changes).toEqual([['notes.md'], ['report.txt', 'notes.md'], ['notes.md'], ['notes.md', 'report.txt'], ['notes.md'], ['report.txt', 'notes.md']]);

    // Emptying the trash deletes the replacement for good; the trash survives reopening the workspace.
    expect(await workbench.invoke('trash/empty', {})).toEqual({ notebooks: 0, cells: 0, connections: 0, documents: 1, kept: 0 });
    await expect(workbench.invoke('trash/restore', { kind: 'document', id: replacement.id })).rejects.toMatchObject({ code: 'not-found' });
    await workbench.invoke('documents/remove', { id: report.id });
    await workbench.close();
    opened.splice(opened.indexOf(workbench), 1);
    const again = open(directory);
    expect((await again.invoke('trash/list', {})).documents.map((document) => document.name)).toEqual(['report.txt']);
    await again.invoke('trash/restore', { kind: 'document', id: report.id });
    expect((await again.invoke('documents/list', { notebookId: notebook.id })).map((document) => document.name)).toEqual(['report.txt', 'notes.md']);
  });
});
