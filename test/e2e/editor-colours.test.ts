import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { screenshot, typeInEditor, useAppInBrowser } from '../support/browser';

/**
 * SQL keeps its colours when the notebook is shown again: switching to another notebook and
 * back unmounts and remounts the query editors, and their text must be tokenized as SQL again
 * (keywords, strings and numbers in their own colours), as it is after a reload.
 */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });
const page = () => app.page;

const editor = () => page().locator('[data-cell-kind="query"]').first().getByTestId('query-editor');
const query = "SELECT node, 42 AS answer FROM trade_node WHERE node = 'baltic_sea'";

/** The colour each word of the editor's first line is drawn in, by word. */
async function colours(editor: Locator): Promise<Record<string, string>> {
  await expect.poll(() => editor.locator('.view-line').first().innerText()).toContain('SELECT');
  // Monaco draws the text first and its tokens a moment later: wait for the keyword to be a token of its own.
  await expect.poll(() => editor.locator('.view-line span[class*="mtk"]').filter({ hasText: /^SELECT$/ }).count(), { timeout: 10_000 }).toBe(1);
  return editor.locator('.view-line span[class*="mtk"]').evaluateAll((spans) => {
    const style = globalThis as unknown as { getComputedStyle(element: unknown): { color: string } };
    const byWord: Record<string, string> = {};
    for (const span of spans) {
      const text = (span.textContent ?? '').trim();
      if (text) byWord[text] = style.getComputedStyle(span).color;
    }
    return byWord;
  });
}

async function openNotebook(target: Page, title: string): Promise<void> {
  await target.getByTestId('notebook-list').getByRole('button', { name: new RegExp(`^${title}`) }).click();
  await expect.poll(() => target.getByTestId('notebook-title').textContent()).toBe(title);
}

/** The colours that tell SQL apart: a keyword, a string and a number each in a colour of their own, unlike plain names. */
function expectSqlColours(byWord: Record<string, string>): void {
  const plain = byWord["node"];
  expect(plain).toBeDefined();
  for (const word of ['SELECT', "'baltic_sea'", '42']) {
    expect(byWord[word], `${word} is coloured`).toBeDefined();
    expect(byWord[word], `${word} in another colour than a plain name`).not.toBe(plain);
  }
  expect(byWord["'baltic_sea'"]).not.toBe(byWord['SELECT']);
}

describe('SQL colouring across notebook switches', () => {
  it('colours a query cell as SQL after switching to another notebook and back, several times', async () => {
    await page().goto(app.server.url);
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    await page().getByTestId('new-notebook').click();
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Untitled 1');
    await page().getByTestId('add-query').first().click();
    await typeInEditor(page(), editor(), query);
    const first = await colours(editor());
    expectSqlColours(first);

    for (let round = 1; round <= 3; round++) {
      await openNotebook(page(), 'Welcome to Decision Workbench');
      await openNotebook(page(), 'Untitled 1');
      const again = await colours(editor());
      expectSqlColours(again);
      expect(again, `round ${round}: the same colours as before the switch`).toEqual(first);
    }
    await screenshot(page(), 'editor-colours-01-after-switch');

    // A reload shows the same colours (what the analyst used to do to get them back).
    await page().reload();
    await openNotebook(page(), 'Untitled 1');
    expect(await colours(editor())).toEqual(first);
    expect(app.pageErrors).toEqual([]);
  });

  it('colours SQL from what the page loaded at start: a script fetched later that fails (the app rebuilt under an open page) cannot take the colours', async () => {
    // Start in a notebook with no query, so no SQL editor has been made yet.
    await page().getByTestId('new-notebook').click();
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Untitled 2');
    await page().reload();
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Untitled 2');
    expect(await page().locator('.monaco-editor').count()).toBe(0);
    // From now on every further script of the app fails to load (the editor's worker aside, which does not colour).
    const refused: string[] = [];
    await page().route(/\/assets\/(?!editor\.worker)[^/]*\.js(\?.*)?$/, async (route) => {
      refused.push(new URL(route.request().url()).pathname);
      await route.abort('failed');
    });
    try {
      await openNotebook(page(), 'Untitled 1');
      const byWord = await colours(editor());
      expectSqlColours(byWord);
      expect(refused, 'no script is fetched for SQL after the start').toEqual([]);
      await screenshot(page(), 'editor-colours-02-no-late-script');
    } finally {
      await page().unroute(/\/assets\//);
    }
  });
});
