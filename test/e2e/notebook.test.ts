import { describe, expect, it } from 'vitest';
import { editorText as editorTextOf, screenshot, typeInEditor, useAppInBrowser } from '../support/browser';
import { endlessSqliteQuery } from '../support/fixtures';

const app = useAppInBrowser({ viewport: { width: 1400, height: 900 } });

const cells = () => app.page.getByTestId('cell');
const lastCell = () => cells().last();

/** The text of a cell's query editor. */
const editorText = (cell: ReturnType<typeof lastCell>): Promise<string> => editorTextOf(cell.getByTestId('query-editor'));

/** Types into the query editor of a cell, replacing its text. */
const typeQuery = (cell: ReturnType<typeof lastCell>, text: string): Promise<void> => typeInEditor(app.page, cell.getByTestId('query-editor'), text);

describe('a new user in browser mode', () => {
  it('opens the bundled demo notebook with its databases', async () => {
    await app.page.goto(app.server.url);
    await expect.poll(() => app.page.getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    await expect.poll(() => cells().count()).toBe(12);
    expect(await app.page.getByTestId('connection-list').innerText()).toContain('DQA Locating 1445 (demo)');
    expect(await app.page.locator('.cell-question').first().innerText()).toContain('baltic_sea');
    await screenshot(app.page, '01-demo-notebook');
  });

  it('runs the demo query and sorts the result by a column', async () => {
    const demoQuery = app.page.locator('[data-cell-kind="query"]').first();
    await demoQuery.getByTestId('run-query').click();
    await expect.poll(() => demoQuery.getByTestId('result-summary').textContent()).toMatch(/^\d+ rows? · /);
    const header = demoQuery.getByRole('columnheader', { name: /local_value/ });
    await header.click();
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('ascending');
    const values = await demoQuery.locator('[role=row]').evaluateAll((rows) =>
      rows.slice(1).map((row) => Number(row.querySelectorAll('[role=cell]')[4]?.textContent)),
    );
    expect(values.length).toBeGreaterThan(1);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    await screenshot(app.page, '02-demo-query-sorted');
  });

  it('browses the schema: tables with row counts, columns with types and keys', async () => {
    await app.page.getByRole('button', { name: /DQA Locating 1445/ }).click();
    const tree = app.page.getByTestId('schema-tree');
    await expect.poll(() => tree.innerText()).toContain('trade_node');
    await tree.getByRole('button', { name: /node_country/ }).click();
    const text = await tree.innerText();
    expect(text).toMatch(/flow\s+159/);
    expect(text).toContain('base_trading_power');
    expect(text).toContain('PK');
    await screenshot(app.page, '03-schema-browser');

    // The filter narrows tables by name, and other tables to their matching columns, opened.
    const filter = app.page.getByRole('searchbox', { name: 'Filter the schema' });
    await filter.fill('trading_power');
    await expect.poll(() => tree.innerText()).toContain('base_trading_power');
    const tables = await tree.locator('.table-name').allInnerTexts();
    expect(tables.length).toBeGreaterThan(0);
    expect(tables).not.toContain('flow');
    expect(await tree.locator('.column-name').allInnerTexts()).toEqual(expect.arrayContaining(['base_trading_power']));
    expect((await tree.locator('.column-name').allInnerTexts()).every((name) => name.includes('trading_power'))).toBe(true);
    await screenshot(app.page, '03b-schema-filtered');
    await filter.fill('no_such_thing');
    await expect.poll(() => app.page.getByRole('status').filter({ hasText: 'Nothing in this schema matches' }).count()).toBe(1);
    await filter.press('Escape');
    await expect.poll(() => tree.innerText()).toContain('flow');
  });

  it('creates a notebook, writes SQL with completion, runs it with Shift+Enter and reads the rows', async () => {
    await app.page.getByTestId('new-notebook').click();
    await expect.poll(() => app.page.getByTestId('notebook-title').textContent()).toBe('Untitled 1');
    await app.page.getByTestId('add-query').first().click();
    await expect.poll(() => cells().count()).toBe(1);
    const cell = cells().first();
    await cell.getByTestId('cell-connection').selectOption({ label: 'DQA Locating 1445 (demo)' });

    await cell.getByTestId('query-editor').click();
    await app.page.keyboard.type('SELECT trade_node, local_value FROM trade_n');
    await app.page.keyboard.press('Control+Space');
    const suggestion = app.page.locator('.monaco-editor .suggest-widget .monaco-list-row', { hasText: 'trade_node' }).first();
    await suggestion.waitFor();
    await screenshot(app.page, '04-completion');
    await app.page.keyboard.press('Enter');
    await app.page.keyboard.type(' ORDER BY local_value DESC LIMIT 5');
    await app.page.keyboard.press('Escape');
    await app.page.keyboard.press('Shift+Enter');

    await expect.poll(() => cell.getByTestId('result-summary').textContent()).toMatch(/^5 rows · /);
    const firstRow = await cell.locator('[role=row]').nth(1).innerText();
    expect(firstRow).toMatch(/\w+/);
    // Shift+Enter moved on to a new cell below.
    await expect.poll(() => cells().count()).toBe(2);
    await screenshot(app.page, '05-query-result');
  });

  it('shows the database’s own message for broken SQL', async () => {
    const cell = cells().first();
    await typeQuery(cell, 'SELECT trade_node FROM trade_node WHERE');
    await cell.getByTestId('run-query').click();
    const error = cell.getByTestId('query-error');
    await expect.poll(() => error.innerText()).toContain('Syntax error');
    expect(await error.innerText()).toContain('incomplete input');
    await screenshot(app.page, '06-syntax-error');
  });

  it('refuses a write with a clear message', async () => {
    const cell = cells().first();
    await typeQuery(cell, 'DELETE FROM flow');
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('query-error').innerText()).toContain('Refused — read-only connection');
  });

  it('cancels a slow query', async () => {
    const cell = cells().nth(1);
    await cell.getByTestId('cell-connection').selectOption({ label: 'DQA Locating 1445 (demo)' });
    await typeQuery(cell, endlessSqliteQuery);
    await cell.getByTestId('run-query').click();
    await cell.getByTestId('query-running').waitFor();
    await app.page.waitForTimeout(600);
    await screenshot(app.page, '07-running');
    await cell.getByTestId('cancel-query').click();
    await expect.poll(() => cell.getByTestId('query-error').innerText()).toContain('Cancelled');
    expect(await cell.getByTestId('run-query').isEnabled()).toBe(true);
  });

  it('caps rows and says the result was truncated', async () => {
    const cell = cells().nth(1);
    await cell.getByLabel('Row cap').fill('7');
    await typeQuery(cell, 'SELECT * FROM flow');
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('result-truncated').textContent()).toContain('Truncated at 7 rows');
    expect(await cell.locator('[role=row]').count()).toBe(8);
    await screenshot(app.page, '08-truncated');
  });

  it('renders notes as Markdown and never as raw HTML', async () => {
    await app.page.getByTestId('add-note').last().click();
    const note = lastCell();
    await note
      .getByTestId('note-editor')
      .fill(
        '## Findings\n\n**Krakow** looks best. <img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>\n\nSee [the bank](javascript:window.__pwned=3) and [the guide](https://example.org/guide).\n\n| node | profit |\n| --- | ---: |\n| krakow | 1.2 |\n| lubeck | 0.9 |',
      );
    await app.page.keyboard.press('Escape');
    await expect.poll(() => note.locator('.markdown strong').textContent()).toBe('Krakow');
    // GitHub-flavoured tables render as tables, not as raw pipes.
    expect(await note.locator('.markdown table tbody tr').count()).toBe(2);
    expect(await note.locator('.markdown table td').first().textContent()).toBe('krakow');
    expect(await note.locator('.markdown img, .markdown script').count()).toBe(0);
    // Raw HTML is shown as the text it is, not dropped: the reader sees what was written.
    expect(await note.locator('.markdown').textContent()).toContain('<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>');
    // A javascript: link is its text alone; a web link leads where its title says.
    expect(await note.locator('.markdown a').evaluateAll((links) => links.map((link) => [link.textContent, link.getAttribute('href'), link.getAttribute('title')]))).toEqual([
      ['the guide', 'https://example.org/guide', 'https://example.org/guide'],
    ]);
    expect(await note.getByTestId('markdown-unlinked').textContent()).toBe('the bank');
    expect(await app.page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await screenshot(app.page, '09-note');
  });

  it('finds everything saved after a reload', async () => {
    // Every edit saved, not only typed: a save still in flight makes the reload ask to leave (seen under load).
    await expect.poll(async () => (await app.page.locator('[data-testid=save-state]').allTextContents()).filter((state) => state === 'Editing…' || state === 'Saving…')).toEqual([]);
    await app.page.reload();
    await expect.poll(() => app.page.getByTestId('notebook-title').textContent()).toBe('Untitled 1');
    await expect.poll(() => cells().count()).toBe(3);
    expect(await editorText(cells().first())).toBe('DELETE FROM flow');
    expect(await cells().nth(1).getByTestId('result-truncated').textContent()).toContain('Truncated at 7 rows');
    expect(await cells().nth(1).getByLabel('Row cap').inputValue()).toBe('7');
    expect(await cells().nth(2).locator('.markdown strong').textContent()).toBe('Krakow');
    await screenshot(app.page, '10-after-reload');
  });

  it('deletes a notebook and brings it back with Undo', async () => {
    await app.page.getByTestId('notebook-list').getByText('Untitled 1').hover();
    await app.page.getByRole('button', { name: 'Delete Untitled 1' }).click();
    await expect.poll(() => app.page.getByTestId('notebook-list').innerText()).not.toContain('Untitled 1');
    await app.page.getByTestId('toast').getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => app.page.getByTestId('notebook-list').innerText()).toContain('Untitled 1');
    await expect.poll(() => app.page.getByTestId('notebook-title').textContent()).toBe('Untitled 1');
    expect(app.pageErrors).toEqual([]);
  });
});

describe('errors the page reports', () => {
  it('does not report Monaco’s cancellation of its own pending work at teardown, but reports any other unhandled rejection', async () => {
    const page = await app.browser.newPage();
    const reported: string[] = [];
    page.on('pageerror', (error) => reported.push(error.message));
    await page.goto(app.server.url);
    await page.getByTestId('notebook-title').waitFor();
    await page.evaluate(() => {
      // What Monaco's Delayer rejects with when an editor is disposed mid-delay (errors.ts: canceled()).
      const cancellation = new Error('Canceled');
      cancellation.name = 'Canceled';
      void Promise.reject(cancellation);
      void Promise.reject(new Error('a real failure'));
    });
    await expect.poll(() => reported.length).toBeGreaterThan(0);
    await page.waitForTimeout(200); // both rejections are reported in the same task; nothing else is pending
    expect(reported).toEqual(['a real failure']);
    await page.close();
  });
});
