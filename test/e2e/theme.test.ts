import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { screenshot, typeInEditor, useAppInBrowser } from '../support/browser';
import { shownColours } from '../support/contrast';

/** Light and dark themes: the OS setting by default, a choice in the sidebar and the palette, the editors too, contrast checked by axe. */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });

const theme = (page: Page) => page.evaluate(() => (globalThis as unknown as { document: { documentElement: { dataset: Record<string, string> } } }).document.documentElement.dataset['theme']);
const background = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((element) => (globalThis as unknown as { getComputedStyle(target: unknown): { backgroundColor: string } }).getComputedStyle(element).backgroundColor);

describe('themes', () => {
  it('follows a dark OS setting, editors included, and passes the axe audit in dark', async () => {
    // The app's Content-Security-Policy refuses injected scripts; this page bypasses it for axe-core.
    const page = await app.browser.newPage({ bypassCSP: true, colorScheme: 'dark', viewport: { width: 1440, height: 900 } });
    try {
      await page.goto(app.server.url);
      await page.locator('[data-cell-kind="query"]').first().getByTestId('run-query').click();
      await expect.poll(() => page.getByTestId('result-grid').count(), { timeout: 20_000 }).toBeGreaterThan(0);
      await expect.poll(() => theme(page)).toBe('dark');
      expect(await background(page, 'html')).toBe('rgb(20, 24, 33)');
      await expect.poll(() => background(page, '.monaco-editor .monaco-editor-background')).toBe('rgb(26, 31, 43)');
      expect(await page.getByTestId('theme-choice').inputValue()).toBe('system');
      await screenshot(page, 'theme-01-dark-notebook');
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Control+Shift+P');
      await page.getByTestId('command-palette').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.getByTestId('open-model-settings').click();
      await page.getByTestId('model-settings').waitFor();
      await screenshot(page, 'theme-02-dark-model-dialog');
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      // The other views and the connection dialog in dark, each audited.
      await page.getByTestId('add-connection').click();
      await page.getByRole('dialog').waitFor();
      await screenshot(page, 'theme-03-dark-connection-dialog');
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      for (const [view, shown] of [
        ['open-benchmarks', '.benchmarks'],
        ['open-trash', '[data-testid="trash-view"]'],
      ] as const) {
        await page.getByTestId(view).click();
        await page.locator(shown).waitFor();
        expect(await seriousViolations(page), view).toEqual([]);
        await page.getByTestId(view).click();
      }
      await page.getByTestId('open-search').click();
      await page.getByLabel('Search all notebooks').fill('baltic_sea');
      await expect.poll(() => page.getByTestId('search-hit').count()).toBeGreaterThan(0);
      await screenshot(page, 'theme-04-dark-search');
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByTestId('search-hit').first().click();
      await page.getByTestId('notebook-title').waitFor();

      // Chosen in the sidebar: light, remembered across a reload although the OS stays dark.
      await page.getByTestId('theme-choice').selectOption('light');
      await expect.poll(() => theme(page)).toBe('light');
      await expect.poll(() => background(page, '.monaco-editor .monaco-editor-background')).toBe('rgb(251, 252, 254)');
      await page.reload();
      await expect.poll(() => page.getByTestId('result-grid').count()).toBeGreaterThan(0);
      expect(await theme(page)).toBe('light');

      // From the palette: follow the system again, and follow it as it changes.
      await page.keyboard.press('Control+K');
      await page.getByTestId('command-palette').waitFor();
      await page.keyboard.type('Theme: follow the system');
      await page.keyboard.press('Enter');
      await expect.poll(() => theme(page)).toBe('dark');
      await page.emulateMedia({ colorScheme: 'light' });
      await expect.poll(() => theme(page)).toBe('light');
      await page.emulateMedia({ colorScheme: 'dark' });
      await expect.poll(() => theme(page)).toBe('dark');
      await page.keyboard.press('Control+K');
      await page.keyboard.type('Theme: dark');
      await page.keyboard.press('Enter');
      expect(await page.getByTestId('theme-choice').inputValue()).toBe('dark');
      await page.emulateMedia({ colorScheme: 'light' });
      expect(await theme(page)).toBe('dark');
    } finally {
      await page.close();
    }
  });

  it("audits a what-if cell's result and a NULL in the grid in light and dark, the NULL at 4.5:1 or better", async () => {
    const page = await app.browser.newPage({ bypassCSP: true, colorScheme: 'light', viewport: { width: 1440, height: 900 } });
    /** Axe on the whole page in each theme, chosen in the sidebar; `check` runs in each too. */
    const auditBothThemes = async (what: string, check: () => Promise<void>): Promise<void> => {
      for (const chosen of ['light', 'dark'] as const) {
        await page.getByTestId('theme-choice').selectOption(chosen);
        await expect.poll(() => theme(page)).toBe(chosen);
        expect(await seriousViolations(page), `${what} in ${chosen}`).toEqual([]);
        await check();
      }
    };
    try {
      await page.goto(app.server.url);
      await page.getByTestId('notebook-list').getByText('Welcome to Decision Workbench').click();
      const whatIf = page.locator('[data-cell-kind="whatif"]').first();
      await whatIf.getByTestId('run-whatif').click();
      await expect.poll(() => whatIf.getByTestId('whatif-winner').count(), { timeout: 30_000 }).toBe(1);
      await whatIf.scrollIntoViewIfNeeded();
      await auditBothThemes('the what-if cell', async () => {
        // The chart's tooltip, shown on hover, is readable in the theme (recharts draws it white by default).
        await whatIf.locator('[data-testid="delta-chart"] .recharts-bar-rectangle').nth(2).hover();
        const label = whatIf.locator('.recharts-default-tooltip .recharts-tooltip-label');
        await label.waitFor();
        for (const text of [label, whatIf.locator('.recharts-default-tooltip .recharts-tooltip-item').first()]) {
          const colours = await shownColours(text);
          expect(colours.ratio, `tooltip in ${await theme(page)}: ${colours.color} on ${colours.background}`).toBeGreaterThanOrEqual(4.5);
        }
        await screenshot(page, `theme-05-whatif-${await theme(page)}`);
      });

      await page.getByTestId('new-notebook').click();
      await expect.poll(() => page.getByTestId('notebook-title').textContent()).toMatch(/^Untitled/);
      await expect.poll(() => page.getByTestId('cell').count()).toBe(0);
      await page.getByTestId('add-query').first().click();
      await expect.poll(() => page.getByTestId('cell').count()).toBe(1);
      const cell = page.getByTestId('cell').first();
      await typeInEditor(page, cell.getByTestId('query-editor'), "SELECT 'a' AS name, NULL AS missing");
      await cell.getByTestId('run-query').click();
      const nullCell = cell.locator('.grid .null').first();
      await expect.poll(() => nullCell.count(), { timeout: 20_000 }).toBe(1);
      expect(await nullCell.innerText()).toBe('NULL');
      await auditBothThemes('a NULL in the grid', async () => {
        const colours = await shownColours(nullCell);
        expect(colours.ratio, `NULL in ${await theme(page)}: ${colours.color} on ${colours.background}`).toBeGreaterThanOrEqual(4.5);
      });
    } finally {
      await page.close();
    }
  });
});
