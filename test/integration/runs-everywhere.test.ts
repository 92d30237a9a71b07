/**
 * runs/list-all: the decision runs of every notebook of the workspace, newest first, each with
 * its notebook's title and how its decision was checked; a notebook in the trash takes its runs out of the list. Real workspace;
 * the runs are written through the workspace's own RunStore, as the run manager writes them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkbench, type Workbench } from '../../src-main/services/workbench';
import { openAppDatabase } from '../../src-main/workspace/app-database';
import { RunStore } from '../../src-main/workspace/run-store';
import { fixedEnvironment } from '../support/fixtures';
import { useTempDirs } from '../support/temp';

const tempDir = useTempDirs();
const opened: Workbench[] = [];
afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
});

describe('runs of every notebook', () => {
  it('lists them newest first with their notebook, without those of a notebook in the trash', async () => {
    const workspaceDir = tempDir();
    const workbench = openWorkbench({ workspaceDir, platform: { transport: 'ipc' }, environment: fixedEnvironment(), installDemo: false });
    opened.push(workbench);
    const sales = await workbench.invoke('notebooks/create', { title: 'Sales' });
    const trade = await workbench.invoke('notebooks/create', { title: 'Trade' });
    const doomed = await workbench.invoke('notebooks/create', { title: 'Doomed' });
    const database = openAppDatabase(workspaceDir);
    const runs = new RunStore(database);
    const start = (id: string, notebookId: string, at: string) =>
      runs.create({ id, notebookId, connectionId: 'c', technique: 'planrag', mode: 'auto', question: `question ${id}`, createdAt: at, request: {} });
    start('a', sales.id, '2026-01-01T10:00:00.000Z');
    start('b', trade.id, '2026-01-02T10:00:00.000Z');
    start('c', sales.id, '2026-01-03T10:00:00.000Z');
    start('d', doomed.id, '2026-01-04T10:00:00.000Z');
    runs.finish('b', { status: 'answered', decision: 'Krakow', message: null, endedAt: '2026-01-02T10:01:00.000Z' });
    runs.finish('a', { status: 'answered', decision: 'Lubeck', check: { checked: true, agrees: false, best: 'Krakow', regret: 0.25, objective: 'profit' }, message: null, endedAt: '2026-01-01T10:01:00.000Z' });
    runs.finish('c', { status: 'answered', decision: 'Krakow', check: { checked: false, reason: 'the question names no country' }, message: null, endedAt: '2026-01-03T10:01:00.000Z' });
    database.close();
    await workbench.invoke('notebooks/delete', { id: doomed.id });

    const all = await workbench.invoke('runs/list-all', {});
    expect(all.more).toBe(false);
    expect(all.runs.map((run) => [run.id, run.notebookTitle, run.status, run.decision])).toEqual([
      ['c', 'Sales', 'answered', 'Krakow'],
      ['b', 'Trade', 'answered', 'Krakow'],
      ['a', 'Sales', 'answered', 'Lubeck'],
    ]);
    // How each decision was checked, as stored; b was finished without one (as runs stored before it was kept).
    expect(all.runs.map((run) => run.check)).toEqual([
      { checked: false, reason: 'the question names no country' },
      null,
      { checked: true, agrees: false, best: 'Krakow', regret: 0.25, objective: 'profit' },
    ]);
    expect(await workbench.invoke('runs/list-all', { limit: 2 })).toMatchObject({ more: true });
    await expect(workbench.invoke('runs/list-all', { limit: 0 })).rejects.toMatchObject({ code: 'invalid-request' });
  });
});
