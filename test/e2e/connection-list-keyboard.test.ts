import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { screenshot, useAppInBrowser } from '../support/browser';

/**
 * The sidebar's connections list as one tab stop (roving tabindex, as the notebook list): ↑ ↓
 * Home End between connections, → ← to a row's actions, Enter opens the schema, whose own
 * buttons keep their keys; removing asks first with the focus on Keep.
 */
const app = useAppInBrowser({ viewport: { width: 1280, height: 720 } });
const page = (): Page => app.page;

/** The focused element: its accessible label and text, and whether it sits in the connections list. */
const focused = (): Promise<{ label: string; inList: boolean }> =>
  page().evaluate(() => {
    const active = (globalThis as unknown as { document: { activeElement: { textContent: string | null; getAttribute(name: string): string | null; closest(selector: string): unknown } | null } }).document.activeElement;
    return { label: `${active?.getAttribute('aria-label') ?? ''}|${active?.textContent?.trim() ?? ''}`, inList: Boolean(active?.closest('[data-testid="connection-list"]')) };
  });

describe('the connections list from the keyboard', () => {
  it('is one tab stop, with arrow keys between connections and to their actions', async () => {
    await page().goto(app.server.url);
    await page().getByTestId('notebook').waitFor();
    const list = page().getByTestId('connection-list');
    await expect.poll(() => list.locator('li.connection').count()).toBe(2);
    const names = await list.locator('li.connection .list-title').allInnerTexts();
    expect(names).toEqual(['DQA Building USA 1836 (demo)', 'DQA Locating 1445 (demo)']);
    // One element of the list is in the Tab order.
    const stops = (): Promise<number> => list.evaluate((element) => (element as unknown as { querySelectorAll(s: string): ArrayLike<unknown> }).querySelectorAll('[tabindex="0"], button:not([tabindex])').length);
    expect(await stops()).toBe(1);

    // Tab from + Add reaches the first connection; the next Tab leaves the list.
    await page().getByTestId('add-connection').focus();
    await page().keyboard.press('Tab');
    expect(await focused()).toEqual({ label: `|▸sqlite${names[0]}`, inList: true });
    await page().keyboard.press('Tab');
    expect((await focused()).inList).toBe(false);
    await page().keyboard.press('Shift+Tab');
    expect((await focused()).label).toContain(names[0]);

    // ↓ and End move to the next connection, Home back; the list's stop follows the focus.
    await page().keyboard.press('ArrowDown');
    expect((await focused()).label).toContain(names[1]);
    await page().keyboard.press('Home');
    expect((await focused()).label).toContain(names[0]);
    await page().keyboard.press('End');
    expect((await focused()).label).toContain(names[1]);
    expect(await stops()).toBe(1);
    await page().keyboard.press('Tab');
    await page().keyboard.press('Shift+Tab');
    expect((await focused()).label).toContain(names[1]);

    // → walks the row's actions: history, edit, remove; ← comes back.
    await page().keyboard.press('ArrowRight');
    expect((await focused()).label).toBe(`Query history of ${names[1]}|⟲`);
    await page().keyboard.press('ArrowRight');
    expect((await focused()).label).toBe(`Edit ${names[1]}|`);
    await page().keyboard.press('ArrowRight');
    expect((await focused()).label).toBe(`Remove ${names[1]}|✕`);
    // Remove asks first, with the focus on Keep; Keep goes back to the row.
    await page().keyboard.press('Enter');
    expect((await focused()).label).toBe('|Keep');
    await page().keyboard.press('ArrowLeft');
    expect((await focused()).label).toBe('|Remove');
    await page().keyboard.press('ArrowRight');
    await page().keyboard.press('Enter');
    expect((await focused()).label).toContain(names[1]);
    expect(await list.locator('li.connection').count()).toBe(2);

    // Enter opens the schema; its tables keep their own keys (↓ there does not jump to another connection).
    await page().keyboard.press('Home');
    await page().keyboard.press('Enter');
    const first = list.locator('li.connection').first();
    await expect.poll(() => first.locator('.table-row').count()).toBeGreaterThan(0);
    await first.locator('.table-row').first().focus();
    await page().keyboard.press('ArrowDown');
    expect((await focused()).label).toBe(`|${(await first.locator('.table-row').first().textContent())?.trim()}`);
    await screenshot(page(), 'connection-list-keyboard-01');
    expect(app.pageErrors).toEqual([]);
  });

  it('passes the axe audit with a connection open', async () => {
    const audited = await app.browser.newPage({ bypassCSP: true, viewport: { width: 1280, height: 720 } });
    try {
      await audited.goto(app.server.url);
      await audited.getByTestId('notebook').waitFor();
      await audited.getByTestId('connection-list').locator('li.connection .list-item').first().click();
      await expect.poll(() => audited.locator('.table-row').count()).toBeGreaterThan(0);
      expect(await seriousViolations(audited)).toEqual([]);
    } finally {
      await audited.close();
    }
  });
});
