import { afterEach, describe, expect, it } from 'vitest';
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
    expect(await workbench.invoke('trash/empty', {})).toEqual({ notebooks: 1, cells: 2, connections: 0, kept: 0 });
    expect(await workbench.invoke('trash/list', {})).toEqual({ notebooks: [], cells: [], connections: [] });
    await expect(workbench.invoke('notebooks/get', { id: dropped.id })).rejects.toMatchObject({ code: 'not-found' });
    await expect(workbench.invoke('cells/restore', { id: droppedCell.id })).rejects.toMatchObject({ code: 'not-found' });
    await expect(workbench.invoke('trash/restore', { kind: 'cell', id: first.id })).rejects.toMatchObject({ code: 'not-found' });
    expect((await workbench.invoke('notebooks/get', { id: kept.id })).cells.map((cell) => cell.source)).toEqual(['A note   worth\nkeeping', 'SELECT 3']);

    // And it holds after reopening the workspace.
    await workbench.close();
    opened.splice(opened.indexOf(workbench), 1);
    const again = open(directory);
    expect((await again.invoke('notebooks/list', {})).map((notebook) => notebook.title)).toEqual(['Kept']);
    expect(await again.invoke('trash/list', {})).toEqual({ notebooks: [], cells: [], connections: [] });
  });
});
