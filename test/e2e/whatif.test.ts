import Database from 'better-sqlite3';
import type { Locator, Page } from 'playwright-core';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { editorText, screenshot, typeInEditor, useAppInBrowser } from '../support/browser';
import { fileHash } from '../support/fixtures';

const app = useAppInBrowser({ viewport: { width: 1400, height: 1100 } });

// Expanding a building 5 levels, with output in proportion to level: which adds the most grain (goods 7)?
const change = 'UPDATE supply SET current_output = current_output * (level + 5.0) / level WHERE building_id = :candidate AND goods_id = 7';
const objective = 'SELECT sum(current_output) FROM supply WHERE goods_id = 7';

/** Editor text with Monaco's soft line wraps undone. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

const demoBuilding = (): string => join(app.workspaceDir, 'demo', 'dqa-building-usa-1836.sqlite');

/** What the experiment must find, worked out from the data directly: candidates in id order, ties within 1e-9. */
function expectedRanking(): { best: number; tied: number[]; gain: number; buildings: number[] } {
  const database = new Database(demoBuilding(), { readonly: true });
  try {
    const rows = database.prepare('SELECT building_id AS id, current_output * 5.0 / level AS gain FROM supply WHERE goods_id = 7 ORDER BY building_id').all() as { id: number; gain: number }[];
    const gain = Math.max(...rows.map((row) => row.gain));
    const tied = rows.filter((row) => Math.abs(row.gain - gain) <= 1e-9 * gain).map((row) => row.id);
    const best = tied[0];
    if (best === undefined) throw new Error('the demo has no grain supply');
    return { best, tied, gain, buildings: rows.map((row) => row.id) };
  } finally {
    database.close();
  }
}

/** Adds a what-if cell at the top of the notebook and waits for it, so no older cell is taken for it. */
async function addWhatIfCellOnTop(page: Page): Promise<Locator> {
  const cells = page.locator('[data-cell-kind="whatif"]');
  const before = await cells.count();
  await page.getByTestId('add-whatif').first().click();
  await expect.poll(() => cells.count()).toBe(before + 1);
  return cells.first();
}

