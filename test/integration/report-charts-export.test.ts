/**
 * A report of a run shows the analyst's charts: a query cell of the run's notebook left as a
 * chart goes into the bundle beside the run's own cells, and the HTML report prints its settings
 * and aggregated table; a changed chart is not served from the earlier seal. Real workspace, a
 * run recorded through the workspace's RunStore with the engine's own hash-chained RunLog.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RunLog } from '../../src-main/engine/run-log';
import { openWorkbench, type Workbench } from '../../src-main/services/workbench';
import { openAppDatabase } from '../../src-main/workspace/app-database';
import { RunStore } from '../../src-main/workspace/run-store';
import { fixedEnvironment } from '../support/fixtures';
import { useTempDirs } from '../support/temp';
import { sampleEvents, tickingClock } from '../unit/reports/bundle-fixture';

const tempDir = useTempDirs();
const opened: Workbench[] = [];
afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
});

const header = { type: 'header', format: 'decision-workbench/llm-transcript', version: 1, createdAt: '2026-01-01T09:00:00.000Z', provider: 'scripted', settings: { baseUrl: 'http://127.0.0.1:9/v1', model: 'scripted', temperature: 0.2 } };

describe('charts in an exported report', () => {
  it('include the analyst’s chart cells with their aggregated table, and follow a changed chart', async () => {
    const workspaceDir = tempDir();
    const workbench = openWorkbench({ workspaceDir, platform: { transport: 'ipc' }, environment: fixedEnvironment(), installDemo: false });
    opened.push(workbench);
    const notebook = await workbench.invoke('notebooks/create', { title: 'Sales' });
    const cell = await workbench.invoke('cells/insert', { notebookId: notebook.id, kind: 'query', source: 'SELECT month, revenue FROM sale' });
    const database = openAppDatabase(workspaceDir);
    const runs = new RunStore(database);
    runs.create({ id: 'run-1', notebookId: notebook.id, connectionId: 'c', technique: 'planrag', mode: 'auto', question: 'Where?', createdAt: '2026-01-01T09:00:00.000Z', request: {} });
    const log = new RunLog('run-1', tickingClock());
    for (const event of sampleEvents()) runs.appendEvent(log.append(event));
    runs.appendTranscriptLine('run-1', 0, JSON.stringify(header));
    runs.finish('run-1', { status: 'answered', decision: 'krakow', message: null, endedAt: '2026-01-01T09:05:00.000Z' });
    // The analyst's cell ran and was left as a chart of sums by month.
    database
      .prepare('UPDATE cells SET output = ? WHERE id = ?')
      .run(
        JSON.stringify({
          status: 'ok',
          ranAt: '2026-01-01T09:06:00.000Z',
          connectionId: 'c',
          result: { columns: [{ name: 'month', type: 'TEXT' }, { name: 'revenue', type: 'REAL' }], rows: [['2024-02', 6], ['2024-01', 10], ['2024-02', 8]], rowCount: 3, truncated: false, elapsedMs: 1 },
        }),
        cell.id,
      );
    database.close();
    const chart = { kind: 'bar' as const, x: 'month', measures: ['revenue'], aggregate: 'sum' as const, seriesBy: null, sort: 'x-asc' as const };

    const before = await workbench.invoke('reports/preview', { notebookId: notebook.id, runId: 'run-1' });
    expect(before.html).not.toContain('<h3>Charts</h3>');
    await workbench.invoke('cells/update', { id: cell.id, display: { view: 'chart', chart } });
    const summed = await workbench.invoke('reports/preview', { notebookId: notebook.id, runId: 'run-1' });
    expect(summed.html).toContain('<h3>Charts</h3>');
    expect(summed.html).toContain('Bar chart: sum of revenue by month, by x ascending');
    expect(summed.html).toMatch(/<td class="">2024-01<\/td><td class="num">10<\/td><\/tr>\s*<tr><td class="">2024-02<\/td><td class="num">14<\/td>/);
    await workbench.invoke('cells/update', { id: cell.id, display: { view: 'chart', chart: { ...chart, aggregate: 'max' } } });
    const maxed = await workbench.invoke('reports/preview', { notebookId: notebook.id, runId: 'run-1' });
    expect(maxed.html).toContain('Bar chart: max of revenue by month, by x ascending');
  });
});
