import { describe, expect, it } from 'vitest';
import { screenshot, useAppInBrowser } from '../support/browser';

/** New notebooks are named alike however they are made, and a long title stays inside the main column. */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });
const page = () => app.page;
const press = (keys: string): Promise<void> => page().keyboard.press(keys);
const title = () => page().getByTestId('notebook-title').textContent();
const notebookTitles = () => page().getByTestId('notebook-list').locator('.list-title').allInnerTexts();
/** How far the main column's content reaches beyond its width (0 when nothing overflows). */
const overflow = () => page().locator('.main-column').evaluate((element) => element.scrollWidth - element.clientWidth);

describe('notebook titles', () => {
  it('names a new notebook “Untitled N” from the + New button, Ctrl+Alt+N and the palette alike', async () => {
    await page().goto(app.server.url);
    await expect.poll(title).toBe('Welcome to Decision Workbench');
    await page().getByTestId('new-notebook').click();
    await expect.poll(title).toBe('Untitled 1');
    await press('Control+Alt+N');
    await expect.poll(title).toBe('Untitled 2');
    await press('Control+K');
    await page().getByTestId('command-palette').waitFor();
    await page().keyboard.type('New notebook');
    await press('Enter');
    await expect.poll(title).toBe('Untitled 3');
    expect((await notebookTitles()).filter((name) => name.startsWith('Untitled')).sort()).toEqual(['Untitled 1', 'Untitled 2', 'Untitled 3']);
  });

  it('wraps a 150-character title without spaces inside the main column', async () => {
    const long = `Q3-${'pricing_elasticity_'.repeat(8)}`.slice(0, 150);
    expect(long).toHaveLength(150);
    expect(long).not.toContain(' ');
    await page().getByTestId('notebook-title').dblclick();
    const input = page().getByLabel('Notebook title');
    await input.fill(long);
    await press('Enter');
    await expect.poll(title).toBe(long);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(page(), 'notebook-title-01-long');
  });
});
