import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { runPaletteCommand, screenshot, useAppInBrowser } from '../support/browser';

/** Deleted notebooks and cells wait in the trash: opened from the palette, restored, emptied after a confirmation. */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });
const page = () => app.page;
const press = (keys: string): Promise<void> => page().keyboard.press(keys);
const notebookTitles = () => page().getByTestId('notebook-list').locator('.list-title').allInnerTexts();

/** The row's actions show on hover, as they do for the analyst. */
async function deleteNotebook(title: string): Promise<void> {
  await page().getByTestId('notebook-list').locator('li', { hasText: title }).hover();
  await page().getByRole('button', { name: `Delete ${title}` }).click();
}

describe('the trash view', () => {
  it('keeps a deleted cell and a deleted notebook, and restores each where it was', async () => {
    await page().goto(app.server.url);
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    const cells = page().getByTestId('cell');
    const before = await cells.count();
    const secondId = await cells.nth(1).getAttribute('data-cell-id');
    await cells.nth(1).getByRole('button', { name: /delete/i }).click();
    await expect.poll(() => cells.count()).toBe(before - 1);
    await page().getByTestId('new-notebook').click();
    await expect.poll(notebookTitles).toContain('Untitled 1');
    await deleteNotebook('Untitled 1');
    await expect.poll(notebookTitles).not.toContain('Untitled 1');

    await runPaletteCommand(page(), 'Open the trash');
    const view = page().getByTestId('trash-view');
    await view.waitFor();
    const items = view.getByTestId('trash-item');
    await expect.poll(() => items.count()).toBe(2);
    expect(await view.locator('[data-kind="notebook"]').innerText()).toContain('Untitled 1');
    expect(await view.locator('[data-kind="cell"]').innerText()).toContain('Welcome to Decision Workbench');
    await screenshot(page(), 'trash-01-view');

    await view.locator('[data-kind="notebook"]').getByRole('button', { name: /^Restore/ }).click();
    await expect.poll(notebookTitles).toContain('Untitled 1');
    await view.locator('[data-kind="cell"]').getByRole('button', { name: /^Restore/ }).click();
    await expect.poll(() => items.count()).toBe(0);
    expect(await view.innerText()).toContain('The trash is empty.');
    // The cell is back in its notebook, in its place; choosing the notebook in the sidebar, even the one already open, leaves the trash.
    await page().getByTestId('notebook-list').getByText('Welcome to Decision Workbench').click();
    await expect.poll(() => page().getByTestId('trash-view').count()).toBe(0);
    await expect.poll(() => cells.count()).toBe(before);
    expect(await cells.nth(1).getAttribute('data-cell-id')).toBe(secondId);
  });

  it('empties only after a confirmation (Esc keeps everything), and passes the accessibility audit', async () => {
    await deleteNotebook('Untitled 1');
    await expect.poll(notebookTitles).not.toContain('Untitled 1');
    await runPaletteCommand(page(), 'Open the trash');
    const view = page().getByTestId('trash-view');
    await expect.poll(() => view.getByTestId('trash-item').count()).toBe(1);
    await view.getByTestId('empty-trash').click();
    const confirm = page().getByTestId('confirm-empty-trash');
    await confirm.waitFor();
    await screenshot(page(), 'trash-02-confirm');
    await press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect(await view.getByTestId('trash-item').count()).toBe(1);
    await view.getByTestId('empty-trash').click();
    await confirm.getByTestId('confirm-empty').click();
    await expect.poll(() => view.getByTestId('trash-item').count()).toBe(0);
    expect(await notebookTitles()).not.toContain('Untitled 1');

    const audited = await app.browser.newPage({ bypassCSP: true, viewport: { width: 1440, height: 900 } });
    try {
      await audited.goto(app.server.url);
      await audited.getByTestId('notebook-title').waitFor();
      await audited.getByTestId('open-trash').click();
      await audited.getByTestId('trash-view').waitFor();
      expect(await seriousViolations(audited)).toEqual([]);
    } finally {
      await audited.close();
    }
    expect(app.pageErrors).toEqual([]);
  });

  it('emptying the trash dismisses the Undo notices of what it deleted for good, and counts in words (1 notebook, 2 cells)', async () => {
    await page().getByTestId('open-trash').click();
    await page().getByTestId('notebook-list').getByText('Welcome to Decision Workbench').click();
    const cells = page().getByTestId('cell');
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    const before = await cells.count();
    for (const left of [before - 1, before - 2]) {
      await cells.nth(1).getByRole('button', { name: /delete/i }).click();
      await expect.poll(() => cells.count()).toBe(left);
    }
    await page().getByTestId('new-notebook').click();
    await expect.poll(notebookTitles).toContain('Untitled 1');
    await deleteNotebook('Untitled 1');
    const toasts = page().getByTestId('toast');
    const notebookNotice = toasts.filter({ hasText: 'Deleted “Untitled 1”' });
    await notebookNotice.getByRole('button', { name: 'Undo' }).waitFor();

    await runPaletteCommand(page(), 'Open the trash');
    const view = page().getByTestId('trash-view');
    await expect.poll(() => view.getByTestId('trash-item').count()).toBe(3);
    // The notice is still there when the trash is emptied (notices last 8 s).
    expect(await notebookNotice.count()).toBe(1);
    await view.getByTestId('empty-trash').click();
    await page().getByTestId('confirm-empty-trash').getByTestId('confirm-empty').click();
    await expect.poll(() => view.getByTestId('trash-item').count()).toBe(0);
    await expect.poll(() => toasts.allInnerTexts()).toContainEqual(expect.stringContaining('Deleted for good: 1 notebook, 2 cells.'));
    // No Undo is left that could only fail now.
    expect(await notebookNotice.count()).toBe(0);
    expect(await toasts.filter({ hasText: 'Cell deleted' }).count()).toBe(0);
    expect(await toasts.getByRole('button', { name: 'Undo' }).count()).toBe(0);
    await screenshot(page(), 'trash-03-emptied-notices');
    expect(app.pageErrors).toEqual([]);
  });
});
