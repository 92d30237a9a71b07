import { describe, expect, it } from 'vitest';
import { screenshot, useAppInBrowser } from '../support/browser';

/**
 * A query cell whose connection was removed: the selector asks for a connection, Run is disabled
 * and says why, a run from the keyboard says it in words (no internal id), and the trash does not
 * ask for a password a SQLite file never had.
 */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });
const page = () => app.page;
const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe('a query cell whose connection was removed', () => {
  it('cannot be run until a connection is chosen, and says so without an internal id', async () => {
    await page().goto(app.server.url);
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    const cell = page().locator('[data-cell-kind="query"]').first();
    const selector = cell.getByTestId('cell-connection');
    const name = await selector.evaluate((element) => (element as unknown as { selectedOptions: { text: string }[] }).selectedOptions[0]?.text ?? '');
    expect(name).toContain('(demo)');
    const run = cell.getByTestId('run-query');
    expect(await run.isEnabled()).toBe(true);

    const row = page().getByTestId('connection').filter({ hasText: name });
    await row.hover();
    await page().getByRole('button', { name: `Remove ${name}` }).click();
    await row.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect.poll(() => page().getByTestId('connection-list').innerText()).not.toContain(name);

    // The selector shows that none is chosen, and Run is disabled with the reason as its title.
    await expect.poll(() => selector.inputValue()).toBe('');
    await expect.poll(() => run.isDisabled()).toBe(true);
    expect(await run.getAttribute('title')).toBe('This cell’s connection was removed: choose a connection for it');
    await screenshot(page(), 'removed-connection-01-run-disabled');

    // Ctrl+Enter in the editor does not reach the workspace either: a notice says why.
    await cell.getByTestId('query-editor').click();
    await page().keyboard.press('Control+Enter');
    const notice = page().getByTestId('toast').filter({ hasText: 'connection was removed' });
    await notice.waitFor();
    expect(await notice.innerText()).toContain('This cell’s connection was removed: choose a connection for it');
    expect(await notice.innerText()).not.toMatch(uuid);
    expect(await cell.getByTestId('query-error').count()).toBe(0);

    // The trash lists the SQLite connection without asking for a password it never had.
    await page().getByTestId('open-trash').click();
    const trashed = page().getByTestId('trash-view').locator('[data-kind="connection"]');
    await expect.poll(() => trashed.innerText()).toContain(name);
    expect(await trashed.innerText()).not.toContain('password');
    await screenshot(page(), 'removed-connection-02-trash');
    await page().getByTestId('open-trash').click();

    // Choosing another connection makes the cell runnable again.
    const other = await selector.locator('option').nth(1).getAttribute('value');
    await selector.selectOption(other ?? '');
    await expect.poll(() => run.isEnabled()).toBe(true);
    await run.click();
    await expect.poll(() => cell.getByTestId('query-error').or(cell.getByTestId('result-summary')).count(), { timeout: 20_000 }).toBeGreaterThan(0);
    expect(app.pageErrors).toEqual([]);
  });
});
