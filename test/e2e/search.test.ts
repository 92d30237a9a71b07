import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { screenshot, useAppInBrowser } from '../support/browser';

/** Search across notebooks: Ctrl+Shift+F, results as you type, a hit opens its notebook at the cell. */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });
const page = () => app.page;
const press = (keys: string): Promise<void> => page().keyboard.press(keys);

describe('search across notebooks', () => {
  it('finds a query in another notebook and a question in the demo, and opens the cell', async () => {
    await page().goto(app.server.url);
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    await press('Control+Alt+N');
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toMatch(/^Untitled/);
    await press('B');
    await expect.poll(() => page().getByTestId('cell').count()).toBe(1);
    await page().keyboard.type("SELECT 'zebra crossing' AS animal");
    await press('Escape');
    await press('Escape');
    await press('Control+S');

    await press('Control+Shift+F');
    const view = page().getByTestId('search-view');
    await view.waitFor();
    await expect.poll(() => page().locator(':focus').getAttribute('aria-label')).toBe('Search all notebooks');
    await page().keyboard.type('ZEBRA');
    const hits = view.getByTestId('search-hit');
    await expect.poll(() => hits.count()).toBe(1);
    expect(await hits.first().innerText()).toMatch(/query\s+Untitled/i);
    expect(await hits.first().locator('mark').innerText()).toBe('zebra');

    await press('ControlOrMeta+A');
    await page().keyboard.type('ruler of the country');
    await expect.poll(() => hits.count()).toBe(1);
    expect(await hits.first().innerText()).toContain('Welcome to Decision Workbench');
    await screenshot(page(), 'search-01-hits');
    // From the keyboard: Tab to the hit, Enter opens it.
    await press('Tab');
    await expect.poll(() => page().locator(':focus').getAttribute('data-testid')).toBe('search-hit');
    await press('Enter');
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    const selected = page().locator('[data-testid="cell"].selected');
    await expect.poll(() => selected.getAttribute('data-cell-kind')).toBe('question');
    expect(await selected.innerText()).toContain('ruler of the country');
    await expect.poll(() => selected.evaluate((element) => {
      const box = element.getBoundingClientRect();
      return box.top >= 0 && box.top < (globalThis as unknown as { innerHeight: number }).innerHeight;
    })).toBe(true);
    await screenshot(page(), 'search-02-opened');
    expect(app.pageErrors).toEqual([]);
  });

  it('shows a note’s snippet as the words it says, without its Markdown', async () => {
    await page().getByTestId('open-search').click();
    const view = page().getByTestId('search-view');
    await view.getByLabel('Search all notebooks').fill('Shift+Enter');
    const notes = view.getByTestId('search-hit').filter({ has: page().locator('.kind-note') });
    await expect.poll(() => notes.count()).toBeGreaterThan(0);
    const snippets = await notes.locator('.search-snippet').allInnerTexts();
    // The demo's note says "Run it with **Shift+Enter**": the reader sees the words.
    expect(snippets.some((snippet) => snippet.includes('Run it with Shift+Enter'))).toBe(true);
    for (const snippet of snippets) expect(snippet).not.toMatch(/\*\*|\]\(|^#/);
    expect(await notes.first().locator('mark').innerText()).toBe('Shift+Enter');
  });

  it('shows the snippet of a note written in richer Markdown as its words: setext heading, reference link, table, code span', async () => {
    await page().getByTestId('new-notebook').click();
    await expect.poll(() => page().getByTestId('empty-notebook').count()).toBe(1);
    await page().getByTestId('add-note').last().click();
    const note = page().getByTestId('cell').last();
    await note.getByTestId('note-editor').fill('Warehouse margins\n=================\n\nThe [audit][a] puts **Kansas** first:\n\n| state | margin |\n|---|---:|\n| *Kansas* | `12.5` |\n\n[a]: https://example.com/audit');
    await press('Escape');
    await expect.poll(() => note.locator('.markdown table').count()).toBe(1);
    // Search reads what is stored: wait for the note's save before searching for it.
    await expect.poll(() => note.getByTestId('save-state').innerText()).toBe('Saved');
    await page().getByTestId('open-search').click();
    const view = page().getByTestId('search-view');
    await view.getByLabel('Search all notebooks').fill('kansas');
    const hit = view.getByTestId('search-hit').filter({ has: page().locator('.kind-note') }).first();
    await expect.poll(() => hit.count()).toBe(1);
    await expect.poll(() => hit.locator('.search-snippet').innerText()).toBe('Warehouse margins The audit puts Kansas first: state · margin Kansas · 12.5');
    expect(await hit.locator('mark').innerText()).toBe('Kansas');
    await screenshot(page(), 'search-03-markdown-snippet');
  });

  it('passes the accessibility audit with results shown', async () => {
    const audited = await app.browser.newPage({ bypassCSP: true, viewport: { width: 1440, height: 900 } });
    try {
      await audited.goto(app.server.url);
      await audited.getByTestId('notebook-title').waitFor();
      await audited.getByTestId('open-search').click();
      await audited.getByLabel('Search all notebooks').fill('baltic_sea');
      await expect.poll(() => audited.getByTestId('search-hit').count()).toBeGreaterThan(0);
      expect(await seriousViolations(audited)).toEqual([]);
    } finally {
      await audited.close();
    }
  });
});
