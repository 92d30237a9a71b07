import { describe, expect, it } from 'vitest';
import { screenshot, useAppInBrowser } from '../support/browser';

/**
 * The notebook without the mouse: command palette, Jupyter-like command mode, dialogs on Esc,
 * undo of a deleted cell. Every step below is a key press; nothing is clicked.
 */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });

const page = () => app.page;
const cells = () => page().getByTestId('cell');
const press = (keys: string): Promise<void> => page().keyboard.press(keys);

/** The cell holding the keyboard focus (itself or inside it), and whether an editor has it. */
const focusState = async () => {
  const active = page().locator(':focus');
  if ((await active.count()) === 0) return { cellId: null, kind: null, inEditor: false };
  return active.evaluate((element) => {
    const cell = element.closest('[data-testid="cell"]');
    return {
      cellId: cell?.getAttribute('data-cell-id') ?? null,
      kind: cell?.getAttribute('data-cell-kind') ?? null,
      inEditor: element.closest('.monaco-editor, textarea, input') !== null,
    };
  });
};
/** Hands the keys to the page itself (command mode with nothing focused). */
const blur = async (): Promise<void> => {
  const active = page().locator(':focus');
  if ((await active.count()) > 0) await active.evaluate((element) => (element as unknown as { blur(): void }).blur());
};
const cellIds = () => cells().evaluateAll((elements) => elements.map((element) => element.getAttribute('data-cell-id')));
const selectedId = () => page().locator('[data-testid="cell"].selected').getAttribute('data-cell-id');

