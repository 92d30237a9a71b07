import { describe, expect, it } from 'vitest';
import { screenshot, useAppInBrowser } from '../support/browser';

const app = useAppInBrowser({ viewport: { width: 1400, height: 1000 } });

describe('a simulation cell on the demo data', () => {
  it('ranks every trade node for SWE and charts the effects, winner and ties marked', async () => {
    const { page } = app;
    await page.goto(app.server.url);
    await page.getByTestId('new-notebook').click();
    await expect.poll(() => page.getByTestId('notebook-title').textContent()).toBe('Untitled 1');
    await page.getByTestId('add-simulation').first().click();
    const cell = page.locator('[data-cell-kind="simulation"]');
    await cell.getByLabel('Simulation connection').selectOption({ label: 'DQA Locating 1445 (demo)' });
    await expect.poll(() => cell.innerText()).toMatch(/Locating: where to place a merchant/i);
    await cell.getByLabel('Country').fill('SWE');
    await cell.getByLabel('Home node').fill('baltic_sea');
    await cell.getByLabel('Rule set').selectOption('compat');
    await cell.getByTestId('run-simulation').click();

    await expect.poll(() => cell.getByTestId('simulation-winner').innerText()).toContain('Best: krakow');
    expect(await cell.getByTestId('simulation-winner').innerText()).toContain('SWE profit at baltic_sea');
    // The 20 best candidates label the axis; bars show those with an effect (most nodes have none).
    const labels = await cell.locator('.simulation-chart svg text').allTextContents();
    expect(labels).toContain('krakow');
    expect(labels).toContain('novgorod');
    expect(await cell.locator('.simulation-chart .recharts-bar-rectangle').count()).toBe(2);
    const summary = await cell.getByTestId('result-summary').innerText();
    expect(Number(summary.split(' ')[0])).toBe(79);
    expect(await cell.locator('[role=row]').nth(1).innerText()).toMatch(/^1\s+1\s+krakow/);
    await cell.scrollIntoViewIfNeeded();
    await screenshot(page, 'sim-01-locating');
  });

  it('keeps the simulation result after a reload', async () => {
    const { page } = app;
    await page.reload();
    const cell = page.locator('[data-cell-kind="simulation"]');
    await expect.poll(() => cell.getByTestId('simulation-winner').innerText()).toContain('Best: krakow');
    expect(app.pageErrors).toEqual([]);
  });
});
