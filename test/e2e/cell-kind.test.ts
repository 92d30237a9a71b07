import { describe, expect, it } from 'vitest';
import { runPaletteCommand, screenshot, useAppInBrowser } from '../support/browser';

/**
 * M and Y change a cell's kind in place: the same cell in the same place, nothing in the trash,
 * and Ctrl+Z turns it back.
 */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });
const page = () => app.page;
const cells = () => page().getByTestId('cell');
const press = (keys: string): Promise<void> => page().keyboard.press(keys);
const cellIds = () => cells().evaluateAll((elements) => elements.map((element) => element.getAttribute('data-cell-id')));
const kinds = () => cells().evaluateAll((elements) => elements.map((element) => element.getAttribute('data-cell-kind')));

describe('changing a cell between query and note', () => {
  it('turns a run query into a note and back in place, keeps the trash empty, and undoes with Ctrl+Z', async () => {
    await page().goto(app.server.url);
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    await page().getByTestId('new-notebook').click();
    await page().getByTestId('empty-notebook').waitFor();
    await page().locator(':focus').evaluate((element) => (element as unknown as { blur(): void }).blur()).catch(() => undefined);
    // A first query that stays, and below it (Shift+Enter adds it) the one to convert.
    await press('B');
    await expect.poll(() => cells().count()).toBe(1);
    await page().keyboard.type('SELECT 1 AS a');
    await press('Escape'); // closes the completion list if one is open
    await press('Shift+Enter');
    await expect.poll(() => cells().count()).toBe(2);
    await page().keyboard.type('SELECT 42 AS answer');
    await press('Escape');
    await press('Control+Enter');
    const target = cells().nth(1);
    await expect.poll(() => target.getByTestId('result-summary').textContent(), { timeout: 20_000 }).toMatch(/^1 row · /);
    const connection = await target.getByTestId('cell-connection').inputValue();
    const ids = await cellIds();

    await press('Escape');
    await press('M');
    await expect.poll(kinds).toEqual(['query', 'note']);
    expect(await cellIds()).toEqual(ids);
    await expect.poll(() => target.locator('.note-view').innerText()).toContain('SELECT 42 AS answer');

    await press('Y');
    await expect.poll(kinds).toEqual(['query', 'query']);
    expect(await cellIds()).toEqual(ids);
    expect(await target.getByTestId('cell-connection').inputValue()).toBe(connection);
    // The result of the query was dropped with the note; the text stays.
    expect(await target.getByTestId('result-summary').count()).toBe(0);

    // Ctrl+Z takes back Y, then M: the same cell, a query again.
    await press('Control+Z');
    await expect.poll(kinds).toEqual(['query', 'note']);
    await press('Control+Z');
    await expect.poll(kinds).toEqual(['query', 'query']);
    expect(await cellIds()).toEqual(ids);
    expect(await target.getByTestId('cell-connection').inputValue()).toBe(connection);
    await screenshot(page(), 'cell-kind-01-back-to-query');

    // Nothing went to the trash.
    await runPaletteCommand(page(), 'Open the trash');
    const view = page().getByTestId('trash-view');
    await view.waitFor();
    await expect.poll(() => view.innerText()).toContain('The trash is empty.');
    expect(await view.getByTestId('trash-item').count()).toBe(0);

    // And the workspace has the cell as it is now, after a reload.
    await page().reload();
    await expect.poll(kinds).toEqual(['query', 'query']);
    expect(await cellIds()).toEqual(ids);
    expect(app.pageErrors).toEqual([]);
  });
});
