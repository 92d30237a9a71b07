import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openWorkbench } from '../../src-main/services/workbench';
import { openAppDatabase } from '../../src-main/workspace/app-database';
import { RunStore } from '../../src-main/workspace/run-store';
import { seriousViolations } from '../support/axe';
import { editorText, screenshot, typeInEditor, useAppInBrowser } from '../support/browser';
import { contrastRatio } from '../support/contrast';

/**
 * What an analyst from DBeaver or a notebook tool expects of query cells: charts that group and
 * aggregate (kept with the cell across notebook switches and reloads), a query history per
 * connection that re-opens a query as a cell, the runs of every notebook, and defaults that
 * do not copy a neighbour's row cap or pick another notebook's data.
 */
let shopPath = '';
const app = useAppInBrowser({
  viewport: { width: 1440, height: 900 },
  prepare: async () => {
    const folder = mkdtempSync(join(tmpdir(), 'dwb-e2e-history-'));
    shopPath = join(folder, 'shop.sqlite');
    const shop = new Database(shopPath);
    shop.exec(`CREATE TABLE sale (month TEXT, region TEXT, revenue INTEGER);
      INSERT INTO sale VALUES ('2024-02', 'north', 6), ('2024-01', 'north', 10), ('2024-01', 'south', 4), ('2024-03', 'north', 3), ('2024-02', 'south', 8), ('2024-01', 'north', 2);`);
    shop.close();
    // A decision run in another notebook, recorded as the run manager records one.
    const workspace = join(folder, 'workspace');
    const workbench = openWorkbench({ workspaceDir: workspace, platform: { transport: 'websocket' } });
    const pricing = await workbench.invoke('notebooks/create', { title: 'Pricing' });
    await workbench.close();
    const database = openAppDatabase(workspace);
    const runs = new RunStore(database);
    runs.create({ id: 'run-pricing', notebookId: pricing.id, connectionId: 'c', technique: 'planrag', mode: 'auto', question: 'Which price should we set?', createdAt: '2026-01-02T10:00:00.000Z', request: {} });
    runs.finish('run-pricing', { status: 'answered', decision: 'Raise by 5%', message: null, endedAt: '2026-01-02T10:01:30.000Z' });
    database.close();
    return { workspace };
  },
});
const page = () => app.page;

const groupedQuery = 'SELECT month, region, revenue FROM sale';

async function barHeights(chart: Locator): Promise<number[]> {
  return chart.locator('.recharts-bar-rectangle path').evaluateAll((paths) => paths.map((path) => Math.round((path as unknown as { getBBox(): { height: number } }).getBBox().height)));
}

/** Each x-axis label's fill against the page behind the chart (SVG text has no CSS colour of its own to audit). */
async function tickContrasts(target: Page, chart: Locator): Promise<number[]> {
  const colours = await chart.locator('.recharts-cartesian-axis-tick-value').evaluateAll((texts) =>
    texts.map((text) => (globalThis as unknown as { getComputedStyle(node: unknown): { fill: string } }).getComputedStyle(text).fill),
  );
  const background = await chart.evaluate((node) => {
    const style = (element: unknown) => (globalThis as unknown as { getComputedStyle(node: unknown): { backgroundColor: string } }).getComputedStyle(element).backgroundColor;
    for (let current: unknown = node; current; current = (current as { parentElement: unknown }).parentElement) {
      const colour = style(current);
      if (!/rgba\(.*, 0\)$/.test(colour) && colour !== 'transparent') return colour;
    }
    return 'rgb(255, 255, 255)';
  });
  void target;
  return colours.map((fill) => contrastRatio(fill, background));
}

async function openNotebookNamed(title: string): Promise<void> {
  await page().getByTestId('notebook-list').locator('.list-title').getByText(title, { exact: true }).click();
  await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe(title);
}

