/**
 * Every view, in both themes, passes the axe audit with SVG text measured too (axe measures HTML
 * text only: chart ticks were 2.8:1 in the dark theme), and the keyboard gets past the sidebar
 * at once: a skip link first, one tab stop per list, arrow keys inside it.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot, setModelInApp, useAppWithScriptedModel } from '../support/browser';
import { seriousViolations } from '../support/axe';
import { lowContrastSvgTexts } from '../support/contrast';
import type { ScriptStep } from '../support/scripted-openai/script';

const script: ScriptStep[] = [
  { expectTools: ['plan'], toolCalls: [{ name: 'plan', arguments: { steps: ['Read SWE trading power per node'] } }] },
  { content: 'Start with SWE power.', toolCalls: [{ name: 'query', arguments: { query: "SELECT trade_node, base_trading_power FROM node_country WHERE country_name = 'SWE'" } }] },
];

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1280, height: 720 } });

const activeText = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const active = (globalThis as unknown as { document: { activeElement: { textContent: string | null; getAttribute(name: string): string | null } | null } }).document.activeElement;
    return `${active?.getAttribute('aria-label') ?? ''}|${active?.textContent?.trim() ?? ''}`;
  });

describe('accessibility of every view', () => {
  it('sets up the model and makes notebooks enough to need a list', async () => {
    await app.page.goto(app.server.url);
    await setModelInApp(app.page, model().baseUrl);
    for (let n = 0; n < 4; n++) await app.page.getByTestId('new-notebook').click();
    await expect.poll(() => app.page.getByTestId('notebook-list').locator('li').count()).toBe(5);
  });

  it('has a skip link first, one tab stop for the notebook list, and arrow keys inside it', async () => {
    const page = app.page;
    await page.reload();
    await page.getByTestId('notebook').waitFor();
    await page.keyboard.press('Tab');
    expect(await activeText(page)).toBe('|Skip to notebook');
    expect(await page.getByTestId('skip-link').isVisible()).toBe(true);
    // Enter on the skip link puts focus in the notebook, past the whole sidebar.
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { tagName: string } | null } }).document.activeElement?.tagName)).toBe('MAIN');

    // From the top: skip link, search, + New, + Example, then the notebook list — one stop for five notebooks.
    await page.reload();
    await page.getByTestId('notebook').waitFor();
    for (let n = 0; n < 5; n++) await page.keyboard.press('Tab');
    const open = await page.getByTestId('notebook-list').locator('li.selected .list-title').innerText();
    expect(await activeText(page)).toBe(`|${open}${await page.getByTestId('notebook-list').locator('li.selected .list-meta').innerText()}`);
    const listStops = await page.getByTestId('notebook-list').evaluate((list) => (list as unknown as { querySelectorAll(s: string): ArrayLike<unknown> }).querySelectorAll('[tabindex="0"], button:not([tabindex])').length);
    expect(listStops).toBe(1);
    // The next Tab leaves the list (the model panel's Settings), not the next notebook.
    await page.keyboard.press('Tab');
    expect(await activeText(page)).toBe('|Settings');
    await page.keyboard.press('Shift+Tab');
    // Home, ↓ move between notebooks; → reaches the row's actions; Enter opens the focused notebook.
    await page.keyboard.press('Home');
    const first = await page.getByTestId('notebook-list').locator('li .list-title').first().innerText();
    expect(await activeText(page)).toContain(first);
    await page.keyboard.press('ArrowDown');
    const second = await page.getByTestId('notebook-list').locator('li .list-title').nth(1).innerText();
    expect(await activeText(page)).toContain(second);
    await page.keyboard.press('ArrowRight');
    expect(await activeText(page)).toBe(`Rename ${second}|`);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('notebook-list').locator('li.selected .list-title').innerText()).toBe(second);
    // The list's stop is now the notebook last focused.
    await screenshot(page, 'a11y-keyboard-list');
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`passes the audit (axe and SVG text at 4.5:1) on every view in the ${colorScheme} theme`, async () => {
      const page = await app.browser.newPage({ bypassCSP: true, colorScheme, viewport: { width: 1280, height: 720 } });
      const audit = async (view: string): Promise<void> => {
        expect(await seriousViolations(page), `${colorScheme}: ${view}`).toEqual([]);
      };
      try {
        await page.goto(app.server.url);
        // The demo notebook, with a result drawn as a chart (SVG ticks and labels).
        await page.getByTestId('notebook-list').locator('li').filter({ hasText: 'Welcome' }).getByRole('button').first().click();
        const run = page.getByTestId('run-query').first();
        await run.scrollIntoViewIfNeeded();
        await run.click();
        const chartToggle = page.getByTestId('toggle-chart').first();
        await chartToggle.waitFor();
        // Interact once the query has ended (the cell re-renders with its result as it ends).
        await expect.poll(() => page.getByTestId('query-running').count()).toBe(0);
        await chartToggle.scrollIntoViewIfNeeded();
        // The chart choice is kept with the cell: the second theme's pass finds it already drawn.
        if ((await chartToggle.getAttribute('aria-pressed')) !== 'true') await chartToggle.click();
        await expect.poll(() => page.locator('.recharts-cartesian-axis-tick-value').count()).toBeGreaterThan(0);
        expect(await lowContrastSvgTexts(page)).toEqual([]);
        if (colorScheme === 'dark') {
          // The audit sees what it is for: Recharts' own #666 ticks on the dark panel (2.8:1) are reported.
          const recharts = await page.addStyleTag({ content: '.recharts-cartesian-axis-tick-value { fill: #666666 !important; }' });
          expect((await lowContrastSvgTexts(page))[0]).toMatch(/^svg-text-contrast \(serious\): “.+” rgb\(102, 102, 102\) on rgb\(28, 33, 45\) is 2\.8\d:1, below 4\.5:1$/);
          await recharts.evaluate((node) => (node as unknown as { remove(): void }).remove());
        }
        await screenshot(page, `a11y-${colorScheme}-chart`);
        await audit('notebook with a chart');

        await page.keyboard.press('Control+Shift+P');
        await page.getByTestId('command-palette').waitFor();
        await audit('palette');
        await page.keyboard.press('Escape');

        await page.getByTestId('open-model-settings').click();
        await page.getByTestId('model-settings').waitFor();
        await audit('model dialog');
        await page.keyboard.press('Escape');
        await page.getByTestId('model-settings').waitFor({ state: 'detached' });

        await page.getByTestId('toggle-run-history').click();
        await audit('run history');
        await page.getByTestId('toggle-run-history').click();

        await page.getByTestId('new-run').click();
        const composer = page.getByTestId('run-composer');
        await composer.waitFor();
        await audit('run composer');
        if (colorScheme === 'light') {
          // The review panel, docked beside the notebook (one run: the script has turns for one).
          await composer.getByLabel('Decision question').fill('Where should SWE place its merchant to steer trade to baltic_sea?');
          await composer.getByLabel('Run connection').selectOption({ label: 'DQA Locating 1445 (demo)' });
          await composer.getByLabel('Step-through').check();
          await composer.getByTestId('start-run').click();
          await page.getByTestId('review-dock').getByTestId('review-panel').waitFor();
          await audit('review panel');
          await page.emulateMedia({ colorScheme: 'dark' });
          await expect.poll(() => page.evaluate(() => (globalThis as unknown as { document: { documentElement: { dataset: Record<string, string> } } }).document.documentElement.dataset['theme'])).toBe('dark');
          // Monaco repaints its tokens in the dark theme a moment after the page switches: wait for it.
          await page.locator('[data-testid="review-dock"] .monaco-editor.vs-dark').first().waitFor();
          await audit('review panel (dark)');
          await screenshot(page, 'a11y-dark-review');
          await page.emulateMedia({ colorScheme: 'light' });
          await page.getByTestId('review-stop').click();
          await page.getByTestId('review-dock').waitFor({ state: 'detached' });
        } else {
          await composer.getByLabel('Close').click();
        }

        for (const [opener, shown] of [
          ['open-benchmarks', 'benchmarks-view'],
          ['open-playbooks', 'playbooks-view'],
          ['open-trash', 'trash-view'],
        ] as const) {
          await page.getByTestId(opener).click();
          await page.getByTestId(shown).waitFor();
          // Every view is a main landmark the skip link lands in.
          expect(await page.locator('main').count(), shown).toBe(1);
          await screenshot(page, `a11y-${colorScheme}-${shown}`);
          await audit(shown);
        }
        await page.getByTestId('open-search').click();
        await page.getByLabel('Search all notebooks').fill('baltic_sea');
        await expect.poll(() => page.getByTestId('search-hit').count()).toBeGreaterThan(0);
        await audit('search');
      } finally {
        await page.close();
      }
    });
  }
});
