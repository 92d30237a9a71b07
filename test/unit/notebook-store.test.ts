import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openAppDatabase } from '../../src-main/workspace/app-database';
import { NotebookStore } from '../../src-main/workspace/notebook-store';
import { TrashStore } from '../../src-main/workspace/trash-store';
import { fixedEnvironment } from '../support/fixtures';
import { useTempDirs } from '../support/temp';

const tempDir = useTempDirs();

function openStore(directory = tempDir()) {
  const database = openAppDatabase(directory);
  return { store: new NotebookStore(database, fixedEnvironment()), database, directory };
}

/** A compact text rendering of a notebook, for exact comparisons. */
function render(store: NotebookStore, id: string): string[] {
  return store.get(id).cells.map((cell) => `${cell.kind}/${cell.author}: ${cell.source}`);
}

describe('NotebookStore', () => {
  it('creates notebooks and keeps cells in the order they were inserted', () => {
    const { store } = openStore();
    const notebook = store.create('Pricing');
    const first = store.insertCell({ notebookId: notebook.id, kind: 'note', author: 'analyst', source: 'one' });
    const third = store.insertCell({ notebookId: notebook.id, kind: 'query', author: 'analyst', source: 'SELECT 3' });
    store.insertCell({ notebookId: notebook.id, afterCellId: first.id, kind: 'query', author: 'model', source: 'SELECT 2' });
    store.insertCell({ notebookId: notebook.id, afterCellId: null, kind: 'question', author: 'analyst', source: 'zero' });
    expect(render(store, notebook.id)).toEqual(['question/analyst: zero', 'note/analyst: one', 'query/model: SELECT 2', 'query/analyst: SELECT 3']);
    expect(store.list()).toMatchObject([{ title: 'Pricing', cellCount: 4 }]);
    expect(store.getCell(third.id).settings).toEqual({ maxRows: 1000, timeoutMs: 30_000 });
  });

  it('saves edits, settings and outputs, and reads them back after reopening', () => {
    const { store, database, directory } = openStore();
    const notebook = store.create('Durable');
    const cell = store.insertCell({ notebookId: notebook.id, kind: 'query', author: 'analyst', source: '' });
    store.updateCell({ id: cell.id, source: 'SELECT 42', settings: { maxRows: 5, timeoutMs: 2000 } });
    store.saveOutput(cell.id, {
      status: 'ok',
      ranAt: '2026-01-01T00:00:00.000Z',
      connectionId: 'c1',
      result: { columns: [{ name: 'x', type: '' }], rows: [[42]], rowCount: 1, truncated: false, elapsedMs: 1 },
    });
    database.close();
    const reopened = openStore(directory).store;
    const saved = reopened.getCell(cell.id);
    expect(saved.source).toBe('SELECT 42');
    expect(saved.settings).toEqual({ maxRows: 5, timeoutMs: 2000 });
    expect(saved.output?.status === 'ok' && saved.output.result.rows).toEqual([[42]]);
  });

  it('moves cells up, down, to the top and to the end', () => {
    const { store } = openStore();
    const notebook = store.create('Order');
    const [a, b, c] = ['a', 'b', 'c'].map((source) => store.insertCell({ notebookId: notebook.id, kind: 'note', author: 'analyst', source }));
    store.moveCell(c!.id, null);
    expect(render(store, notebook.id)).toEqual(['note/analyst: c', 'note/analyst: a', 'note/analyst: b']);
    store.moveCell(c!.id, b!.id);
    expect(render(store, notebook.id)).toEqual(['note/analyst: a', 'note/analyst: b', 'note/analyst: c']);
    store.moveCell(a!.id, b!.id);
    expect(render(store, notebook.id)).toEqual(['note/analyst: b', 'note/analyst: a', 'note/analyst: c']);
  });

  it('deletes and restores cells and notebooks (nothing is lost until purged)', () => {
    const { store } = openStore();
    const notebook = store.create('Trash');
    const cell = store.insertCell({ notebookId: notebook.id, kind: 'note', author: 'analyst', source: 'keep me' });
    store.deleteCell(cell.id);
    expect(render(store, notebook.id)).toEqual([]);
    store.restoreCell(cell.id);
    expect(render(store, notebook.id)).toEqual(['note/analyst: keep me']);
    store.delete(notebook.id);
    expect(store.list()).toEqual([]);
    expect(() => store.get(notebook.id)).toThrow(/No notebook/);
    store.restore(notebook.id);
    expect(render(store, notebook.id)).toEqual(['note/analyst: keep me']);
  });

  it('duplicates a notebook with its cells, outputs and provenance, under a free name', () => {
    const { store } = openStore();
    const notebook = store.create('Study');
    const cell = store.insertCell({ notebookId: notebook.id, kind: 'query', author: 'model', source: 'SELECT 1' });
    store.saveOutput(cell.id, { status: 'error', ranAt: 'then', connectionId: 'c', error: { name: 'WorkbenchError', code: 'syntax', message: 'bad', retryable: false } });
    const copy = store.duplicate(notebook.id);
    const again = store.duplicate(notebook.id);
    expect([copy.title, again.title]).toEqual(['Study (copy)', 'Study (copy 2)']);
    expect(copy.cells).toHaveLength(1);
    expect(copy.cells[0]).toMatchObject({ source: 'SELECT 1', author: 'model', provenance: { derivedFrom: cell.id } });
    expect(copy.cells[0]?.output?.status).toBe('error');
    store.updateCell({ id: copy.cells[0]!.id, source: 'changed' });
    expect(store.getCell(cell.id).source).toBe('SELECT 1');
  });

  it('turns a query into a note and back in place: same id and position, output dropped, nothing in the trash', () => {
    const { store, database } = openStore();
    const notebook = store.create('Kinds');
    store.insertCell({ notebookId: notebook.id, kind: 'note', author: 'analyst', source: 'above' });
    const query = store.insertCell({ notebookId: notebook.id, kind: 'query', author: 'analyst', source: 'SELECT 1', connectionId: 'c1', settings: { maxRows: 7, timeoutMs: 2000 } });
    store.insertCell({ notebookId: notebook.id, kind: 'note', author: 'analyst', source: 'below' });
    store.saveOutput(query.id, {
      status: 'ok',
      ranAt: '2026-01-01T00:00:00.000Z',
      connectionId: 'c1',
      result: { columns: [{ name: 'x', type: '' }], rows: [[1]], rowCount: 1, truncated: false, elapsedMs: 1 },
    });

    const note = store.changeCellKind({ id: query.id, kind: 'note' });
    expect(note).toMatchObject({ id: query.id, kind: 'note', source: 'SELECT 1', connectionId: null, output: null, settings: { maxRows: 7, timeoutMs: 2000 } });
    expect(render(store, notebook.id)).toEqual(['note/analyst: above', 'note/analyst: SELECT 1', 'note/analyst: below']);

    const back = store.changeCellKind({ id: query.id, kind: 'query', connectionId: 'c2' });
    expect(back).toMatchObject({ id: query.id, kind: 'query', connectionId: 'c2', output: null });
    expect(render(store, notebook.id)).toEqual(['note/analyst: above', 'query/analyst: SELECT 1', 'note/analyst: below']);
    expect(store.get(notebook.id).cells.map((cell) => cell.id)[1]).toBe(query.id);
    const trash = new TrashStore(database).list();
    expect(trash.cells).toEqual([]);
    expect(trash.notebooks).toEqual([]);
  });

  it('changes the kind of an analyst query or note only', () => {
    const { store } = openStore();
    const notebook = store.create('Kinds');
    const modelQuery = store.insertCell({ notebookId: notebook.id, kind: 'query', author: 'model', source: 'SELECT 1' });
    const question = store.insertCell({ notebookId: notebook.id, kind: 'question', author: 'analyst', source: 'Why?' });
    expect(() => store.changeCellKind({ id: modelQuery.id, kind: 'note' })).toThrow('Only an analyst’s query or note can change kind');
    expect(() => store.changeCellKind({ id: question.id, kind: 'note' })).toThrow('Only an analyst’s query or note can change kind');
    expect(() => store.changeCellKind({ id: 'missing', kind: 'note' })).toThrow('No cell missing');
    expect(render(store, notebook.id)).toEqual(['query/model: SELECT 1', 'question/analyst: Why?']);
  });

  it('a restore after the trash was emptied fails as not-found (the app words it, see restoreFailure)', () => {
    const { store, database } = openStore();
    const notebook = store.create('Gone');
    store.delete(notebook.id);
    new TrashStore(database).empty(new Set());
    expect(() => store.restore(notebook.id)).toThrow(expect.objectContaining({ code: 'not-found', message: `No notebook ${notebook.id} in the trash` }));
  });

  it('renames notebooks and refuses unknown ids with a clear error', () => {
    const { store } = openStore();
    const notebook = store.create('Old');
    expect(store.rename(notebook.id, 'New').title).toBe('New');
    expect(() => store.rename('missing', 'x')).toThrow('No notebook missing');
    expect(() => store.updateCell({ id: 'missing', source: 'x' })).toThrow('No cell missing');
    expect(() => store.insertCell({ notebookId: notebook.id, afterCellId: 'missing', kind: 'note', author: 'analyst', source: '' })).toThrow('No cell missing');
  });

  it('refuses to open a workspace written by a newer version', () => {
    const { database, directory } = openStore();
    database.pragma('user_version = 999');
    database.close();
    expect(() => openAppDatabase(directory)).toThrow(/newer Decision Workbench/);
  });

  it('says in words why a workspace cannot be opened: a file in its place, a path through a file, a file that is not a workspace', () => {
    const { directory } = openStore();
    const file = join(directory, 'a-file');
    writeFileSync(file, 'not a folder');
    expect(() => openAppDatabase(file)).toThrow(`The workspace ${file} is a file, not a folder: name a folder for the workspace`);
    expect(() => openAppDatabase(join(file, 'sub'))).toThrow(`Cannot make the workspace folder ${join(file, 'sub')}: a part of the path is not a folder (ENOTDIR)`);
    const other = join(directory, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'workspace.sqlite'), 'id,name\n1,a\n'.repeat(100));
    expect(() => openAppDatabase(other)).toThrow(`Cannot open the workspace database ${join(other, 'workspace.sqlite')}: file is not a database`);
    // The file that was not a workspace is left as it was.
    expect(readFileSync(join(other, 'workspace.sqlite'), 'utf8')).toBe('id,name\n1,a\n'.repeat(100));
  });
});