describe('query cells as an analyst from DBeaver expects', () => {
  it('groups a chart by month with a sum, one series per region, sorted, and keeps it with the cell', async () => {
    await page().goto(app.server.url);
    await page().getByTestId('notebook-title').waitFor();
    await page().getByTestId('add-connection').click();
    const dialog = page().getByTestId('connection-dialog');
    await dialog.getByTestId('kind-sqlite').click();
    await dialog.getByLabel('Path').fill(shopPath);
    await dialog.getByLabel('Connection name').fill('Shop');
    await dialog.getByTestId('save-connection').click();
    await expect.poll(() => dialog.count()).toBe(0);

    await page().getByTestId('new-notebook').click();
    await page().getByTestId('add-query').first().click();
    const cell = page().getByTestId('cell').first();
    await expect.poll(() => cell.getByTestId('cell-connection').locator('option').allInnerTexts()).toContain('Shop');
    await cell.getByTestId('cell-connection').selectOption({ label: 'Shop' });
    await cell.getByLabel('Row cap').fill('1000000');
    await typeInEditor(page(), cell.getByTestId('query-editor'), groupedQuery);
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('result-summary').textContent()).toMatch(/^6 rows · /);

    await cell.getByTestId('toggle-chart').click();
    const chart = cell.getByTestId('result-chart');
    // Raw rows first: one bar per row, months repeated.
    await expect.poll(() => chart.locator('.recharts-bar-rectangle').count()).toBe(6);
    await chart.getByLabel('Aggregate').selectOption('sum');
    await chart.getByLabel('Sort').selectOption('x-asc');
    const xTicks = () => chart.locator('.recharts-xAxis-tick-labels text').allTextContents();
    await expect.poll(xTicks).toEqual(['2024-01', '2024-02', '2024-03']);
    await expect.poll(() => chart.locator('.recharts-bar-rectangle').count()).toBe(3);
    // Sums 16, 14 and 3: the bars' heights stand in that proportion.
    const [january = 0, february = 0, march = 0] = await barHeights(chart);
    expect(february / january).toBeCloseTo(14 / 16, 1);
    expect(march / january).toBeCloseTo(3 / 16, 1);

    await chart.getByLabel('Series by').selectOption({ label: 'region' });
    await expect.poll(() => chart.locator('.recharts-legend-item-text').allTextContents()).toEqual(['revenue · north', 'revenue · south']);
    // north 12, 6, 3 and south 4, 8 (no sale in March): five bars.
    await expect.poll(() => chart.locator('.recharts-bar-rectangle path').count()).toBe(5);
    const heights = await barHeights(chart);
    const [north1 = 0, north2 = 0, north3 = 0, south1 = 0, south2 = 0] = heights;
    expect([north2 / north1, north3 / north1, south1 / north1, south2 / north1].map((ratio) => Math.round(ratio * 100) / 100)).toEqual([0.5, 0.25, 0.33, 0.67]);
    await cell.scrollIntoViewIfNeeded();
    await screenshot(page(), 'query-history-charts-01-grouped-light');
    for (const ratio of await tickContrasts(page(), chart)) expect(ratio).toBeGreaterThanOrEqual(4.5);

    // A new cell starts at the default row cap, not the 1,000,000 of the cell above.
    await page().getByTestId('add-query').last().click();
    await expect.poll(() => page().getByTestId('cell').count()).toBe(2);
    expect(await page().getByTestId('cell').last().getByLabel('Row cap').inputValue()).toBe('1000');
  });

  it('shows the same chart after switching notebooks and after a reload', async () => {
    const title = (await page().getByTestId('notebook-title').textContent()) ?? '';
    const shownChart = async () => {
      const chart = page().getByTestId('cell').first().getByTestId('result-chart');
      await chart.waitFor();
      await expect.poll(() => chart.locator('.recharts-legend-item-text').allTextContents()).toEqual(['revenue · north', 'revenue · south']);
      expect(await chart.getByLabel('Aggregate').inputValue()).toBe('sum');
      expect(await chart.getByLabel('Sort').inputValue()).toBe('x-asc');
      await expect.poll(() => chart.locator('.recharts-xAxis-tick-labels text').allTextContents()).toEqual(['2024-01', '2024-02', '2024-03']);
    };
    await openNotebookNamed('Welcome to Decision Workbench');
    await openNotebookNamed(title);
    await shownChart();
    await page().reload();
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe(title);
    await shownChart();
  });

  it('starts a run on the notebook’s own connection, not the first in the list', async () => {
    await page().getByTestId('new-run').click();
    const composer = page().getByTestId('run-composer');
    await composer.waitFor();
    expect(await composer.getByLabel('Run connection').locator('option:checked').innerText()).toBe('Shop');
    await composer.getByRole('button', { name: 'Close' }).click();
  });

  it('lists the connection’s queries, finds one by its text and opens it as a new cell', async () => {
    const cellCount = await page().getByTestId('cell').count();
    // Another query, so the search has something to leave out.
    const second = page().getByTestId('cell').last();
    await second.getByTestId('cell-connection').selectOption({ label: 'Shop' });
    await typeInEditor(page(), second.getByTestId('query-editor'), 'SELECT count(*) AS n FROM nowhere');
    await second.getByTestId('run-query').click();
    await second.getByTestId('query-error').waitFor();

    // Row actions show on hover or focus, as a pointer user finds them.
    const shopRow = page().getByTestId('connection').filter({ hasText: 'Shop' });
    await shopRow.hover();
    await shopRow.getByTestId('connection-history').click();
    const view = page().getByTestId('history-view');
    await view.waitFor();
    expect(await view.getByTestId('history-connection').locator('option:checked').innerText()).toBe('Shop');
    await expect.poll(() => view.locator('.history-text').allTextContents()).toEqual(['SELECT count(*) AS n FROM nowhere', groupedQuery]);
    expect(await view.getByTestId('history-outcome').allTextContents()).toEqual(['unknown-object', '6 rows']);
    await view.getByTestId('history-search').fill('REGION');
    await expect.poll(() => view.locator('.history-text').allTextContents()).toEqual([groupedQuery]);
    await expect.poll(() => view.getByTestId('history-summary').textContent()).toBe('1 query');
    await screenshot(page(), 'query-history-charts-02-history');
    await view.getByTestId('history-open-cell').click();
    await expect.poll(() => page().getByTestId('cell').count()).toBe(cellCount + 1);
    const opened = page().getByTestId('cell').last();
    expect(await opened.getByTestId('cell-connection').locator('option:checked').innerText()).toBe('Shop');
    await expect.poll(() => editorText(opened.getByTestId('query-editor'))).toBe(groupedQuery);
  });

  it('lists the decision runs of every notebook and goes to one', async () => {
    await page().getByTestId('open-history').click();
    const view = page().getByTestId('history-view');
    await view.getByTestId('history-tab-runs').click();
    const rows = view.getByTestId('all-runs-row');
    await expect.poll(() => rows.count()).toBe(1);
    const cells = await rows.first().locator('td').allInnerTexts();
    // The check is a dash: this run was stored without one, as runs from before checks were kept.
    expect(cells.slice(1, 8)).toEqual(['Pricing', 'Decided', 'planrag', 'Which price should we set?', 'Raise by 5%', '—', '1.5 min']);
    await rows.first().getByTestId('all-runs-go').click();
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Pricing');
    expect(app.pageErrors).toEqual([]);
  });

  it('passes the accessibility audit on the chart and both history lists, light and dark, with chart text at 4.5:1', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const audited = await app.browser.newPage({ bypassCSP: true, colorScheme, viewport: { width: 1440, height: 900 } });
      try {
        await audited.goto(app.server.url);
        await audited.getByTestId('notebook-title').waitFor();
        await audited.getByTestId('notebook-list').locator('.list-title').getByText('Untitled 1', { exact: true }).click();
        const chart = audited.getByTestId('result-chart');
        await chart.waitFor();
        await expect.poll(() => chart.locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
        expect(await seriousViolations(audited)).toEqual([]);
        for (const ratio of await tickContrasts(audited, chart)) expect(ratio, colorScheme).toBeGreaterThanOrEqual(4.5);
        if (colorScheme === 'dark') {
          await chart.scrollIntoViewIfNeeded();
          await screenshot(audited, 'query-history-charts-03-grouped-dark');
        }
        await audited.getByTestId('open-history').click();
        await audited.getByTestId('history-connection').selectOption({ label: 'Shop' });
        await expect.poll(() => audited.getByTestId('history-entry').count()).toBeGreaterThan(0);
        expect(await seriousViolations(audited)).toEqual([]);
        await audited.getByTestId('history-tab-runs').click();
        await audited.getByTestId('all-runs').waitFor();
        expect(await seriousViolations(audited)).toEqual([]);
      } finally {
        await audited.close();
      }
    }
  });
});
