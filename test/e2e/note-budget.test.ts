import { describe, expect, it } from 'vitest';
import { screenshot, useAppInBrowser } from '../support/browser';

/**
 * A note (or a model's rationale) with more emphasis and bracket characters than micromark can
 * parse in reasonable time, or nested deeper than react-markdown can render
 * (src-main/contract/markdown-budget.ts), is shown as it is, at once, instead of freezing or
 * breaking the notebook.
 */
const app = useAppInBrowser({ viewport: { width: 1400, height: 900 } });

describe('a note with too much markup to render as Markdown', () => {
  it('is shown as plain text, whole, with a line saying why, and renders as Markdown again once trimmed', async () => {
    await app.page.goto(app.server.url);
    await expect.poll(() => app.page.getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    await app.page.getByTestId('new-notebook').click();
    await expect.poll(() => app.page.getByTestId('notebook-title').textContent()).toBe('Untitled 1');
    await app.page.getByTestId('add-note').last().click();
    const note = app.page.getByTestId('cell').last();
    // 6,000 nested `*_` pairs: seconds of parsing, as a model repeating itself could write.
    const heavy = `**Degenerate** ${'*_'.repeat(6000)}x${'_*'.repeat(6000)}`;
    await note.getByTestId('note-editor').fill(heavy);
    await app.page.keyboard.press('Escape');
    const shown = note.getByTestId('markdown-as-text');
    await expect.poll(() => shown.locator('p').textContent()).toBe('Shown as plain text: it holds more emphasis, brackets or nesting than the notebook renders as Markdown.');
    expect(await shown.locator('pre').textContent()).toBe(heavy);
    expect(await note.locator('.markdown strong').count()).toBe(0);
    await screenshot(app.page, 'note-budget-01-plain-text');

    // Quotes nested 1,500 deep: react-markdown would run out of stack rendering them.
    const deep = `${'> '.repeat(1500)}deep`;
    await note.locator('.note-view').dblclick();
    await note.getByTestId('note-editor').fill(deep);
    await app.page.keyboard.press('Escape');
    await expect.poll(() => note.getByTestId('markdown-as-text').locator('pre').textContent()).toBe(deep);

    await note.locator('.note-view').dblclick();
    await note.getByTestId('note-editor').fill('**Degenerate** no more');
    await app.page.keyboard.press('Escape');
    await expect.poll(() => note.locator('.markdown strong').textContent()).toBe('Degenerate');
    expect(await note.getByTestId('markdown-as-text').count()).toBe(0);
  });
});
