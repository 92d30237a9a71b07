/**
 * "Export CSV" of a query cell's result: the main process runs the cell's query again and
 * streams every row (not the 5,000-row preview the grid keeps) to the file the save dialog
 * names, or, in browser mode, to a one-time download address on `dwb serve`. Real SQLite file,
 * real workspace, real HTTP server; the CSV is read back with papaparse.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../src-main/contract/api';
import { resultPreviewRows } from '../../src-main/contract/data';
import { startBrowserServer, type BrowserServer } from '../../src-main/server/browser-server';
import { openWorkbench, type Platform, type Workbench } from '../../src-main/services/workbench';
import { fixedEnvironment } from '../support/fixtures';
import { useTempDirs } from '../support/temp';
import { until } from '../support/until';

const tempDir = useTempDirs();
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

const rows = 12_000;
/** Values CSV must quote, and text a spreadsheet would run as a formula. */
const awkward = ['a, comma', 'a "quote"', 'two\nlines', '=HYPERLINK("http://x")', '@SUM(A1)', '-5', '+1', 'plain'];

function bigSqlite(directory: string): string {
  const path = join(directory, 'big.sqlite');
  const database = new Database(path);
  database.exec('CREATE TABLE item (id INTEGER PRIMARY KEY, label TEXT, amount REAL)');
  const insert = database.prepare('INSERT INTO item VALUES (?, ?, ?)');
  database.transaction(() => {
    for (let id = 1; id <= rows; id++) insert.run(id, id <= awkward.length ? awkward[id - 1] : id % 7 === 0 ? null : `label ${id}`, id * 1.5);
  })();
  database.close();
  return path;
}

async function setup(platform: Partial<Platform> = {}) {
  const directory = tempDir();
  const workbench: Workbench = openWorkbench({ workspaceDir: directory, platform: { transport: 'ipc', ...platform }, environment: fixedEnvironment(), installDemo: false });
  opened.push(workbench);
  const progress: EventPayload<'result-export-progress'>[] = [];
  workbench.subscribe((event, payload) => {
    if (event === 'result-export-progress') progress.push(payload as EventPayload<'result-export-progress'>);
  });
  const database = bigSqlite(tempDir());
  const connection = await workbench.invoke('connections/add', { name: 'big', target: { engine: 'sqlite', path: database } });
  const notebook = await workbench.invoke('notebooks/create', { title: 'export' });
  const text = 'SELECT id, label, amount FROM item ORDER BY id';
  const cell = await workbench.invoke('cells/insert', { notebookId: notebook.id, kind: 'query', source: text, connectionId: connection.id });
  const shown = await workbench.invoke('query/run', { requestId: 'r', connectionId: connection.id, text, settings: { maxRows: 1_000_000, timeoutMs: 60_000 }, cellId: cell.id });
  return { workbench, progress, database, cell, shown };
}

