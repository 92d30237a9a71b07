import { describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { screenshot, typeInEditor, useAppInBrowser } from '../support/browser';

/**
 * Result columns as wide as what they show (measured in the grid's fonts, so wide letters and
 * bold headers are not cut), and numbers of one column in one decimal display, right-aligned in
 * tabular figures so the decimal points line up; the full value on hover and in a copy.
 */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });
const page = () => app.page;

/** Every element that cuts its text (scrolls wider than it shows), by its text. */
async function cutShort(cells: Locator): Promise<string[]> {
  return cells.evaluateAll((elements) => elements.filter((element) => element.scrollWidth > element.clientWidth).map((element) => element.textContent ?? ''));
}

async function runQuery(text: string): Promise<Locator> {
  await page().getByTestId('new-notebook').click();
  await page().getByTestId('add-query').first().click();
  const cell = page().getByTestId('cell').first();
  await typeInEditor(page(), cell.getByTestId('query-editor'), text);
  await cell.getByTestId('run-query').click();
  await cell.getByTestId('result-summary').waitFor();
  return cell;
}

describe('result grid columns', () => {
  it('gives an empty grid headers that are not cut short', async () => {
    await page().goto(app.server.url);
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    const cell = await runQuery(`SELECT 1 AS "WWWWWWWW MMMMMMMM", 'x' AS "Quarterly revenue (EUR)", 2.5 AS "MAXIMUM_WAREHOUSE_CAPACITY" WHERE 0`);
    await expect.poll(() => cell.getByTestId('result-summary').innerText()).toMatch(/^0 rows · /);
    const headers = cell.locator('.grid-heading');
    expect(await headers.allInnerTexts()).toEqual(['WWWWWWWW MMMMMMMM', 'Quarterly revenue (EUR)', 'MAXIMUM_WAREHOUSE_CAPACITY']);
    expect(await cutShort(headers)).toEqual([]);
    await screenshot(page(), 'grid-columns-01-empty');
  });

  it('fits short wide values in a small grid, aligns the decimal points of a column, and keeps the full values on hover and copy', async () => {
    const cell = await runQuery(`SELECT column1 AS name, column2 AS amount, column3 AS n FROM (VALUES ('WWWWWWWWWWWWWWWW', 12.5, 7), ('MMMM', 616.13, 1200), ('i', 3, 42))`);
    await expect.poll(() => cell.getByTestId('result-summary').innerText()).toMatch(/^3 rows · /);
    const body = cell.locator('[role="rowgroup"]').nth(1);
    expect(await cutShort(body.locator('.grid-cell'))).toEqual([]);
    expect(await cutShort(cell.locator('.grid-heading'))).toEqual([]);

    // One decimal display per column: the amounts with two places, the whole numbers with none.
    const amounts = body.locator('.grid-row').locator('.grid-cell:nth-child(3) .number');
    expect(await amounts.allInnerTexts()).toEqual(['12.50', '616.13', '3.00']);
    expect(await body.locator('.grid-row').locator('.grid-cell:nth-child(4) .number').allInnerTexts()).toEqual(['7', '1,200', '42']);
    // Right-aligned in tabular figures, so the decimal points stand at one x.
    const points = await amounts.evaluateAll((spans) =>
      spans.map((span) => {
        const text = span.firstChild;
        const range = (globalThis as unknown as { document: { createRange(): { setStart(node: unknown, offset: number): void; setEnd(node: unknown, offset: number): void; getBoundingClientRect(): { x: number } } } }).document.createRange();
        const at = (text?.textContent ?? '').indexOf('.');
        range.setStart(text, at);
        range.setEnd(text, at + 1);
        return range.getBoundingClientRect().x;
      }),
    );
    expect(Math.max(...points) - Math.min(...points)).toBeLessThan(0.5);
    expect(await amounts.first().evaluate((span) => (globalThis as unknown as { getComputedStyle(element: unknown): { fontVariantNumeric: string } }).getComputedStyle(span).fontVariantNumeric)).toBe('tabular-nums');
    expect(await cell.locator('.grid-cell.numeric').count()).toBe(2 * 4);

    // The full values: on hover (the title) and in the copy.
    expect(await amounts.evaluateAll((spans) => spans.map((span) => span.getAttribute('title')))).toEqual(['12.5', null, '3']);
    await page().context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(app.server.url).origin });
    await cell.getByTestId('copy-shown-rows').click();
    await expect
      .poll(() => page().evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText()))
      .toBe('name\tamount\tn\nWWWWWWWWWWWWWWWW\t12.5\t7\nMMMM\t616.13\t1200\ni\t3\t42\n');
    await screenshot(page(), 'grid-columns-02-aligned');
    expect(app.pageErrors).toEqual([]);
  });
});
