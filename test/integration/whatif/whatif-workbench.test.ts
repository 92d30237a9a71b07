import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { fileHash, fixedEnvironment, tinySqlite } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const opened: Workbench[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((workbench) => workbench.close()));
});

function open(): Workbench {
  const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' }, environment: fixedEnvironment(), installDemo: false });
  opened.push(workbench);
  return workbench;
}

// Raising one store's revenue by 100 raises its region's total by 100: the ranking follows the regions.
const change = 'UPDATE store SET revenue = revenue + 100 WHERE id = :candidate';
const objective = "SELECT sum(revenue) FROM store WHERE region_id = (SELECT id FROM region WHERE name = 'south')";

/** A workspace with the tiny SQLite database as a connection and one empty what-if cell on it. */
async function emptyWhatIfCell() {
  const workbench = open();
  const path = tinySqlite(tempDir());
  const before = fileHash(path);
  const connection = await workbench.invoke('connections/add', { name: 'tiny', target: { engine: 'sqlite', path } });
  const notebook = await workbench.invoke('notebooks/create', { title: 'what-if' });
  const cell = await workbench.invoke('cells/insert', { notebookId: notebook.id, kind: 'whatif', source: '{}', connectionId: connection.id });
  return { workbench, path, before, connection, notebook, cell };
}

describe('what-if cells in the workbench (the service behind the notebook)', () => {
  it('runs a cell on a copy of a SQLite connection, saves the ranking with the cell, and leaves the file byte-identical', async () => {
    const workbench = open();
    const path = tinySqlite(tempDir());
    const before = fileHash(path);
    const connection = await workbench.invoke('connections/add', { name: 'tiny', target: { engine: 'sqlite', path } });
    expect(await workbench.invoke('whatif/support', { connectionId: connection.id })).toEqual({ supported: true, reason: null, note: null });
    const notebook = await workbench.invoke('notebooks/create', { title: 'what-if' });
    const spec = { change, objective, candidatesQuery: 'SELECT id FROM store ORDER BY id' };
    const cell = await workbench.invoke('cells/insert', { notebookId: notebook.id, kind: 'whatif', source: JSON.stringify(spec), connectionId: connection.id });

    const result = await workbench.invoke('whatif/run', { connectionId: connection.id, spec, cellId: cell.id });
    // Stores 3 and 4 are in the south: either raises the objective by 100; 1 and 2 leave it as it is.
    expect(result.best).toBe(3);
    expect(result.tied).toEqual([3, 4]);
    expect(result.rows.map((row) => [row.candidate, row.delta, row.rank])).toEqual([
      [3, 100, 1],
      [4, 100, 1],
      [1, 0, 3],
      [2, 0, 3],
    ]);
    expect(result.sourceDigestAfter).toBe(result.sourceDigestBefore);
    expect(fileHash(path)).toBe(before);

    const saved = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells[0];
    expect(saved?.output).toMatchObject({ status: 'whatif', connectionId: connection.id, whatif: { best: 3 } });
  });

  it('keeps a failed experiment with its cell and says what was wrong', async () => {
    const { workbench, path, before, connection, notebook, cell } = await emptyWhatIfCell();

    const spec = { change: 'DROP TABLE store', objective, candidates: [1] };
    await expect(workbench.invoke('whatif/run', { connectionId: connection.id, spec, cellId: cell.id })).rejects.toMatchObject({
      code: 'invalid-request',
      message: expect.stringContaining(':candidate parameter'),
    });
    const saved = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells[0];
    expect(saved?.output).toMatchObject({ status: 'error', error: { code: 'invalid-request' } });

    // The contract refuses an experiment that lists candidates and also queries them.
    await expect(workbench.invoke('whatif/run', { connectionId: connection.id, spec: { change, objective, candidates: [1], candidatesQuery: 'SELECT id FROM store' } })).rejects.toMatchObject({
      code: 'invalid-request',
    });
    await expect(workbench.invoke('whatif/run', { connectionId: connection.id, spec: { change, objective, candidatesQuery: 'SELECT id FROM store WHERE 0' } })).rejects.toThrow(
      'the candidates query returned no rows',
    );
    expect(fileHash(path)).toBe(before);
  });

  it('runs on a CSV connection (DuckDB) too, its candidates read through the connector, the file untouched', async () => {
    const workbench = open();
    const csv = join(tempDir(), 'stores.csv');
    writeFileSync(csv, 'id,revenue\n1,10\n2,20\n3,5\n');
    const before = fileHash(csv);
    const connection = await workbench.invoke('connections/add', { name: 'csv', target: { engine: 'duckdb', format: 'csv', path: csv } });
    expect(await workbench.invoke('whatif/support', { connectionId: connection.id })).toEqual({ supported: true, reason: null, note: null });
    const result = await workbench.invoke('whatif/run', {
      connectionId: connection.id,
      spec: { change: 'DELETE FROM stores WHERE id = $candidate', objective: 'SELECT sum(revenue) FROM stores', direction: 'maximize', candidatesQuery: 'SELECT id FROM stores ORDER BY id' },
    });
    // Closing the smallest store keeps the most revenue.
    expect(result.best).toBe(3);
    expect(result.rows.map((row) => row.after)).toEqual([30, 25, 15]);
    expect(fileHash(csv)).toBe(before);
  });

  it('reports progress while it runs and stops at once when cancelled, keeping the cancellation with the cell', async () => {
    const { workbench, path, before, connection, notebook, cell } = await emptyWhatIfCell();
    const progress: { done: number; total: number }[] = [];
    workbench.subscribe((event, payload) => {
      if (event === 'whatif-progress') progress.push(payload as { done: number; total: number });
    });
    // Each measurement counts to ten million: a candidate takes seconds, so the cancellation below
    // lands in the middle of the second one.
    const slowObjective = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000) SELECT count(*) + (SELECT sum(revenue) FROM store) FROM c';
    const candidates = Array.from({ length: 200 }, (_, index) => (index % 4) + 1);
    const running = workbench.invoke('whatif/run', {
      connectionId: connection.id,
      spec: { change: 'UPDATE store SET revenue = revenue + 1 WHERE id = :candidate', objective: slowObjective, candidates: candidates.map((value, index) => `${value}-${index}`), timeoutMs: 120_000 },
      cellId: cell.id,
      requestId: 'slow-whatif',
    });
    const started = Date.now();
    while (progress.length === 0 && Date.now() - started < 30_000) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(progress[0]).toEqual({ requestId: 'slow-whatif', done: 1, total: 200 });
    expect(await workbench.invoke('whatif/cancel', { requestId: 'slow-whatif' })).toEqual({ cancelled: true });
    // The worker is stopped in the middle of the second candidate, which is not waited for.
    await expect(running).rejects.toMatchObject({ code: 'cancelled', message: 'the what-if was stopped after 1 of 200 candidates' });
    expect(await workbench.invoke('whatif/cancel', { requestId: 'slow-whatif' })).toEqual({ cancelled: false });
    const saved = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells[0];
    expect(saved?.output).toMatchObject({ status: 'error', error: { code: 'cancelled' } });
    expect(fileHash(path)).toBe(before);
  }, 60_000);
});
