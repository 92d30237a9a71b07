import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { screenshot, typeInEditor, useAppInBrowser } from '../support/browser';

/**
 * "Export CSV" on a query cell's grid in browser mode (Chromium, `dwb serve`): the grid keeps a
 * 5,000-row preview, the export downloads every row of the result (the server runs the query
 * again and streams it), "Export shown rows" still gives the rows shown, and a query that fails
 * now says why.
 */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });
const page = () => app.page;
const rows = 7_500;

function writeItems(path: string): void {
  const database = new Database(path);
  database.exec('CREATE TABLE item (id INTEGER PRIMARY KEY, label TEXT)');
  const insert = database.prepare('INSERT INTO item VALUES (?, ?)');
  database.transaction(() => {
    for (let id = 1; id <= rows; id++) insert.run(id, id === 2 ? '=1+1' : id === 3 ? 'say "hi", then\nleave' : `item ${id}`);
  })();
  database.close();
}

function readCsv(path: string): string[][] {
  const parsed = Papa.parse<string[]>(readFileSync(path, 'utf8'), { newline: '\r\n', skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  return parsed.data;
}

describe('exporting a whole result from the grid', () => {
  it('downloads every row, not the 5,000-row preview', async () => {
    const database = join(app.workspaceDir, 'items.sqlite');
    writeItems(database);
    await page().goto(app.server.url);
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    await page().getByTestId('add-connection').click();
    const dialog = page().getByTestId('connection-dialog');
    await dialog.getByTestId('kind-sqlite').click();
    await dialog.getByLabel('Path').fill(database);
    await dialog.getByLabel('Connection name').fill('Items');
    await dialog.getByTestId('save-connection').click();
    await expect.poll(() => dialog.count()).toBe(0);

    await page().getByTestId('new-notebook').click();
    await page().getByTestId('add-query').first().click();
    const cell = page().getByTestId('cell').first();
    await expect.poll(() => cell.getByTestId('cell-connection').locator('option').allInnerTexts()).toContain('Items');
    await cell.getByTestId('cell-connection').selectOption({ label: 'Items' });
    await cell.getByLabel('Row cap').fill('100000');
    await typeInEditor(page(), cell.getByTestId('query-editor'), 'SELECT id, label FROM item ORDER BY id');
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('result-summary').textContent(), { timeout: 30_000 }).toMatch(/^7,500 rows · /);
    expect(await cell.getByTestId('result-preview').innerText()).toContain('First 5,000 of 7,500 rows kept');
    // The long note has a row of its own under the toolbar, shown in full; the buttons stay on the summary's line, at any width.
    const top = async (locator: Locator): Promise<number> => (await locator.boundingBox())?.y ?? Number.NaN;
    for (const width of [1440, 1000]) {
      await page().setViewportSize({ width, height: 900 });
      const line = await top(cell.getByTestId('result-summary'));
      for (const button of [cell.getByTestId('toggle-chart'), cell.getByTestId('export-all-rows')]) expect(Math.abs((await top(button)) - line), `at ${width}px`).toBeLessThan(8);
      expect(await top(cell.getByTestId('result-preview')), `at ${width}px`).toBeGreaterThan(line + 8);
      await cell.scrollIntoViewIfNeeded();
      await screenshot(page(), `result-export-00-toolbar-${width}`);
    }
    await page().setViewportSize({ width: 1440, height: 900 });
    // Sorting a preview sorts the rows kept, and says so, pointing to ORDER BY for all of them.
    expect(await cell.getByTestId('result-sorted-part').count()).toBe(0);
    const idHeader = cell.getByRole('columnheader', { name: /^id/ });
    expect(await idHeader.getAttribute('title')).toBe('Sort the 5,000 rows kept by id');
    await idHeader.click();
    await idHeader.click();
    await expect.poll(() => cell.getByTestId('result-sorted-part').innerText()).toBe('Sorted within the 5,000 rows kept, not all 7,500: add ORDER BY to the query to sort them all');
    await idHeader.click();
    await expect.poll(() => cell.getByTestId('result-sorted-part').count()).toBe(0);

    await cell.getByTestId('export-all-rows').click();
    const download = page().waitForEvent('download', { timeout: 30_000 });
    await cell.getByTestId('start-export').click();
    const file = await download;
    // Named after the notebook and the cell's place in it, not the cell's id.
    expect(file.suggestedFilename()).toMatch(/^Untitled-\d+-cell-1\.csv$/);
    const table = readCsv(await file.path());
    expect(table).toHaveLength(rows + 1);
    expect(table[0]).toEqual(['id', 'label']);
    expect(table.slice(1).map((row) => Number(row[0]))).toEqual(Array.from({ length: rows }, (_, index) => index + 1));
    expect(table[2]).toEqual(['2', '=1+1']);
    expect(table[3]).toEqual(['3', 'say "hi", then\nleave']);
    await expect.poll(() => cell.getByTestId('result-export-status').innerText()).toBe(`7,500 rows downloaded as ${file.suggestedFilename()}`);
    await screenshot(page(), 'result-export-01-done');

    // The rows shown are still one click away.
    const shown = page().waitForEvent('download');
    await cell.getByRole('button', { name: 'Export shown rows' }).click();
    expect(readCsv(await (await shown).path())).toHaveLength(5_000 + 1);
  }, 120_000);

  it('guards spreadsheet formulas when asked', async () => {
    const cell = page().getByTestId('cell').first();
    await cell.getByLabel('Formula-safe (for spreadsheets)').check();
    const download = page().waitForEvent('download', { timeout: 30_000 });
    await cell.getByTestId('start-export').click();
    const table = readCsv(await (await download).path());
    expect(table).toHaveLength(rows + 1);
    expect(table[2]).toEqual(['2', "'=1+1"]);
  }, 60_000);

  it('shows the rows written while a long export runs, and cancels it', async () => {
    const cell = page().getByTestId('cell').first();
    await cell.getByLabel('Row cap').fill('10');
    // Endless rows of 600 characters: the export reads up to a million of them, far longer than it takes to cancel.
    await typeInEditor(page(), cell.getByTestId('query-editor'), "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i, printf('%0600d', i) AS wide FROM c");
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('result-truncated').count(), { timeout: 30_000 }).toBe(1);
    await cell.getByTestId('export-all-rows').click();
    await cell.getByTestId('start-export').click();
    const written = async (): Promise<number> => Number(((await cell.getByTestId('result-export-status').textContent()) ?? '').replace(/\D/g, ''));
    await expect.poll(written, { timeout: 30_000, interval: 50 }).toBeGreaterThan(0);
    await screenshot(page(), 'result-export-03-running');
    await cell.getByTestId('cancel-export').click();
    await expect.poll(() => cell.getByTestId('result-export-status').innerText(), { timeout: 30_000 }).toBe('Export cancelled');
    await cell.getByLabel('Row cap').fill('100000');
    await typeInEditor(page(), cell.getByTestId('query-editor'), 'SELECT id, label FROM item ORDER BY id');
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('result-summary').textContent(), { timeout: 30_000 }).toMatch(/^7,500 rows · /);
    await cell.getByTestId('export-all-rows').click();
  }, 90_000);

  it('says why when the query fails now', async () => {
    const writer = new Database(join(app.workspaceDir, 'items.sqlite'));
    writer.exec('ALTER TABLE item RENAME TO gone');
    writer.close();
    const cell = page().getByTestId('cell').first();
    await cell.getByTestId('start-export').click();
    await expect.poll(() => cell.getByTestId('result-export-status').innerText(), { timeout: 30_000 }).toMatch(/^Export failed: .*no such table: item/);
    expect(await cell.getByTestId('result-export-status').getAttribute('role')).toBe('alert');
    await screenshot(page(), 'result-export-02-failed');
    expect(app.pageErrors).toEqual([]);
  }, 60_000);
});