describe('a what-if cell on the demo data', () => {
  it('ranks candidate changes on a copy, with chart and proof, and the demo file stays byte-identical', async () => {
    const { page } = app;
    await page.goto(app.server.url);
    await page.getByTestId('notebook-title').waitFor();
    const before = fileHash(demoBuilding());
    const expected = expectedRanking();

    await page.getByTestId('new-notebook').click();
    await expect.poll(() => page.getByTestId('notebook-title').textContent()).toBe('Untitled 1');
    await page.getByTestId('add-whatif').first().click();
    const cell = page.locator('[data-cell-kind="whatif"]');
    await cell.getByLabel('What-if database').selectOption({ label: 'DQA Building USA 1836 (demo)' });
    await typeInEditor(page, cell.getByTestId('whatif-change'), change);
    await typeInEditor(page, cell.getByTestId('whatif-objective'), objective);
    expect(oneLine(await editorText(cell.getByTestId('whatif-change')))).toBe(change);
    await cell.getByTestId('whatif-candidates').fill(expected.buildings.join(', '));
    expect(await cell.getByTestId('candidate-count').innerText()).toBe(`${expected.buildings.length} candidates`);
    await cell.getByTestId('run-whatif').click();

    await expect.poll(() => cell.getByTestId('whatif-winner').innerText(), { timeout: 20_000 }).toContain(`Best: ${expected.best}`);
    expect(expected.tied.length).toBeGreaterThan(1); // the demo has equal buildings: the tie must show
    expect(await cell.getByTestId('whatif-winner').innerText()).toContain(`tied with ${expected.tied.slice(1).join(', ')}`);
    expect(await cell.getByTestId('whatif-proof').innerText()).toMatch(new RegExp(`^✓ Source unchanged — sha256:[0-9a-f]{12}… before and after · ${expected.buildings.length} candidates in \\d+ ms on a throwaway copy`));
    const bars = cell.locator('[data-testid="delta-chart"] .recharts-bar-rectangle');
    expect(await bars.count()).toBe(20);
    expect(await cell.getByTestId('delta-chart').innerText()).toContain(`The chart shows the best 20 of ${expected.buildings.length} candidates`);
    const firstRow = await cell.locator('[role=row]').nth(1).innerText();
    expect(firstRow).toMatch(new RegExp(`^1\\s+1\\s+${expected.best}\\s`)); // row number, rank, candidate
    const delta = Number(firstRow.split(/\s+/)[5]?.replace(/,/g, ''));
    expect(delta).toBeCloseTo(expected.gain, 2);
    await cell.scrollIntoViewIfNeeded();
    await screenshot(page, 'whatif-01-ranked');

    expect(fileHash(demoBuilding())).toBe(before);
  });

  it("runs the demo notebook's own what-if, whose candidates come from a query", async () => {
    const { page } = app;
    const expected = expectedRanking();
    await page.getByTestId('notebook-list').getByText('Welcome to Decision Workbench').click();
    await expect.poll(() => page.getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    const cell = page.locator('[data-cell-kind="whatif"]');
    expect(await cell.getByRole('radio', { name: 'query' }).isChecked()).toBe(true);
    expect(oneLine(await editorText(cell.getByTestId('whatif-candidates-query')))).toBe('SELECT building_id FROM supply WHERE goods_id = 7 ORDER BY building_id');
    await cell.getByTestId('run-whatif').click();
    await expect.poll(() => cell.getByTestId('whatif-winner').innerText(), { timeout: 20_000 }).toContain(`Best: ${expected.best}`);
    expect(await cell.getByTestId('whatif-proof').innerText()).toContain(`${expected.buildings.length} candidates`);
    await cell.scrollIntoViewIfNeeded();
    await screenshot(page, 'whatif-02-demo');
    await page.getByTestId('notebook-list').getByText('Untitled 1').click();
    await expect.poll(() => page.getByTestId('notebook-title').textContent()).toBe('Untitled 1');
  });

  it('explains an experiment that cannot run, and keeps the cell as typed after a reload', async () => {
    const { page } = app;
    const cell = page.locator('[data-cell-kind="whatif"]');
    await typeInEditor(page, cell.getByTestId('whatif-change'), 'SELECT building_id FROM supply WHERE building_id = :candidate');
    await cell.getByTestId('run-whatif').click();
    await expect.poll(() => cell.getByTestId('whatif-error').innerText()).toContain('the change must be a statement that modifies data');
    await screenshot(page, 'whatif-03-error');

    await page.reload();
    const reloaded = page.locator('[data-cell-kind="whatif"]');
    await expect.poll(() => reloaded.getByTestId('whatif-error').innerText()).toContain('must be a statement that modifies data');
    expect(oneLine(await editorText(reloaded.getByTestId('whatif-change')))).toBe('SELECT building_id FROM supply WHERE building_id = :candidate');
    expect(await reloaded.getByTestId('whatif-candidates').inputValue()).toMatch(/^\d+(, \d+)*$/);
    expect(app.pageErrors).toEqual([]);
  });

  it('runs on a CSV file added as a connection, naming the candidate $candidate as DuckDB does', async () => {
    const { page } = app;
    const csv = join(app.workspaceDir, 'stores.csv');
    writeFileSync(csv, 'id,region,revenue\n1,north,10.5\n2,north,20\n3,south,7.25\n4,south,1000\n');
    const before = fileHash(csv);
    await page.getByTestId('add-connection').click();
    const dialog = page.getByTestId('connection-dialog');
    await dialog.getByTestId('kind-csv').click();
    await dialog.getByLabel('Path').fill(csv);
    await dialog.getByLabel('Connection name').fill('Stores (CSV)');
    await dialog.getByTestId('save-connection').click();
    await expect.poll(() => dialog.count()).toBe(0);

    const cell = await addWhatIfCellOnTop(page);
    await cell.getByLabel('What-if database').selectOption({ label: 'Stores (CSV)' });
    await expect.poll(async () => `${await cell.locator('.field-label').first().innerText()} / ${await cell.getByLabel('What-if database').inputValue()}`, { timeout: 10_000 }).toContain('names as $candidate'); // the connection list refreshes after the dialog closes
    await typeInEditor(page, cell.getByTestId('whatif-change'), 'UPDATE stores SET revenue = revenue * 2 WHERE id = $candidate');
    await typeInEditor(page, cell.getByTestId('whatif-objective'), "SELECT sum(revenue) FROM stores WHERE region = 'north'");
    await cell.getByTestId('whatif-candidates').fill('1, 2, 3, 4');
    await cell.getByTestId('run-whatif').click();
    await expect.poll(() => cell.getByTestId('whatif-winner').innerText(), { timeout: 20_000 }).toMatch(/^Best: 2\b/);
    expect(await cell.getByTestId('whatif-proof').innerText()).toContain('✓ Source unchanged');
    await cell.scrollIntoViewIfNeeded();
    await screenshot(page, 'whatif-04-csv');
    expect(fileHash(csv)).toBe(before);
    expect(app.pageErrors).toEqual([]);
  });

  it('shows progress on a long experiment and stops it with Cancel', async () => {
    const { page } = app;
    const cell = await addWhatIfCellOnTop(page);
    await cell.getByLabel('What-if database').selectOption({ label: 'DQA Building USA 1836 (demo)' });
    await typeInEditor(page, cell.getByTestId('whatif-change'), 'UPDATE building SET level = level + 5 WHERE id = :candidate');
    // Counting to ten million per measurement: each candidate takes seconds.
    await typeInEditor(page, cell.getByTestId('whatif-objective'), 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000000) SELECT count(*) + (SELECT sum(level) FROM building) FROM c');
    await cell.getByTestId('whatif-candidates').fill('1430, 1431, 1432, 1433, 1434, 1435');
    await cell.getByLabel('Timeout per candidate in seconds').fill('120'); // slow machines must not hit the limit first
    await cell.getByTestId('run-whatif').click();
    await expect.poll(() => cell.getByTestId('whatif-progress').innerText(), { timeout: 30_000 }).toMatch(/^\d of 6 candidates$/);
    await screenshot(page, 'whatif-05-progress');
    await cell.getByTestId('cancel-whatif').click();
    await expect.poll(() => cell.getByTestId('whatif-error').innerText(), { timeout: 10_000 }).toMatch(/the what-if was stopped after \d of 6 candidates/);
    expect(await cell.getByTestId('run-whatif').isEnabled()).toBe(true);
    expect(app.pageErrors).toEqual([]);
  });
});
