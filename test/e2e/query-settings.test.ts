import { describe, expect, it } from 'vitest';
import { screenshot, useAppInBrowser } from '../support/browser';

/**
 * A query cell's row cap and timeout: a value out of range stays in the field with the allowed
 * range said beside it (nothing saved), a good one is saved; the row cap shows six digits whole.
 */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });
const page = () => app.page;
const cell = () => page().getByTestId('cell').first();
const rowCap = () => cell().getByLabel('Row cap');
const timeout = () => cell().getByLabel('Timeout in seconds');
const settingError = () => cell().getByTestId('setting-error');

describe('query cell settings', () => {
  it('says the allowed range while a row cap or timeout is invalid, and saves only valid values', async () => {
    await page().goto(app.server.url);
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    await page().getByTestId('new-notebook').click();
    await page().getByTestId('empty-notebook').getByRole('button', { name: '+ Query' }).click();
    await expect.poll(() => rowCap().inputValue()).toBe('1000');

    await rowCap().fill('250');
    expect(await settingError().count()).toBe(0);
    for (const bad of ['0', '-5', '2000000', '1.5', '']) {
      await rowCap().fill(bad);
      await expect.poll(() => settingError().innerText()).toBe('Row cap: a whole number from 1 to 1,000,000');
      // The field keeps what was typed, so the analyst sees what to correct.
      expect(await rowCap().inputValue()).toBe(bad);
      expect(await rowCap().getAttribute('aria-invalid')).toBe('true');
    }
    await screenshot(page(), 'query-settings-01-row-cap-invalid');
    await rowCap().fill('100000');
    await expect.poll(() => settingError().count()).toBe(0);
    // Six digits show whole beside the number arrows (the field clipped “100000” to “10000”).
    const clipped = await rowCap().evaluate((element) => element.scrollWidth > element.clientWidth);
    expect(clipped).toBe(false);

    for (const bad of ['0', '-1', '999999999']) {
      await timeout().fill(bad);
      await expect.poll(() => settingError().innerText()).toBe('Timeout: 0.1 to 86,400 seconds');
      expect(await timeout().inputValue()).toBe(bad);
    }
    await screenshot(page(), 'query-settings-02-timeout-invalid');
    await timeout().fill('45');
    await expect.poll(() => settingError().count()).toBe(0);

    // What the workspace kept: the last valid values, never a bad one.
    await expect.poll(() => cell().getByTestId('save-state').innerText()).toBe('Saved');
    await page().reload();
    await expect.poll(() => rowCap().inputValue()).toBe('100000');
    expect(await timeout().inputValue()).toBe('45');
    expect(app.pageErrors).toEqual([]);
  });
});
