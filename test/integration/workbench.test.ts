import { afterEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../src-main/contract/errors';
import type { EventName } from '../../src-main/contract/api';
import { openWorkbench, type Workbench } from '../../src-main/services/workbench';
import { endlessSqliteQuery, fixedEnvironment, tinySqlite } from '../support/fixtures';
import { useTempDirs } from '../support/temp';

const tempDir = useTempDirs();
const opened: Workbench[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((workbench) => workbench.close()));
});

function open(options: { installDemo?: boolean; directory?: string } = {}): Workbench {
  const workbench = openWorkbench({
    workspaceDir: options.directory ?? tempDir(),
    platform: { transport: 'websocket' },
    environment: fixedEnvironment(),
    installDemo: options.installDemo ?? false,
  });
  opened.push(workbench);
  return workbench;
}

const settings = { maxRows: 100, timeoutMs: 10_000 };

describe('workbench services', () => {
  it('validates every request against the contract before any handler runs', async () => {
    const workbench = open();
    await expect(workbench.call('nope/never', {})).rejects.toMatchObject({ code: 'invalid-request', message: 'Unknown request "nope/never"' });
    await expect(workbench.call('notebooks/create', { title: '' })).rejects.toMatchObject({ code: 'invalid-request' });
    await expect(workbench.call('query/run', { requestId: 'r', connectionId: 'c', text: 'x', settings: { maxRows: 0, timeoutMs: 1 } })).rejects.toThrow(
      /settings.maxRows/,
    );
    expect(await workbench.invoke('notebooks/list', {})).toEqual([]);
  });

  it('seeds the demo on first open only: two DQA databases and a guided notebook', async () => {
    const directory = tempDir();
    const first = open({ installDemo: true, directory });
    const connections = await first.invoke('connections/list', {});
    expect(connections.map((connection) => connection.name)).toEqual(['DQA Building USA 1836 (demo)', 'DQA Locating 1445 (demo)']);
    const [notebook] = await first.invoke('notebooks/list', {});
    expect(notebook?.title).toBe('Welcome to Decision Workbench');
    const cells = (await first.invoke('notebooks/get', { id: notebook!.id })).cells;
    expect(cells.map((cell) => cell.kind)).toEqual(['note', 'question', 'note', 'query', 'note', 'simulation', 'note', 'question', 'query', 'note', 'whatif', 'note']);

    const locating = connections.find((connection) => connection.name.startsWith('DQA Locating'))!;
    const schema = await first.invoke('connections/schema', { id: locating.id });
    expect(schema.schema.kind === 'relational' && schema.schema.tables.map((table) => table.name)).toEqual(['country', 'flow', 'node_country', 'trade_node']);
    const query = cells.find((cell) => cell.kind === 'query')!;
    const result = await first.invoke('query/run', { requestId: 'demo', connectionId: query.connectionId!, text: query.source, settings, cellId: query.id });
    expect(result.rowCount).toBeGreaterThan(0);
    expect(result.columns.map((column) => column.name)).toContain('base_trading_power');

    // The demo's what-if cell runs as it ships, on a copy of the demo file.
    const whatIf = cells.find((cell) => cell.kind === 'whatif')!;
    const experiment = await first.invoke('whatif/run', { connectionId: whatIf.connectionId!, spec: JSON.parse(whatIf.source) as never, cellId: whatIf.id });
    expect(experiment.rows.length).toBeGreaterThan(20);
    expect(experiment.sourceDigestAfter).toBe(experiment.sourceDigestBefore);

    await first.invoke('notebooks/delete', { id: notebook!.id });
    await first.close();
    opened.pop();
    const second = open({ installDemo: true, directory });
    expect(await second.invoke('notebooks/list', {})).toEqual([]);
    expect(await second.invoke('connections/list', {})).toHaveLength(2);
  });

  it('runs a query for a cell, saves its output, and emits start, rows and end events', async () => {
    const workbench = open();
    const events: EventName[] = [];
    workbench.subscribe((event) => events.push(event));
    const connection = await workbench.invoke('connections/add', { name: 'tiny', target: { engine: 'sqlite', path: tinySqlite(tempDir()) } });
    const notebook = await workbench.invoke('notebooks/create', { title: 'n' });
    const cell = await workbench.invoke('cells/insert', { notebookId: notebook.id, kind: 'query', source: 'SELECT name FROM region ORDER BY id', connectionId: connection.id });
    await workbench.invoke('query/run', { requestId: 'r1', connectionId: connection.id, text: cell.source, settings, cellId: cell.id });
    const saved = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells[0];
    expect(saved?.output).toMatchObject({ status: 'ok', result: { rows: [['north'], ['south']] } });
    expect(events).toEqual(['connections-change', 'notebooks-change', 'query-start', 'query-rows', 'query-end']);

    await expect(workbench.invoke('query/run', { requestId: 'r2', connectionId: connection.id, text: 'DROP TABLE region', settings, cellId: cell.id })).rejects.toMatchObject({
      code: 'read-only',
    });
    const failed = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells[0];
    expect(failed?.output).toMatchObject({ status: 'error', error: { code: 'read-only' } });
  });

  it('cancels a running query by its request id', async () => {
    const workbench = open();
    const connection = await workbench.invoke('connections/add', { name: 'tiny', target: { engine: 'sqlite', path: tinySqlite(tempDir()) } });
    await workbench.invoke('query/run', { requestId: 'warm', connectionId: connection.id, text: 'SELECT 1', settings });
    const running = workbench.invoke('query/run', { requestId: 'slow', connectionId: connection.id, text: endlessSqliteQuery, settings });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await workbench.invoke('query/cancel', { requestId: 'slow' })).toEqual({ cancelled: true });
    const error = await running.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkbenchError);
    expect((error as WorkbenchError).code).toBe('cancelled');
    expect(await workbench.invoke('query/cancel', { requestId: 'slow' })).toEqual({ cancelled: false });
  });

  it('refuses connections to files that do not exist, with the path in the message', async () => {
    const workbench = open();
    await expect(workbench.invoke('connections/add', { name: 'x', target: { engine: 'sqlite', path: '/nowhere/data.sqlite' } })).rejects.toThrow(
      'No file at /nowhere/data.sqlite',
    );
    await expect(workbench.invoke('connections/add', { name: 'x', target: { engine: 'sqlite', path: tempDir() } })).rejects.toThrow(/is a folder/);
  });

  it('says the file picker is unavailable in browser mode', async () => {
    await expect(open().invoke('dialog/open-file', { title: 't', extensions: ['db'] })).rejects.toMatchObject({ code: 'unsupported' });
  });
});
