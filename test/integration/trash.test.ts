import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../src-main/contract';
import { writeVersion } from '../../src-main/benchmark/playbook-training';
import { sealVersion } from '../../src-main/engine/techniques/autoplan/playbook';
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
    expect(await workbench.invoke('trash/empty', {})).toEqual({ notebooks: 1, cells: 2, connections: 0, documents: 0, playbooks: 0, kept: 0 });
    expect(await workbench.invoke('trash/list', {})).toEqual({ notebooks: [], cells: [], connections: [], documents: [], playbooks: [] });
    await expect(workbench.invoke('notebooks/get', { id: dropped.id })).rejects.toMatchObject({ code: 'not-found' });
    await expect(workbench.invoke('cells/restore', { id: droppedCell.id })).rejects.toMatchObject({ code: 'not-found' });
    await expect(workbench.invoke('trash/restore', { kind: 'cell', id: first.id })).rejects.toMatchObject({ code: 'not-found' });
    expect((await workbench.invoke('notebooks/get', { id: kept.id })).cells.map((cell) => cell.source)).toEqual(['A note   worth\nkeeping', 'SELECT 3']);

    // And it holds after reopening the workspace.
    await workbench.close();
    opened.splice(opened.indexOf(workbench), 1);
    const again = open(directory);
    expect((await again.invoke('notebooks/list', {})).map((notebook) => notebook.title)).toEqual(['Kept']);
    expect(await again.invoke('trash/list', {})).toEqual({ notebooks: [], cells: [], connections: [], documents: [], playbooks: [] });
  });

  it('says a removed connection’s password must be entered again only when it had one', async () => {
    const workbench = open();
    const file = await workbench.invoke('connections/add', { name: 'file', target: { engine: 'sqlite', path: tinySqlite(tempDir()) } });
    const server = await workbench.invoke('connections/add', { name: 'server', target: { engine: 'postgres', url: 'postgres://analyst@127.0.0.1:9/shop' }, password: 'hunter2' });
    const trusting = await workbench.invoke('connections/add', { name: 'trusting', target: { engine: 'postgres', url: 'postgres://analyst@127.0.0.1:9/other' } });
    for (const connection of [file, server, trusting]) await workbench.invoke('connections/remove', { id: connection.id });
    const listed = (await workbench.invoke('trash/list', {})).connections;
    expect(Object.fromEntries(listed.map((connection) => [connection.name, connection.passwordForgotten]))).toEqual({ file: false, server: true, trusting: false });
    // Restored, it comes back without the password, as the trash said.
    await workbench.invoke('trash/restore', { kind: 'connection', id: server.id });
    expect((await workbench.invoke('connections/list', {})).find((connection) => connection.id === server.id)?.hasPassword).toBe(false);
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
    expect(await workbench.invoke('trash/empty', {})).toEqual({ notebooks: 0, cells: 0, connections: 0, documents: 1, playbooks: 0, kept: 0 });
    await expect(workbench.invoke('trash/restore', { kind: 'document', id: replacement.id })).rejects.toMatchObject({ code: 'not-found' });
    await workbench.invoke('documents/remove', { id: report.id });
    await workbench.close();
    opened.splice(opened.indexOf(workbench), 1);
    const again = open(directory);
    expect((await again.invoke('trash/list', {})).documents.map((document) => document.name)).toEqual(['report.txt']);
    await again.invoke('trash/restore', { kind: 'document', id: report.id });
    expect((await again.invoke('documents/list', { notebookId: notebook.id })).map((document) => document.name)).toEqual(['report.txt', 'notes.md']);
  });

  it("lists a removed connection's deleted playbooks, restores them, and removes them for good when emptied", async () => {
    const directory = tempDir();
    const workbench = open(directory);
    const connection = await workbench.invoke('connections/add', { name: 'shops', target: { engine: 'sqlite', path: tinySqlite(tempDir()) } });
    const scenario = `conn-${connection.id}` as const;
    const folder = tempDir();
    mkdirSync(folder, { recursive: true });
    const own = sealVersion({
      format: 'decision-workbench/playbook-version',
      version: 1,
      taskType: { scenario, db: 'rdb' },
      index: 1,
      parent: null,
      playbook: '1. Query the shops.\n2. Finish with the best.',
      previous: '',
      batch: { questionIds: ['run-1'] },
      jobs: [],
      successRate: 1,
      cost: { calls: 1, promptTokens: 10, completionTokens: 2 },
      settings: { model: 'scripted', batchSize: 1, temperature: 0.7, reflection: 'sir', maxActions: 10, split: null },
      specifics: [],
      review: { status: 'proposed', pinned: false },
    });
    writeVersion(folder, own);
    await workbench.invoke('playbooks/import', { directory: folder });
    await workbench.invoke('connections/remove', { id: connection.id });
    const { restoreId } = await workbench.invoke('playbooks/delete-task', { scenario, db: 'rdb' });

    // Listed with the removed connection's name, restored from the trash like an Undo.
    const listed = (await workbench.invoke('trash/list', {})).playbooks;
    expect(listed).toEqual([{ id: restoreId, scenario, db: 'rdb', connectionName: 'shops', versions: 1, deletedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) }]);
    await workbench.invoke('trash/restore', { kind: 'playbooks', id: restoreId });
    expect((await workbench.invoke('playbooks/list', {})).find((task) => task.scenario === scenario)).toMatchObject({ db: 'rdb', versions: [{ hash: own.hash }] });
    expect((await workbench.invoke('trash/list', {})).playbooks).toEqual([]);
    await expect(workbench.invoke('trash/restore', { kind: 'playbooks', id: restoreId })).rejects.toThrow(/no longer there/);

    // Deleted again and the trash emptied: the folder is gone from the disk, Undo says so.
    const again = await workbench.invoke('playbooks/delete-task', { scenario, db: 'rdb' });
    const aside = join(directory, 'playbooks', '.deleted', again.restoreId);
    expect(existsSync(aside)).toBe(true);
    expect(await workbench.invoke('trash/empty', {})).toEqual({ notebooks: 0, cells: 0, connections: 1, documents: 0, playbooks: 1, kept: 0 });
    expect(existsSync(aside)).toBe(false);
    expect(await workbench.invoke('trash/list', {})).toEqual({ notebooks: [], cells: [], connections: [], documents: [], playbooks: [] });
    await expect(workbench.invoke('playbooks/restore', { restoreId: again.restoreId })).rejects.toThrow(/no longer there/);
    expect((await workbench.invoke('playbooks/list', {})).some((task) => task.scenario === scenario)).toBe(false);
  });
});
