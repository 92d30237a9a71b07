import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { editorText, screenshot, typeInEditor, useAppInBrowser } from '../support/browser';
import { startTrino, whyTrinoUnavailable, type TrinoTestServer } from '../servers';
import { findFreeLoopbackPort } from '../servers/free-port';
import { describeOrNotRun } from '../servers/not-run';
import { loadTrinoFixture, trinoFingerprint } from '../integration/connectors/trino-fixture';

/**
 * The Trino connection form in browser mode, against a real Trino 476 coordinator: a pasted
 * `trino://USER@HOST:PORT/CATALOG/SCHEMA` is taken apart into the form's fields, Test reports
 * what the login sees, the schema browser lists the tables of both catalogs, a query cell
 * completes a table of the other catalog part by part and shows rows, and a write is refused. A URI missing its user or catalog, and a port nothing listens on,
 * each get their own message, and the form keeps what was typed.
 */

const unavailable = whyTrinoUnavailable();
const connectionName = 'Trades on Trino';
let trino: TrinoTestServer | null = null;

const app = useAppInBrowser({
  viewport: { width: 1400, height: 900 },
  timeoutMs: 240_000,
  prepare: async () => {
    if (unavailable !== null) return;
    trino = await startTrino();
    if (trino === null) throw new Error('Trino did not start');
    await loadTrinoFixture(trino.adminUri);
  },
});

afterAll(async () => {
  await trino?.stop();
}, 60_000);

const dialog = (): Locator => app.page.getByTestId('connection-dialog');
const report = (): Locator => dialog().getByTestId('connection-test-report');
/** `host:port` of the test coordinator. */
const hostPort = (): string => new URL(trino?.httpUrl ?? 'http://unset').host;
/** The reader's URI in the fixture's schema. */
const readerUri = (): string => `trino://dwb_reader@${hostPort()}/memory/wb`;

/** Opens the form on Trino and pastes `uri` into Host, as a user would paste a whole URL. */
async function pasteTrinoUri(uri: string): Promise<void> {
  await dialog().getByLabel('Host').fill(uri);
  await dialog().getByLabel('Port').click();
}

