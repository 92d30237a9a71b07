import type { Locator } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { openRunComposer, setModelInApp, useAppInBrowser } from '../support/browser';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../support/scripted-openai';

/**
 * The run bar under the notebook keeps one line whatever the run's closing message says: a long
 * message is cut with an ellipsis, and its full text stays in the title (hover) and in the
 * element's text (screen readers), measured in Chromium at a wide and a narrow window.
 */
const longReason = `The endpoint refused the request: ${'the context window of this deployment is smaller than the prompt the run built from the question, the schema and the method; '.repeat(3)}shorten the question or pick a larger model.`;

const models: ScriptedOpenAiServer[] = [];
afterAll(async () => {
  await Promise.all(models.map((model) => model.close()));
});

const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });

describe('the run bar with a long message', () => {
  it('stays on one line at 1440 and 1000 px, the message cut with its full text on hover and for screen readers', async () => {
    const { page } = app;
    const model = await startScriptedOpenAiServer(Array.from({ length: 6 }, () => ({ fail: { status: 400, message: longReason } })), { models: ['scripted-model'] });
    models.push(model);
    await page.goto(app.server.url);
    await setModelInApp(page, model.baseUrl);
    const composer = await openRunComposer(page);
    await composer.getByTestId('start-run').click();

    const bar = page.getByTestId('run-bar');
    await expect.poll(() => bar.getByTestId('run-status').innerText(), { timeout: 30_000 }).toBe('Failed');
    const message = bar.getByTestId('run-message');
    const fullText = (await message.getAttribute('title')) ?? '';
    expect(fullText).toContain(longReason);
    // The whole message is in the element (what a screen reader reads); only its display is cut.
    expect(await message.textContent()).toBe(fullText);

    const box = async (locator: Locator): Promise<{ y: number; height: number; right: number }> => {
      const found = await locator.boundingBox();
      if (!found) throw new Error('not laid out');
      return { y: found.y, height: found.height, right: found.x + found.width };
    };
    for (const width of [1440, 1000]) {
      await page.setViewportSize({ width, height: 900 });
      await bar.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `/tmp/fixes-run-bar-${width}.png` });
      const status = await box(bar.getByTestId('run-status'));
      const parts = [bar.getByTestId('run-status'), message, bar.getByTestId('show-run-history'), bar.getByTestId('dismiss-run'), bar.getByText(/^step \d+\/\d+$/), bar.getByText(/ tokens$/)];
      for (const part of parts) {
        const partBox = await box(part);
        // Every part on the status's line, none of them wrapped onto a second line of its own.
        expect(Math.abs(partBox.y + partBox.height / 2 - (status.y + status.height / 2)), `${await part.innerText()} at ${width}px`).toBeLessThan(4);
        expect(partBox.height, `${await part.innerText()} at ${width}px`).toBeLessThan(status.height * 1.6);
      }
      const barBox = await box(bar);
      expect(barBox.height, `bar at ${width}px`).toBeLessThan(status.height * 3);
      // The message is cut (ellipsis), the buttons stay inside the bar.
      const cut = await message.evaluate(
        (element) => element.scrollWidth > element.clientWidth && (globalThis as unknown as { getComputedStyle(target: unknown): { textOverflow: string } }).getComputedStyle(element).textOverflow === 'ellipsis',
      );
      expect(cut, `message cut at ${width}px`).toBe(true);
      expect((await box(bar.getByTestId('dismiss-run'))).right).toBeLessThanOrEqual(barBox.right);
    }
    expect(app.pageErrors).toEqual([]);
  });
});
