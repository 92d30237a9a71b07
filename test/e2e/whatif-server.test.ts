import pg from 'pg';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { screenshot, typeInEditor, useAppInBrowser } from '../support/browser';
import { repoRoot } from '../support/fixtures';
import { startPostgres, whyPostgresUnavailable, type TestServer } from '../servers';
import { importRelationalDump } from '../servers/import-dump';
import { describeOrNotRun } from '../servers/not-run';

/**
 * A what-if cell on a PostgreSQL connection: the experiment runs in DuckDB on a local copy of
 * the table it names, the cell says so, and the server's rows stay as they were.
 */

const unavailable = whyPostgresUnavailable();
let postgres: TestServer | null = null;
let databaseUri = '';

const app = useAppInBrowser({
  viewport: { width: 1400, height: 1100 },
  timeoutMs: 180_000,
  prepare: async () => {
    if (unavailable !== null) return;
    postgres = await startPostgres();
    if (!postgres) throw new Error('PostgreSQL did not start');
    databaseUri = await importRelationalDump(postgres.uri, join(repoRoot, 'resources', 'demo', 'building-USA1836.sql'));
  },
});

async function grainOnServer(): Promise<{ total: number; rows: number }> {
  const client = new pg.Client({ connectionString: databaseUri });
  await client.connect();
  try {
    const result = await client.query<{ total: number; rows: string }>('SELECT sum(current_output) AS total, count(*) AS rows FROM supply');
    return { total: Number(result.rows[0]?.total), rows: Number(result.rows[0]?.rows) };
  } finally {
    await client.end();
  }
}

describeOrNotRun('a what-if cell on a PostgreSQL connection', unavailable, () => {
  it('runs in DuckDB on a local copy of the named table, says so, and leaves the server’s rows as they were', async () => {
    const { page } = app;
    const before = await grainOnServer();
    await page.goto(app.server.url);
    await page.getByTestId('notebook-title').waitFor();

    await page.getByTestId('add-connection').click();
    const dialog = page.getByTestId('connection-dialog');
    await dialog.getByTestId('kind-postgres').click();
    await dialog.getByLabel('Host').fill(databaseUri);
    await dialog.getByLabel('Port').click();
    await dialog.getByLabel('Connection name').fill('Building on PostgreSQL');
    await dialog.getByTestId('save-connection').click();
    await expect.poll(() => page.getByTestId('connection-list').innerText(), { timeout: 10_000 }).toContain('Building on PostgreSQL');

    await page.getByTestId('new-notebook').click();
    await expect.poll(() => page.getByTestId('notebook-title').textContent()).toBe('Untitled 1');
    await page.getByTestId('add-whatif').first().click();
    const cell = page.locator('[data-cell-kind="whatif"]');
    await cell.getByLabel('What-if database').selectOption({ label: 'Building on PostgreSQL' });
    const where = cell.getByTestId('whatif-where');
    await expect.poll(() => where.count(), { timeout: 10_000 }).toBe(1);
    expect(await where.innerText()).toMatch(/^The experiment runs in DuckDB on a local copy of the tables .* \(the PostgreSQL server is only read\).*\$candidate/);
    expect(await cell.innerText()).toContain('which it names as $candidate');

    await typeInEditor(page, cell.getByTestId('whatif-change'), 'UPDATE supply SET current_output = current_output * (level + 5.0) / level WHERE building_id = $candidate AND goods_id = 7');
    await typeInEditor(page, cell.getByTestId('whatif-objective'), 'SELECT sum(current_output) FROM supply WHERE goods_id = 7');
    await cell.getByRole('radio', { name: 'query' }).check();
    await typeInEditor(page, cell.getByTestId('whatif-candidates-query'), 'SELECT building_id FROM supply WHERE goods_id = 7 ORDER BY building_id');
    await cell.getByTestId('run-whatif').click();
    await expect.poll(() => cell.getByTestId('whatif-winner').innerText(), { timeout: 30_000 }).toMatch(/^Best: \d+/);
    const proof = await cell.getByTestId('whatif-proof').innerText();
    expect(proof).toMatch(/^✓ Source unchanged — sha256:[0-9a-f]{12}… of the rows read from the server before and after · \d+ candidates in \d+ ms on a local DuckDB copy of supply \(\d+ rows\)/);
    expect(proof).toContain(`supply (${before.rows} rows)`);
    await cell.scrollIntoViewIfNeeded();
    await screenshot(page, 'whatif-05-postgres');

    expect(await grainOnServer()).toEqual(before);

    // A decision run on this connection offers the model the same experiments, and says where they run.
    await page.getByTestId('new-run').click();
    const composer = page.getByTestId('run-composer');
    await composer.getByLabel('Run connection').selectOption({ label: 'Building on PostgreSQL' });
    await expect.poll(() => composer.getByTestId('whatif-offer-note').innerText()).toBe(
      'The model may test candidate changes on a local DuckDB copy of the tables it names (the server is only read).',
    );
    expect(await composer.getByLabel('Offer what-if experiments').isChecked()).toBe(true);
    await composer.getByRole('button', { name: 'Close' }).click();
    expect(app.pageErrors).toEqual([]);
  });
});

afterAll(async () => {
  await postgres?.stop();
}, 60_000);
