/**
 * A cell's query streams through the workbench: the clients get the first rows at once and a
 * live count (`query-rows` events), the reply and the saved output hold a bounded preview with
 * the full count, and the workspace stays small however many rows the query returned; the
 * notebook reopens with the preview. Real SQLite file, real workspace database.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../src-main/contract/api';
import { resultPreviewRows } from '../../src-main/contract/data';
import { openWorkbench, type Workbench } from '../../src-main/services/workbench';
import { fixedEnvironment, tinySqlite } from '../support/fixtures';
import { useTempDirs } from '../support/temp';

const tempDir = useTempDirs();
const opened: Workbench[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((workbench) => workbench.close()));
});

function open(directory: string): Workbench {
  const workbench = openWorkbench({ workspaceDir: directory, platform: { transport: 'websocket' }, environment: fixedEnvironment(), installDemo: false });
  opened.push(workbench);
  return workbench;
}

const rowCount = 300_000;
const bigQuery = `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${rowCount}) SELECT i, 'a label long enough to weigh ' || i AS label FROM c`;

describe('a large result in a notebook cell', () => {
  it('streams its first rows and a live count, and keeps a bounded preview in the workspace', async () => {
    const directory = tempDir();
    const workbench = open(directory);
    const streamed: EventPayload<'query-rows'>[] = [];
    const order: EventName[] = [];
    workbench.subscribe((event, payload) => {
      order.push(event);
      if (event === 'query-rows') streamed.push(payload as EventPayload<'query-rows'>);
    });
    const connection = await workbench.invoke('connections/add', { name: 'tiny', target: { engine: 'sqlite', path: tinySqlite(tempDir()) } });
    const notebook = await workbench.invoke('notebooks/create', { title: 'big' });
    const cell = await workbench.invoke('cells/insert', { notebookId: notebook.id, kind: 'query', source: bigQuery, connectionId: connection.id });
    const result = await workbench.invoke('query/run', {
      requestId: 'big',
      connectionId: connection.id,
      text: bigQuery,
      settings: { maxRows: 1_000_000, timeoutMs: 60_000 },
      cellId: cell.id,
    });

    // The reply: every row counted, the preview's rows only, and how to get the rest.
    expect(result.rowCount).toBe(rowCount);
    expect(result.truncated).toBe(false);
    expect(result.rows).toHaveLength(resultPreviewRows);
    expect(result.rows[0]).toEqual([1, 'a label long enough to weigh 1']);
    expect(result.preview?.rows).toBe(resultPreviewRows);
    expect(result.preview?.note).toContain(`of ${rowCount.toLocaleString('en-US')} rows`);

    // The events: the first carries the columns and the first rows; the preview's rows are sent
    // once, in order; the count rises to the total; all of it before the run's end.
    expect(streamed[0]?.columns?.map((column) => column.name)).toEqual(['i', 'label']);
    expect(streamed[0]?.rows[0]).toEqual([1, 'a label long enough to weigh 1']);
    expect(streamed.every((event) => event.requestId === 'big' && event.cellId === cell.id)).toBe(true);
    const sentRows = streamed.flatMap((event) => event.rows);
    expect(sentRows).toHaveLength(resultPreviewRows);
    expect(sentRows.every((row, index) => row[0] === index + 1)).toBe(true);
    const counts = streamed.map((event) => event.rowCount);
    expect(counts.every((count, index) => index === 0 || count >= (counts[index - 1] ?? 0))).toBe(true);
    expect(counts.length).toBeLessThan(rowCount / 1000);
    expect(order.lastIndexOf('query-rows')).toBeLessThan(order.indexOf('query-end'));

    // The saved output is the preview, so the workspace stays small and reopens with it.
    await workbench.close();
    const size = statSync(join(directory, 'workspace.sqlite')).size;
    expect(size).toBeLessThan(2 * 1024 * 1024);
    const reopened = open(directory);
    const saved = (await reopened.invoke('notebooks/get', { id: notebook.id })).cells[0];
    expect(saved?.output?.status).toBe('ok');
    if (saved?.output?.status !== 'ok') return;
    expect(saved.output.result.rowCount).toBe(rowCount);
    expect(saved.output.result.rows).toHaveLength(resultPreviewRows);
    expect(saved.output.result.preview?.rows).toBe(resultPreviewRows);
  }, 120_000);

  it('a small result is kept whole, without a preview note', async () => {
    const workbench = open(tempDir());
    const connection = await workbench.invoke('connections/add', { name: 'tiny', target: { engine: 'sqlite', path: tinySqlite(tempDir()) } });
    const result = await workbench.invoke('query/run', {
      requestId: 'small',
      connectionId: connection.id,
      text: 'SELECT name FROM region ORDER BY id',
      settings: { maxRows: 100, timeoutMs: 10_000 },
    });
    expect(result).toMatchObject({ rows: [['north'], ['south']], rowCount: 2, truncated: false });
    expect(result.preview).toBeUndefined();
  });
});
