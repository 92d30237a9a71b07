/**
 * Query history: every query a query cell ran, kept per connection in workspace.sqlite, listed
 * newest first, searched literally, bounded, and kept, hidden and dropped with its connection as
 * it goes to the trash, comes back and is emptied. Real workspace, real SQLite file.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../src-main/contract/errors';
import { openWorkbench, type Workbench } from '../../src-main/services/workbench';
import { openAppDatabase } from '../../src-main/workspace/app-database';
import { QueryHistoryStore } from '../../src-main/workspace/query-history-store';
import { fixedEnvironment } from '../support/fixtures';
import { useTempDirs } from '../support/temp';

const tempDir = useTempDirs();
const opened: { close(): unknown }[] = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

function shopDatabase(): string {
  const path = join(tempDir(), 'shop.sqlite');
  const database = new Database(path);
  database.exec("CREATE TABLE sale (month TEXT, revenue REAL); INSERT INTO sale VALUES ('2024-01', 5), ('2024-01', 3), ('2024-02', 7);");
  database.close();
  return path;
}

async function setup() {
  const workspaceDir = tempDir();
  const workbench: Workbench = openWorkbench({ workspaceDir, platform: { transport: 'ipc' }, environment: fixedEnvironment(), installDemo: false });
  opened.push(workbench);
  const shop = await workbench.invoke('connections/add', { name: 'shop', target: { engine: 'sqlite', path: shopDatabase() } });
  const other = await workbench.invoke('connections/add', { name: 'other', target: { engine: 'sqlite', path: shopDatabase() } });
  const notebook = await workbench.invoke('notebooks/create', { title: 'Sales' });
  const cell = await workbench.invoke('cells/insert', { notebookId: notebook.id, kind: 'query', connectionId: shop.id });
  const run = (text: string, connectionId = shop.id) =>
    workbench.invoke('query/run', { requestId: `r-${text.length}-${Math.random()}`, connectionId, text, settings: { maxRows: 1000, timeoutMs: 30_000 }, cellId: cell.id }).catch((error: unknown) => error);
  return { workbench, workspaceDir, shop, other, notebook, cell, run };
}

describe('query history', () => {
  it('keeps each run of a query cell with its connection, time, duration, rows or error code, newest first', async () => {
    const { workbench, shop, other, notebook, cell, run } = await setup();
    await run('SELECT month, sum(revenue) AS revenue FROM sale GROUP BY month');
    const failed = await run('SELECT nope FROM sale');
    expect(failed).toBeInstanceOf(WorkbenchError);
    await run('SELECT 1 AS elsewhere', other.id);

    const { entries, more } = await workbench.invoke('history/queries', { connectionId: shop.id });
    expect(more).toBe(false);
    expect(entries.map((entry) => [entry.text, entry.rowCount, entry.errorCode])).toEqual([
      ['SELECT nope FROM sale', null, 'unknown-object'],
      ['SELECT month, sum(revenue) AS revenue FROM sale GROUP BY month', 2, null],
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({ connectionId: shop.id, notebookId: notebook.id, notebookTitle: 'Sales', cellId: cell.id });
      expect(entry.durationMs).toBeGreaterThanOrEqual(0);
      expect(entry.ranAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    expect((await workbench.invoke('history/queries', { connectionId: other.id })).entries.map((entry) => entry.text)).toEqual(['SELECT 1 AS elsewhere']);
  });

  it('searches literally and case-insensitively, with a limit that says there are more', async () => {
    const { workbench, shop, run } = await setup();
    await run("SELECT * FROM sale WHERE month LIKE '2024%'");
    await run('SELECT revenue FROM sale');
    await run('SELECT REVENUE * 2 FROM sale');
    const search = (text: string, limit?: number) => workbench.invoke('history/queries', { connectionId: shop.id, text, ...(limit ? { limit } : {}) });
    expect((await search('revenue')).entries.map((entry) => entry.text)).toEqual(['SELECT REVENUE * 2 FROM sale', 'SELECT revenue FROM sale']);
    // '%' and '_' are the characters typed, not wildcards.
    expect((await search("'2024%'")).entries).toHaveLength(1);
    expect((await search('_')).entries).toHaveLength(0);
    expect(await search('sale', 2)).toMatchObject({ more: true });
    expect((await search('sale', 2)).entries).toHaveLength(2);
  });

  it('names a connection it does not know, and one in the trash; restoring brings the history back, emptying the trash drops it', async () => {
    const { workbench, workspaceDir, shop, run } = await setup();
    await run('SELECT 1');
    await expect(workbench.invoke('history/queries', { connectionId: 'nope' })).rejects.toMatchObject({ code: 'not-found', message: 'No connection nope' });
    await workbench.invoke('connections/remove', { id: shop.id });
    await expect(workbench.invoke('history/queries', { connectionId: shop.id })).rejects.toMatchObject({
      code: 'not-found',
      message: 'This connection is in the trash: restore it to see its query history',
    });
    await workbench.invoke('trash/restore', { kind: 'connection', id: shop.id });
    expect((await workbench.invoke('history/queries', { connectionId: shop.id })).entries).toHaveLength(1);
    await workbench.invoke('connections/remove', { id: shop.id });
    await workbench.invoke('trash/empty', {});
    const database = new Database(join(workspaceDir, 'workspace.sqlite'), { readonly: true });
    expect(database.prepare('SELECT count(*) AS n FROM query_history WHERE connection_id = ?').get(shop.id)).toEqual({ n: 0 });
    database.close();
  });

  it('keeps only the newest entries of the workspace', () => {
    const database = openAppDatabase(tempDir());
    opened.push(database);
    database.prepare("INSERT INTO connections (id, name, engine, target, created_at, updated_at) VALUES ('c', 'c', 'sqlite', '{}', 'now', 'now')").run();
    const store = new QueryHistoryStore(database, 3);
    for (let n = 1; n <= 5; n++) store.record({ connectionId: 'c', text: `SELECT ${n}`, ranAt: 'now', durationMs: 1, rowCount: 1, errorCode: null, notebookId: null, cellId: null });
    expect(store.list({ connectionId: 'c', limit: 10 }).entries.map((entry) => entry.text)).toEqual(['SELECT 5', 'SELECT 4', 'SELECT 3']);
  });

  it('is added to a workspace made before it by the numbered migration', () => {
    const workspaceDir = tempDir();
    const before = openAppDatabase(workspaceDir);
    const version = before.pragma('user_version', { simple: true }) as number;
    // As a workspace of the version before it was: no history table, nor what the two later
    // migrations add (runs.decided_by, runs.decision_check), three steps behind.
    before.exec('DROP TABLE query_history');
    before.exec('ALTER TABLE runs DROP COLUMN decided_by');
    before.exec('ALTER TABLE runs DROP COLUMN decision_check');
    before.pragma(`user_version = ${version - 3}`);
    before.close();
    const after = openAppDatabase(workspaceDir);
    opened.push(after);
    expect(after.pragma('user_version', { simple: true })).toBe(version);
    expect((after.prepare("SELECT name FROM pragma_table_info('query_history')").all() as { name: string }[]).map((row) => row.name)).toEqual([
      'seq', 'connection_id', 'text', 'ran_at', 'duration_ms', 'row_count', 'error_code', 'notebook_id', 'cell_id',
    ]);
    expect((after.prepare("SELECT name FROM pragma_table_info('runs')").all() as { name: string }[]).map((row) => row.name)).toEqual(expect.arrayContaining(['decided_by', 'decision_check']));
  });
});
