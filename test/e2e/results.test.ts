import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { screenshot, typeInEditor, useAppInBrowser } from '../support/browser';

/** Reading a result: numbers for people, resizable grid, exports in the order shown; and an accessibility audit. */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });
const page = () => app.page;

const query = `SELECT column1 AS node, column2 AS value FROM (VALUES ('a', 616.1300000000001), ('b', 1234567.891), ('c', 0.000012345678), ('d', 42))`;

describe('reading a result', () => {
  it('shows numbers for reading, with the full value on hover', async () => {
    await page().goto(app.server.url);
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    await page().getByTestId('new-notebook').click();
    await page().getByTestId('add-query').first().click();
    const cell = page().getByTestId('cell').first();
    await typeInEditor(page(), cell.getByTestId('query-editor'), query);
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('result-summary').textContent()).toMatch(/^4 rows · /);
    const numbers = cell.locator('.grid-cell .number');
    const shown = await numbers.allInnerTexts();
    const titles = await numbers.evaluateAll((spans) => spans.map((span) => span.getAttribute('title')));
    // Column 2, rows a–d (column 1 holds text): one decimal display for the column (42.00 beside 616.13), a tiny value in its own form.
    expect(shown).toEqual([(616.13).toLocaleString('en-US'), '1,234,567.89', '0.0000123457', '42.00']);
    expect(titles).toEqual(['616.1300000000001', '1234567.891', '0.000012345678', '42']);
  });

  it('exports the CSV in the order the grid shows, with full values', async () => {
    const cell = page().getByTestId('cell').first();
    const header = cell.getByRole('columnheader', { name: /value/ });
    await header.click();
    await header.click();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('descending');
    const download = page().waitForEvent('download');
    await cell.getByRole('button', { name: 'Export shown rows' }).click();
    const file = await (await download).path();
    const lines = readFileSync(file, 'utf8').trim().split(/\r?\n/);
    expect(lines).toEqual(['node,value', 'b,1234567.891', 'a,616.1300000000001', 'd,42', 'c,0.000012345678']);
  });

  it('resizes a column by dragging its edge, and the grid by its bottom edge', async () => {
    const cell = page().getByTestId('cell').first();
    const header = cell.getByRole('columnheader', { name: /node/ });
    const before = (await header.boundingBox())?.width ?? 0;
    const handle = await header.getByTestId('column-resizer').boundingBox();
    if (!handle) throw new Error('no resize handle');
    await page().mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page().mouse.down();
    await page().mouse.move(handle.x + 120, handle.y + handle.height / 2, { steps: 5 });
    await page().mouse.up();
    await expect.poll(async () => (await header.boundingBox())?.width ?? 0).toBeGreaterThan(before + 80);
    // Sorting was not toggled by the drag.
    expect(await cell.getByRole('columnheader', { name: /value/ }).getAttribute('aria-sort')).toBe('descending');

    const grid = cell.getByTestId('result-grid');
    const box = await grid.boundingBox();
    if (!box) throw new Error('no grid');
    await page().mouse.move(box.x + box.width - 3, box.y + box.height - 3);
    await page().mouse.down();
    await page().mouse.move(box.x + box.width - 3, box.y + box.height + 150, { steps: 5 });
    await page().mouse.up();
    await expect.poll(async () => (await grid.boundingBox())?.height ?? 0).toBeGreaterThan(box.height + 100);
    await screenshot(page(), 'results-01-formatted-resized');
  });

  it('charts the result as bars, a line or a scatter of the chosen columns', async () => {
    const cell = page().getByTestId('cell').first();
    await cell.getByTestId('toggle-chart').click();
    const chart = cell.getByTestId('result-chart');
    await chart.waitFor();
    // Bars: one per row, x = the text column, y = the numeric one, in the grid's order.
    await expect.poll(() => chart.locator('.recharts-bar-rectangle').count()).toBe(4);
    expect(await chart.getByLabel('X column').locator('option:checked').innerText()).toBe('node');
    expect(await chart.getByRole('group', { name: 'Y' }).getByRole('checkbox', { name: 'value' }).isChecked()).toBe(true);
    const xTicks = () => chart.locator('.recharts-xAxis-tick-labels text').allTextContents();
    await expect.poll(xTicks).toEqual(['b', 'a', 'd', 'c']);
    await screenshot(page(), 'results-03-bar-chart');
    await chart.getByLabel('Chart type').selectOption('line');
    await expect.poll(() => chart.locator('.recharts-line-curve').count()).toBe(1);
    await chart.getByLabel('Chart type').selectOption('scatter');
    await chart.getByLabel('X column').selectOption({ label: 'value' });
    await expect.poll(() => chart.locator('.recharts-scatter-symbol').count()).toBe(4);
    await cell.getByTestId('toggle-chart').click();
    await expect.poll(() => cell.getByTestId('result-grid').isVisible()).toBe(true);
  });

  it('names an unknown table as such, not as a syntax error', async () => {
    await page().getByTestId('add-query').last().click();
    await expect.poll(() => page().getByTestId('cell').count()).toBe(2);
    const cell = page().getByTestId('cell').last();
    await typeInEditor(page(), cell.getByTestId('query-editor'), 'SELECT * FROM no_such_table');
    await cell.getByTestId('run-query').click();
    const error = cell.getByTestId('query-error');
    await expect.poll(() => error.innerText()).toContain('Unknown table or column');
    expect(await error.innerText()).toContain('no such table: no_such_table');
  });

  it('groups whole numbers as it groups fractions, but keeps ids, codes and years as plain digits', async () => {
    await page().getByTestId('add-query').last().click();
    await expect.poll(() => page().getByTestId('cell').count()).toBe(3);
    const cell = page().getByTestId('cell').last();
    await typeInEditor(page(), cell.getByTestId('query-editor'), 'SELECT 1234567 AS total_flow, -4200 AS delta, 1234567.891 AS revenue, 1458 AS building_id, 2024 AS year, 30301 AS zipCode');
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('result-summary').textContent()).toMatch(/^1 row · /);
    const numbers = cell.locator('.grid-cell .number');
    const shown = await numbers.allInnerTexts();
    const titles = await numbers.evaluateAll((spans) => spans.map((span) => span.getAttribute('title')));
    expect(shown).toEqual(['1,234,567', '-4,200', '1,234,567.89', '1458', '2024', '30301']);
    expect(titles).toEqual(['1234567', '-4200', '1234567.891', null, null, null]);
    await cell.scrollIntoViewIfNeeded();
    await page().screenshot({ path: '/tmp/fixes-grid-numbers.png', clip: (await cell.boundingBox()) ?? undefined });
  });

  it('shows infinities and blobs as they are, and exports them so, instead of NULL or a placeholder', async () => {
    await page().getByTestId('add-query').last().click();
    await expect.poll(() => page().getByTestId('cell').count()).toBe(4);
    const cell = page().getByTestId('cell').last();
    await typeInEditor(page(), cell.getByTestId('query-editor'), "SELECT 1e300 * 1e10 AS up, X'00ff5c' AS bytes, 1e308 AS huge");
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('result-summary').textContent()).toMatch(/^1 row · /);
    expect((await cell.locator('.grid-cell').allInnerTexts()).slice(-3)).toEqual(['Infinity', '0x00ff5c', '1e+308']);
    const shown = page().waitForEvent('download');
    await cell.getByRole('button', { name: 'Export shown rows' }).click();
    expect(readFileSync(await (await shown).path(), 'utf8')).toBe('up,bytes,huge\r\nInfinity,0x00ff5c,1e+308\r\n');
  });

  it('names a column with a blank name by its position, in the grid and the chart', async () => {
    await page().getByTestId('add-query').last().click();
    await expect.poll(() => page().getByTestId('cell').count()).toBe(5);
    const cell = page().getByTestId('cell').last();
    await typeInEditor(page(), cell.getByTestId('query-editor'), 'SELECT \'a\' AS " ", 2 AS ""');
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('result-summary').textContent()).toMatch(/^1 row · /);
    const headers = cell.locator('[role=columnheader]');
    expect((await headers.allInnerTexts()).map((text) => text.trim())).toEqual(['#', 'column 1 (no name)', 'column 2 (no name)']);
    expect(await headers.nth(2).getAttribute('title')).toBe('Sort by column 2 (no name)');
    await cell.getByTestId('toggle-chart').click();
    expect(await cell.getByTestId('result-chart').locator('option').allInnerTexts()).toEqual(expect.arrayContaining(['column 1 (no name)', 'column 2 (no name)']));
    await cell.getByTestId('toggle-chart').click();
  });

  it('exports a last row of one empty cell as a line of its own, shown rows and all rows alike', async () => {
    await page().getByTestId('add-query').last().click();
    await expect.poll(() => page().getByTestId('cell').count()).toBe(6);
    const cell = page().getByTestId('cell').last();
    await typeInEditor(page(), cell.getByTestId('query-editor'), 'SELECT NULL AS x UNION ALL SELECT NULL');
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('result-summary').textContent()).toMatch(/^2 rows · /);
    // Header, then two empty rows: papaparse's joined text used to end on the second, and lose it.
    const shown = page().waitForEvent('download');
    await cell.getByRole('button', { name: 'Export shown rows' }).click();
    expect(readFileSync(await (await shown).path(), 'utf8')).toBe('x\r\n\r\n\r\n');
    await cell.getByTestId('export-all-rows').click();
    const all = page().waitForEvent('download', { timeout: 30_000 });
    await cell.getByTestId('start-export').click();
    expect(readFileSync(await (await all).path(), 'utf8')).toBe('x\r\n\r\n\r\n');
    // Copy puts the same rows on the clipboard as tab-separated text, each line ended, and says so.
    await page().context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(app.server.url).origin });
    await cell.getByTestId('copy-shown-rows').click();
    await expect.poll(() => page().getByTestId('toast').filter({ hasText: 'Copied 2 rows as tab-separated text' }).count()).toBe(1);
    expect(await page().evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())).toBe('x\n\n\n');
  });

  it('passes an axe-core audit with no serious or critical violation on the notebook, the palette and the model dialog', async () => {
    // The app's Content-Security-Policy rightly refuses injected scripts; the audit page alone bypasses it.
    const audited = await app.browser.newPage({ bypassCSP: true, viewport: { width: 1440, height: 900 } });
    try {
      await audited.goto(app.server.url);
      await expect.poll(() => audited.getByTestId('cell').count()).toBeGreaterThan(0);
      const grid = audited.getByTestId('result-grid');
      await expect.poll(() => grid.count()).toBeGreaterThan(0);
      expect(await seriousViolations(audited)).toEqual([]);
      await audited.keyboard.press('Control+Shift+P');
      await audited.getByTestId('command-palette').waitFor();
      expect(await seriousViolations(audited)).toEqual([]);
      await audited.keyboard.press('Escape');
      await audited.getByTestId('open-model-settings').click();
      await audited.getByTestId('model-settings').waitFor();
      await screenshot(audited, 'results-02-model-dialog');
      expect(await seriousViolations(audited)).toEqual([]);
    } finally {
      await audited.close();
    }
    expect(app.pageErrors).toEqual([]);
  });
});