describeOrNotRun('a Trino connection added through the form', unavailable, () => {
  beforeAll(async () => {
    await app.page.goto(app.server.url);
    await app.page.getByTestId('notebook-title').waitFor();
  });

  it('takes a pasted trino:// URI apart, and Test reports what the reader sees', async () => {
    await app.page.getByTestId('add-connection').click();
    await dialog().getByTestId('kind-trino').click();
    expect(await dialog().getByTestId('url-shape-hint').innerText()).toBe('A whole trino://USER@HOST:PORT/CATALOG/SCHEMA URL pasted into Host fills in the fields.');
    await screenshot(app.page, 'trino-01-empty-form');
    await pasteTrinoUri(readerUri());
    expect(await dialog().getByLabel('Host').inputValue()).toBe('127.0.0.1');
    expect(await dialog().getByLabel('Port').inputValue()).toBe(String(new URL(trino?.httpUrl ?? '').port));
    expect(await dialog().getByLabel('Catalog').inputValue()).toBe('memory/wb');
    expect(await dialog().getByLabel('User').inputValue()).toBe('dwb_reader');
    await dialog().getByLabel('Connection name').fill(connectionName);
    await dialog().getByTestId('test-connection').click();
    // nodes, trades and the north_nodes view in memory.wb, lake.sales.orders in the other catalog;
    // rows are counted in the connection's catalog only (5 nodes + 8 trades).
    await expect.poll(() => report().innerText(), { timeout: 60_000 }).toMatch(/^Works Connected: 4 tables, 13 rows/);
    await screenshot(app.page, 'trino-02-form-tested');
    await dialog().getByTestId('save-connection').click();
    await expect.poll(() => dialog().count()).toBe(0);
    await expect.poll(() => app.page.getByTestId('connection-list').innerText()).toContain(connectionName);
  });

  it('lists the tables of every catalog and schema the reader may see in the schema browser', async () => {
    const row = app.page.getByTestId('connection').filter({ hasText: connectionName });
    await row.getByRole('button', { name: connectionName }).click();
    const tree = row.getByTestId('schema-tree');
    // The connection's own schema first, each other catalog's schema one folded row below it.
    const lake = tree.getByTestId('schema-namespace').filter({ hasText: 'lake.sales' });
    await expect.poll(() => lake.innerText(), { timeout: 60_000 }).toMatch(/^▸\s*lake\.sales\s+1 table$/);
    const text = await tree.innerText();
    expect(text).toMatch(/nodes\s+5/);
    expect(text).toMatch(/trades\s+8/);
    expect(text).toMatch(/north_nodes\s+view/);
    expect(text).not.toContain('orders');
    await lake.getByRole('button', { name: /lake\.sales/ }).click();
    await expect.poll(() => lake.innerText()).toMatch(/orders\s+\?/);
    expect(await lake.getByRole('button', { name: /orders/ }).getAttribute('title')).toBe('lake.sales.orders');
    await tree.getByRole('button', { name: /trades/ }).click();
    expect(await tree.innerText()).toMatch(/price\s+decimal\(10,2\)/);
    // A filter opens the groups that hold its matches.
    await lake.getByRole('button', { name: /lake\.sales/ }).click();
    await row.getByLabel('Filter the schema').fill('amount');
    await expect.poll(() => tree.innerText()).toMatch(/^▾\s*lake\.sales\s+1 table\s+▾\s*orders\s+\?\s+amount/);
    await row.getByLabel('Filter the schema').fill('');
    await screenshot(app.page, 'trino-03-schema-browser');
  });

  it('runs a query cell, completing the other catalog’s table part by part, and shows its rows; INSERT and CREATE TABLE are refused and Trino is unchanged', async () => {
    const before = await trinoFingerprint(trino?.adminUri ?? '');
    await app.page.getByTestId('new-notebook').click();
    await expect.poll(() => app.page.getByTestId('notebook-title').textContent()).toMatch(/^Untitled/);
    await app.page.getByTestId('add-query').first().click();
    const cell = app.page.getByTestId('cell').first();
    await cell.getByTestId('cell-connection').selectOption({ label: connectionName });
    // The table in the other catalog is typed with completion, part by part after each dot.
    await cell.getByTestId('query-editor').click();
    await app.page.keyboard.type('SELECT n.name, o.amount FROM nodes n JOIN lake.');
    const suggestion = (label: string): Locator => app.page.locator('.monaco-editor .suggest-widget .monaco-list-row.focused', { hasText: label });
    await suggestion('sales').waitFor();
    await screenshot(app.page, 'trino-04-completion');
    await app.page.keyboard.press('Enter');
    await app.page.keyboard.type('.');
    await suggestion('orders').waitFor();
    await app.page.keyboard.press('Enter');
    await app.page.keyboard.type(' o ON o.id = n.id ORDER BY n.id');
    await app.page.keyboard.press('Escape');
    await expect.poll(async () => (await editorText(cell.getByTestId('query-editor'))).trim()).toBe('SELECT n.name, o.amount FROM nodes n JOIN lake.sales.orders o ON o.id = n.id ORDER BY n.id');
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('result-summary').textContent(), { timeout: 60_000 }).toMatch(/^2 rows · /);
    expect(await cell.locator('[role=row]').allInnerTexts()).toEqual([expect.stringMatching(/name\s+amount/), expect.stringMatching(/Rotterdam\s+12\.5/), expect.stringMatching(/Hamburg\s+7\.25/)]);
    await screenshot(app.page, 'trino-05-query-rows');

    const error = cell.getByTestId('query-error');
    await typeInEditor(app.page, cell.getByTestId('query-editor'), "INSERT INTO nodes VALUES (99, 'Evil', 'x')");
    await cell.getByTestId('run-query').click();
    await expect.poll(() => error.innerText(), { timeout: 60_000 }).toContain('Refused — read-only connection');
    expect(await error.innerText()).toContain('Trino: INSERT statements are not allowed');
    await screenshot(app.page, 'trino-06-insert-refused');
    await typeInEditor(app.page, cell.getByTestId('query-editor'), 'CREATE TABLE evil AS SELECT * FROM nodes');
    await cell.getByTestId('run-query').click();
    await expect.poll(() => error.innerText(), { timeout: 60_000 }).toContain('Trino: CREATE statements are not allowed');
    expect(await trinoFingerprint(trino?.adminUri ?? '')).toBe(before);
  });

  it('says what is missing from a URI without a user or a catalog, and what fails on a port nothing listens on', async () => {
    await app.page.getByTestId('add-connection').click();
    await dialog().getByTestId('kind-trino').click();
    await pasteTrinoUri(`trino://${hostPort()}/memory`);
    await dialog().getByTestId('test-connection').click();
    const formError = dialog().getByRole('alert');
    await expect.poll(() => formError.innerText()).toContain('The user is required: Trino runs every query as a named user');
    await screenshot(app.page, 'trino-07-no-user');

    await dialog().getByLabel('User').fill('dwb_reader');
    await dialog().getByLabel('Catalog').fill('');
    await dialog().getByTestId('test-connection').click();
    await expect.poll(() => formError.innerText()).toContain('The catalog is required: Trino reads unqualified table names in one');

    // A password over plain HTTP: refused before anything is sent, naming the HTTPS setting the form has.
    await pasteTrinoUri(readerUri());
    const https = dialog().getByLabel(/^HTTPS/);
    expect(await https.isChecked()).toBe(false);
    await dialog().getByLabel('Password', { exact: true }).fill('s3cret');
    await dialog().getByTestId('test-connection').click();
    await expect.poll(() => report().innerText(), { timeout: 60_000 }).toContain('Failed (connection-failed) Trino accepts a password only over HTTPS: add ?ssl=true to the URL');
    await https.check();
    await dialog().getByTestId('test-connection').click();
    // The coordinator speaks plain HTTP: the TLS handshake fails, and the report says how.
    await expect.poll(() => report().innerText(), { timeout: 60_000 }).toContain(`Failed (connection-failed) Trino: cannot reach the coordinator at https://${hostPort()}: it does not answer in TLS there (ERR_SSL_WRONG_VERSION_NUMBER)`);
    await screenshot(app.page, 'trino-08-https-to-plain-http');
    await dialog().getByLabel('Password', { exact: true }).fill('');
    await https.uncheck();

    // A free port, so nothing listens there.
    const nowhere = await findFreeLoopbackPort();
    await pasteTrinoUri(`trino://dwb_reader@127.0.0.1:${nowhere}/memory/wb?ssl=true`);
    expect(await https.isChecked()).toBe(true);
    await https.uncheck();
    await dialog().getByLabel('Connection name').fill('Nowhere');
    await dialog().getByTestId('test-connection').click();
    await expect.poll(() => report().innerText(), { timeout: 60_000 }).toContain(`Failed (connection-failed) Trino: cannot reach the coordinator at http://127.0.0.1:${nowhere}: connect ECONNREFUSED 127.0.0.1:${nowhere}`);
    await screenshot(app.page, 'trino-09-unreachable');
    // Nothing typed is lost: the fields hold the URI's parts and the name.
    expect(await dialog().getByLabel('Host').inputValue()).toBe('127.0.0.1');
    expect(await dialog().getByLabel('Port').inputValue()).toBe(String(nowhere));
    expect(await dialog().getByLabel('Catalog').inputValue()).toBe('memory/wb');
    expect(await dialog().getByLabel('Connection name').inputValue()).toBe('Nowhere');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog().count()).toBe(0);
    expect(await app.page.getByTestId('connection-list').innerText()).toContain(connectionName);
    expect(app.pageErrors).toEqual([]);
  });
});
