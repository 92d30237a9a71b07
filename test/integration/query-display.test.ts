/**
 * A query cell's table-or-chart choice and chart settings are the cell's own: saved with it in
 * the workspace, read back with the notebook, and refused on a cell that has no result to chart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkbench, type Workbench } from '../../src-main/services/workbench';
import { fixedEnvironment } from '../support/fixtures';
import { useTempDirs } from '../support/temp';

const tempDir = useTempDirs();
const opened: Workbench[] = [];
afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
});

const display = { view: 'chart' as const, chart: { kind: 'bar' as const, x: 'month', measures: ['revenue', 'cost'], aggregate: 'sum' as const, seriesBy: 'region', sort: 'x-asc' as const } };

describe('query cell display', () => {
  it('is saved with the cell and survives reopening the workspace', async () => {
    const workspaceDir = tempDir();
    const first = openWorkbench({ workspaceDir, platform: { transport: 'ipc' }, environment: fixedEnvironment(), installDemo: false });
    opened.push(first);
    const notebook = await first.invoke('notebooks/create', { title: 'n' });
    const cell = await first.invoke('cells/insert', { notebookId: notebook.id, kind: 'query', source: 'SELECT 1' });
    const updated = await first.invoke('cells/update', { id: cell.id, display });
    expect(updated.data).toEqual({ display });
    // A later edit of the text keeps it.
    await first.invoke('cells/update', { id: cell.id, source: 'SELECT 2' });
    await first.close();
    opened.splice(0);

    const second = openWorkbench({ workspaceDir, platform: { transport: 'ipc' }, environment: fixedEnvironment(), installDemo: false });
    opened.push(second);
    const reopened = await second.invoke('notebooks/get', { id: notebook.id });
    expect(reopened.cells[0]).toMatchObject({ source: 'SELECT 2', data: { display } });
  });

  it('is refused on a note and when the settings do not fit', async () => {
    const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'ipc' }, environment: fixedEnvironment(), installDemo: false });
    opened.push(workbench);
    const notebook = await workbench.invoke('notebooks/create', { title: 'n' });
    const note = await workbench.invoke('cells/insert', { notebookId: notebook.id, kind: 'note', source: '# hi' });
    await expect(workbench.invoke('cells/update', { id: note.id, display })).rejects.toMatchObject({
      code: 'invalid-request',
      message: 'Only a query cell has a table or chart to choose; this cell is a note cell',
    });
    const query = await workbench.invoke('cells/insert', { notebookId: notebook.id, kind: 'query' });
    await expect(workbench.invoke('cells/update', { id: query.id, display: { view: 'chart', chart: { ...display.chart, aggregate: 'median' } } } as never)).rejects.toMatchObject({
      code: 'invalid-request',
    });
    await expect(workbench.invoke('cells/update', { id: query.id, display: { view: 'chart', chart: { ...display.chart, measures: [] } } })).rejects.toMatchObject({ code: 'invalid-request' });
  });
});