function parse(text: string): string[][] {
  const parsed = Papa.parse<string[]>(text, { newline: '\r\n', skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  return parsed.data;
}

describe('exporting a query cell’s whole result as CSV', () => {
  it('writes every row where the save dialog says, quoted as RFC 4180 says, not just the preview', async () => {
    const out = join(tempDir(), 'all.csv');
    const asked: { defaultName: string; extensions: string[] }[] = [];
    const { workbench, progress, cell, shown } = await setup({
      saveFileDialog: (options) => {
        asked.push(options);
        return Promise.resolve(out);
      },
    });
    expect(shown.rows).toHaveLength(resultPreviewRows);
    expect(shown.rowCount).toBe(rows);

    // Edited since it ran: the export still runs the query the shown result came from.
    await workbench.invoke('cells/update', { id: cell.id, source: 'SELECT 1 AS edited' });
    const saved = await workbench.invoke('results/export-csv', { exportId: 'e1', cellId: cell.id });
    expect(saved).toEqual({ status: 'saved', path: out, rowCount: rows, truncated: false });
    expect(asked).toEqual([{ title: 'Export all rows as CSV', defaultName: 'export-cell-1.csv', extensions: ['csv'] }]);
    const text = readFileSync(out, 'utf8');
    // CRLF line ends, and quotes only where a field needs them.
    expect(text.startsWith('id,label,amount\r\n1,"a, comma",1.5\r\n2,"a ""quote""",3\r\n3,"two\nlines",4.5\r\n4,"=HYPERLINK(""http://x"")",6\r\n')).toBe(true);
    const table = parse(text);
    expect(table).toHaveLength(rows + 1);
    expect(table[14]).toEqual(['14', '', '21']);
    expect(table[rows]).toEqual([String(rows), `label ${rows}`, String(rows * 1.5)]);
    expect(table.slice(1).map((row) => Number(row[0]))).toEqual(Array.from({ length: rows }, (_, index) => index + 1));
    expect(progress.at(0)).toEqual({ exportId: 'e1', status: 'running', rowCount: 0 });
    expect(progress.at(-1)).toEqual({ exportId: 'e1', status: 'done', rowCount: rows, truncated: false });
    // Only the finished file is left in the folder.
    expect(readdirSync(join(out, '..'))).toEqual(['all.csv']);
  });

  it('prefixes formula-like text with an apostrophe when asked, leaving numbers alone', async () => {
    const out = join(tempDir(), 'safe.csv');
    const { workbench, cell } = await setup({ saveFileDialog: () => Promise.resolve(out) });
    await workbench.invoke('results/export-csv', { exportId: 'e2', cellId: cell.id, formulaSafe: true });
    const table = parse(readFileSync(out, 'utf8'));
    expect(table.slice(1, awkward.length + 1).map((row) => row[1])).toEqual(['a, comma', 'a "quote"', 'two\nlines', '\'=HYPERLINK("http://x")', "'@SUM(A1)", "'-5", "'+1", 'plain']);
    expect(table[1]?.[2]).toBe('1.5');
  });

  it('writes nothing when the save dialog is closed', async () => {
    const { workbench, cell, progress } = await setup({ saveFileDialog: () => Promise.resolve(null) });
    expect(await workbench.invoke('results/export-csv', { exportId: 'e3', cellId: cell.id })).toEqual({ status: 'not-saved' });
    expect(progress).toEqual([]);
  });

  it('says clearly why when the query fails now, and keeps the file it would have replaced', async () => {
    const out = join(tempDir(), 'kept.csv');
    writeFileSync(out, 'the analyst’s earlier export\n');
    const { workbench, cell, database, progress } = await setup({ saveFileDialog: () => Promise.resolve(out) });
    // The table went away since the cell ran.
    const writer = new Database(database);
    writer.exec('ALTER TABLE item RENAME TO gone');
    writer.close();
    await expect(workbench.invoke('results/export-csv', { exportId: 'e4', cellId: cell.id })).rejects.toThrow(/no such table: item/);
    expect(progress.at(-1)).toMatchObject({ exportId: 'e4', status: 'failed', message: expect.stringMatching(/no such table: item/) });
    expect(readFileSync(out, 'utf8')).toBe('the analyst’s earlier export\n');
    expect(readdirSync(join(out, '..'))).toEqual(['kept.csv']);
  });

  it('says why when the file cannot be written', async () => {
    const out = join(tempDir(), 'no-such-folder', 'all.csv');
    const { workbench, cell, progress } = await setup({ saveFileDialog: () => Promise.resolve(out) });
    await expect(workbench.invoke('results/export-csv', { exportId: 'e8', cellId: cell.id })).rejects.toThrow(/^Could not write the export: ENOENT/);
    expect(progress.at(-1)).toMatchObject({ exportId: 'e8', status: 'failed', message: expect.stringMatching(/^Could not write the export: ENOENT/) });
  });

  it('cancels a long export: the query stops and no partial file is left', async () => {
    const out = join(tempDir(), 'long.csv');
    const { workbench, progress, cell } = await setup({ saveFileDialog: () => Promise.resolve(out) });
    // A result of more rows than the cell's cap read (a million for the export).
    const endless = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i FROM c';
    await workbench.invoke('query/run', { requestId: 'endless', connectionId: cell.connectionId ?? '', text: endless, settings: { maxRows: 10, timeoutMs: 60_000 }, cellId: cell.id });
    const exporting = workbench.invoke('results/export-csv', { exportId: 'e5', cellId: cell.id });
    await until(() => progress.some((entry) => entry.status === 'running' && entry.rowCount > 0));
    expect(await workbench.invoke('results/export-cancel', { exportId: 'e5' })).toEqual({ cancelled: true });
    await expect(exporting).rejects.toThrow('Export cancelled');
    expect(progress.at(-1)).toMatchObject({ exportId: 'e5', status: 'cancelled' });
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(join(out, '..'))).toEqual([]);
  });

  it('in browser mode streams every row from a one-time download address', async () => {
    const { workbench, cell, progress } = await setup();
    const server: BrowserServer = await startBrowserServer({ workbench, rendererDir: tempDir(), log: () => undefined });
    opened.push(server);
    const answer = await workbench.invoke('results/export-csv', { exportId: 'e6', cellId: cell.id });
    expect(answer).toMatchObject({ status: 'download', fileName: 'export-cell-1.csv' });
    if (answer.status !== 'download') throw new Error('expected a download');
    const origin = new URL(server.url).origin;
    const response = await fetch(`${origin}${answer.url}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${answer.fileName}"`);
    const table = parse(await response.text());
    expect(table).toHaveLength(rows + 1);
    await until(() => progress.at(-1)?.status === 'done');
    // The address works once.
    const again = await fetch(`${origin}${answer.url}`);
    expect(again.status).toBe(404);
    expect(await again.text()).toMatch(/used already or has expired/);
  });

  it('exports every row of a CSV file opened through DuckDB too', async () => {
    const out = join(tempDir(), 'duck.csv');
    const directory = tempDir();
    const workbench: Workbench = openWorkbench({ workspaceDir: directory, platform: { transport: 'ipc', saveFileDialog: () => Promise.resolve(out) }, environment: fixedEnvironment(), installDemo: false });
    opened.push(workbench);
    const source = join(tempDir(), 'sales.csv');
    writeFileSync(source, `id,region\n${Array.from({ length: 6_000 }, (_, index) => `${index + 1},${index % 2 === 0 ? 'north' : '"south, east"'}`).join('\n')}\n`);
    const connection = await workbench.invoke('connections/add', { name: 'sales', target: { engine: 'duckdb', format: 'csv', path: source } });
    const notebook = await workbench.invoke('notebooks/create', { title: 'duck' });
    const text = 'SELECT id, region FROM sales ORDER BY id';
    const cell = await workbench.invoke('cells/insert', { notebookId: notebook.id, kind: 'query', source: text, connectionId: connection.id });
    const shown = await workbench.invoke('query/run', { requestId: 'd', connectionId: connection.id, text, settings: { maxRows: 100_000, timeoutMs: 60_000 }, cellId: cell.id });
    expect(shown.rows).toHaveLength(resultPreviewRows);
    expect(await workbench.invoke('results/export-csv', { exportId: 'd1', cellId: cell.id })).toMatchObject({ status: 'saved', rowCount: 6_000 });
    const table = parse(readFileSync(out, 'utf8'));
    expect(table).toHaveLength(6_001);
    expect(table[2]).toEqual(['2', 'south, east']);
    expect(table[6_000]).toEqual(['6000', 'south, east']);
  });

  it('refuses a cell that is not a query', async () => {
    const { workbench, cell } = await setup();
    const note = await workbench.invoke('cells/insert', { notebookId: cell.notebookId, kind: 'note', source: 'hello', connectionId: null });
    await expect(workbench.invoke('results/export-csv', { exportId: 'e7', cellId: note.id })).rejects.toThrow('Only a query cell’s result can be exported this way');
  });
});