describe('the keyboard-only notebook', () => {
  it('opens the demo and lists every command with its shortcut in the palette (Ctrl+Shift+P and Ctrl+K)', async () => {
    await page().goto(app.server.url);
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    await press('Control+Shift+P');
    const palette = page().getByTestId('command-palette');
    await palette.waitFor();
    const items = palette.getByTestId('palette-item');
    const texts = await items.allInnerTexts();
    expect(texts.some((text) => /Add a query below\s*B/.test(text))).toBe(true);
    expect(texts.some((text) => /New notebook\s*Ctrl\+Alt\+N/.test(text))).toBe(true);
    expect(texts.some((text) => text.includes('Export report'))).toBe(true);
    // Typing filters the list; the search field has the focus.
    await page().keyboard.type('export');
    await expect.poll(() => items.count()).toBe(1);
    await screenshot(page(), 'kb-01-palette');
    await press('Escape');
    await palette.waitFor({ state: 'detached' });
    await press('Control+K');
    await palette.waitFor();
    await press('Escape');
    await palette.waitFor({ state: 'detached' });
  });

  it('runs a dialog from the palette: its first field has the focus and Esc closes it', async () => {
    await press('Control+K');
    await page().keyboard.type('Export report');
    await press('Enter');
    const dialog = page().getByTestId('export-dialog');
    await dialog.waitFor();
    await expect
      .poll(() => dialog.locator(':focus').evaluate((element) => element.tagName).catch(() => null))
      .toMatch(/INPUT|SELECT|TEXTAREA/);
    await press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('moves through the demo with J/K and arrows, edits a query with Enter, leaves it with Esc and runs it with Ctrl+Enter', async () => {
    const ids = await cellIds();
    await press('J');
    await expect.poll(selectedId).toBe(ids[0]);
    await press('J');
    await press('ArrowDown');
    await expect.poll(selectedId).toBe(ids[2]);
    await press('K');
    await expect.poll(selectedId).toBe(ids[1]);
    // Down to the first query of the demo.
    const queryId = await page().locator('[data-cell-kind="query"]').first().getAttribute('data-cell-id');
    for (let step = 0; step < ids.length && (await selectedId()) !== queryId; step++) await press('J');
    expect(await selectedId()).toBe(queryId);
    await press('Enter');
    await expect.poll(focusState).toMatchObject({ cellId: queryId, inEditor: true });
    // Tab stays the editor's own (indent), Esc hands the keys back to the notebook.
    await press('Escape');
    await expect.poll(focusState).toMatchObject({ cellId: queryId, inEditor: false });
    // From there Tab moves on to the next control instead of being trapped in the editor.
    await press('Tab');
    await expect.poll(() => page().locator(':focus').evaluate((element) => element.closest('.monaco-editor') === null && element.tagName !== 'BODY').catch(() => false)).toBe(true);
    await press('Control+Enter');
    const query = page().locator(`[data-cell-id="${queryId}"]`);
    await expect.poll(() => query.getByTestId('result-summary').textContent(), { timeout: 20_000 }).toMatch(/^\d+ rows? · /);
    await screenshot(page(), 'kb-02-demo-query-run');
  });

  it('creates a notebook, adds a query with B, writes and runs it, turns a query into a note, all from the keys', async () => {
    await press('Control+Alt+N');
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toMatch(/^Untitled/);
    await page().getByTestId('empty-notebook').waitFor();
    await screenshot(page(), 'kb-03-empty-notebook');
    // Focus is on the page (command mode): B adds a query below and its editor takes the keys.
    await blur();
    await press('B');
    await expect.poll(() => cells().count()).toBe(1);
    await expect.poll(focusState).toMatchObject({ kind: 'query', inEditor: true });
    const first = cells().first();
    const connection = await first.getByTestId('cell-connection').inputValue();
    expect(connection).not.toBe('');
    // With no neighbour to follow, the first connection is taken; this SQL runs on any of them.
    await page().keyboard.type('SELECT column1 AS node, column2 AS value FROM (VALUES (1, 616.13), (2, 0.5), (3, 12))');
    await press('Escape'); // closes the completion list if one is open
    await press('Shift+Enter');
    await expect.poll(() => first.getByTestId('result-summary').textContent(), { timeout: 20_000 }).toMatch(/^3 rows · /);
    // Shift+Enter on the last cell added a query below, with the same connection as its neighbour.
    await expect.poll(() => cells().count()).toBe(2);
    const second = cells().nth(1);
    expect(await second.getByTestId('cell-connection').inputValue()).toBe(connection);
    await expect.poll(focusState).toMatchObject({ cellId: await second.getAttribute('data-cell-id'), inEditor: true });
    // Esc, then M: the empty query becomes a note, open for writing; Shift+Enter renders it.
    await press('Escape');
    await press('M');
    await expect.poll(() => cells().nth(1).getAttribute('data-cell-kind')).toBe('note');
    await expect.poll(focusState).toMatchObject({ kind: 'note', inEditor: true });
    await page().keyboard.type('## Findings\n\nThe top node leads by a wide margin.');
    await press('Shift+Enter');
    await expect.poll(() => cells().nth(1).locator('.note-view h2').textContent()).toBe('Findings');
    await expect.poll(focusState).toMatchObject({ kind: 'note', inEditor: false });
    // Enter opens it again, Esc closes it, keeping the text.
    await press('Enter');
    await expect.poll(focusState).toMatchObject({ kind: 'note', inEditor: true });
    await press('Escape');
    await expect.poll(focusState).toMatchObject({ kind: 'note', inEditor: false });
    expect(await cells().nth(1).locator('.note-view h2').textContent()).toBe('Findings');
    await screenshot(page(), 'kb-04-query-and-note');
  });

  it('adds above with A, deletes with D D and restores with Ctrl+Z, in place', async () => {
    const before = await cellIds();
    // Select the note (second cell) in command mode.
    await blur();
    await press('K');
    await press('K');
    await press('J');
    await expect.poll(selectedId).toBe(before[1]);
    await press('A');
    await expect.poll(() => cells().count()).toBe(3);
    const added = (await cellIds())[1];
    expect(added).not.toBe(before[1]);
    await press('Escape');
    await press('D');
    await press('D');
    await expect.poll(cellIds).toEqual(before);
    await press('J');
    await expect.poll(selectedId).toBe(before[1]);
    await press('D');
    await press('D');
    await expect.poll(cellIds).toEqual([before[0]]);
    await press('Control+Z');
    await expect.poll(cellIds).toEqual(before);
    expect(await cells().nth(1).locator('.note-view h2').textContent()).toBe('Findings');
    await press('Control+Z');
    await expect.poll(() => cells().count()).toBe(3);
    await screenshot(page(), 'kb-05-undo-restored');
    expect(app.pageErrors).toEqual([]);
  });
});
