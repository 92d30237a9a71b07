/**
 * The DeLLMa agriculture example's database: the 2021 USDA California figures as numbers with
 * their units (never the 2022 ground truth), and a damaged copy's malformed rows reported and
 * kept in `import_problems` rather than dropped.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { agricultureExample, agricultureQuestion, agricultureReport, describeImport, writeAgricultureDatabase } from '../../../src-main/dellma-data/agriculture-example';
import { listedAfter } from '../../../src-main/engine/techniques/dellma/frame';
import { memorySecretStore } from '../../../src-main/secrets/secret-store';
import { openAgricultureExample } from '../../../src-main/services/example-service';
import { openAppDatabase } from '../../../src-main/workspace/app-database';
import { ConnectionStore } from '../../../src-main/workspace/connection-store';
import { DocumentStore } from '../../../src-main/workspace/document-store';
import { NotebookStore } from '../../../src-main/workspace/notebook-store';
import { fixedEnvironment, repoRoot } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const agriculture = join(repoRoot, 'fixtures', 'dellma', 'agriculture');

interface StatsRow {
  commodity: string;
  year: number;
  yield_per_acre: number;
  yield_unit: string;
  price: number;
  price_unit: string;
  price_qualifier: string | null;
  revenue_per_acre: number | null;
  yield_as_published: string;
  source_line: number;
}

function rowsOf(path: string): { stats: StatsRow[]; problems: { file: string; line: number; problem: string; raw: string }[] } {
  const database = new Database(path, { readonly: true });
  try {
    return {
      stats: database.prepare(`SELECT * FROM ${agricultureExample.table} ORDER BY source_line`).all() as StatsRow[],
      problems: database.prepare(`SELECT * FROM ${agricultureExample.malformedTable} ORDER BY line`).all() as { file: string; line: number; problem: string; raw: string }[],
    };
  } finally {
    database.close();
  }
}

describe('the agriculture example database', () => {
  it('holds every 2021 commodity with yield and price parsed into numbers with their units', () => {
    const path = join(tempDir(), 'examples', 'agriculture.sqlite');
    const outcome = writeAgricultureDatabase(agriculture, path);
    const dataLines = readFileSync(join(agriculture, 'stats', 'CA-2021.csv'), 'utf8').trim().split('\n').length - 1;
    expect(outcome).toMatchObject({ table: 'ca_crop_stats_2021', rows: dataLines, malformed: [] });
    const { stats, problems } = rowsOf(path);
    expect(stats).toHaveLength(40);
    expect(problems).toEqual([]);
    expect(new Set(stats.map((row) => row.year))).toEqual(new Set([2021]));
    const byName = new Map(stats.map((row) => [row.commodity, row]));
    // "19,000 LB / ACRE" at "0.244 $ / LB": 4,636 $ per acre.
    expect(byName.get('apple')).toMatchObject({ yield_per_acre: 19000, yield_unit: 'LB', price: 0.244, price_unit: 'LB', price_qualifier: null, revenue_per_acre: 4636, yield_as_published: '19,000 LB / ACRE' });
    // "2.87 TONS / ACRE" at "2,430 $ / TON".
    expect(byName.get('avocado')).toMatchObject({ yield_per_acre: 2.87, yield_unit: 'TON', price: 2430, price_unit: 'TON', revenue_per_acre: 6974.1 });
    expect(byName.get('grapefruit')).toMatchObject({ yield_per_acre: 457, yield_unit: 'BOX', price: 24.33, price_unit: 'BOX', price_qualifier: 'ON TREE EQUIV' });
    // Units that do not convert (bushels priced per bushel do; pounds priced per hundredweight do).
    expect(byName.get('rice')).toMatchObject({ yield_per_acre: 9050, yield_unit: 'LB', price: 32, price_unit: 'CWT', revenue_per_acre: 2896 });
    // Never the 2022 figures (apple 2022: 18,000 LB at 0.3 $; pear 2022: 17.1 TONS at 640 $).
    expect(byName.get('pear')).toMatchObject({ yield_per_acre: 15.6, price: 565 });
    expect(describeImport(outcome)).toBe('ca_crop_stats_2021: 40 commodities with yield and price as numbers with their units; no malformed rows');
  });

  it('reports a damaged copy’s malformed rows with line and reason, keeps them in import_problems, and imports the rest', () => {
    const dir = tempDir();
    cpSync(agriculture, dir, { recursive: true });
    const csv = join(dir, 'stats', 'CA-2021.csv');
    const lines = readFileSync(csv, 'utf8').trim().split('\n');
    lines.splice(2, 0, 'quince,lots / ACRE,5 $ / TON', 'fig,3 TONS / ACRE');
    lines.push('kumquat,2 FURLONGS / ACRE,1 $ / TON');
    writeFileSync(csv, `${lines.join('\n')}\n`);
    const path = join(dir, 'damaged.sqlite');
    const outcome = writeAgricultureDatabase(dir, path);
    expect(outcome.rows).toBe(40);
    expect(outcome.malformed.map((problem) => [problem.line, problem.message])).toEqual([
      [3, 'yield "lots / ACRE" is not "<number> <unit> / ACRE"'],
      [4, 'expected 3 fields, found 2'],
      [44, 'yield "2 FURLONGS / ACRE" has an unknown unit "FURLONGS"'],
    ]);
    const { stats, problems } = rowsOf(path);
    expect(stats).toHaveLength(40);
    expect(problems.map((problem) => [problem.file, problem.line, problem.raw])).toEqual([
      [join('stats', 'CA-2021.csv'), 3, 'quince,lots / ACRE,5 $ / TON'],
      [join('stats', 'CA-2021.csv'), 4, 'fig,3 TONS / ACRE'],
      [join('stats', 'CA-2021.csv'), 44, 'kumquat,2 FURLONGS / ACRE,1 $ / TON'],
    ]);
    expect(describeImport(outcome)).toMatch(/; 3 malformed row\(s\) kept in import_problems, not imported: line 3 \(yield "lots \/ ACRE"[^)]*\); line 4 \(expected 3 fields, found 2\); line 44/);
  });

  it('replaces an earlier database at the same path and says when the statistics are missing', () => {
    const path = join(tempDir(), 'agriculture.sqlite');
    writeAgricultureDatabase(agriculture, path);
    expect(writeAgricultureDatabase(agriculture, path).rows).toBe(40);
    expect(rowsOf(path).stats).toHaveLength(40);
    expect(() => writeAgricultureDatabase(tempDir(), join(tempDir(), 'x.sqlite'))).toThrow(/Cannot read the USDA statistics .*CA-2021\.csv: no such file \(ENOENT\)/);
  });

  it('asks the paper’s question with its seven fruits as options, and attaches the September 2021 report', () => {
    expect(listedAfter('options', agricultureQuestion)).toEqual(['apple', 'avocado', 'grape', 'grapefruit', 'lemon', 'peach', 'pear']);
    expect(listedAfter('unknowns', agricultureQuestion)).toEqual(['climate condition', 'supply chain disruptions']);
    const report = agricultureReport(agriculture);
    expect(report.name).toBe('fruit-sept-2021.txt');
    expect(new TextDecoder().decode(report.bytes)).toBe(readFileSync(join(agriculture, 'reports', 'fruit-sept-2021.txt'), 'utf8'));
  });

  it('opens in the app with a damaged copy: the notebook’s note lists the malformed rows; a second opening reuses the connection', async () => {
    const dir = tempDir();
    cpSync(agriculture, dir, { recursive: true });
    const csv = join(dir, 'stats', 'CA-2021.csv');
    writeFileSync(csv, readFileSync(csv, 'utf8').replace('lemon,428 BOXES / ACRE,"23.3 $ / BOX, ON TREE EQUIV"', 'lemon,428 BOXES / ACRE'));
    const workspaceDir = tempDir();
    const database = openAppDatabase(workspaceDir);
    const environment = fixedEnvironment();
    const stores = { notebooks: new NotebookStore(database, environment), connections: new ConnectionStore(database, environment, memorySecretStore()), documents: new DocumentStore(database, environment) };
    const released: string[] = [];
    const open = () => openAgricultureExample({ workspaceDir, dataDir: dir, ...stores, release: (id) => Promise.resolve(void released.push(id)) });
    const first = await open();
    expect(first.imported.rows).toBe(39);
    expect(first.imported.malformed).toEqual([{ line: 9, message: 'expected 3 fields, found 2', raw: 'lemon,428 BOXES / ACRE' }]);
    const note = stores.notebooks.get(first.notebookId).cells[0];
    expect(note?.source).toContain('ca_crop_stats_2021: 39 commodities with yield and price as numbers with their units; 1 malformed row(s) kept in import_problems, not imported: line 9 (expected 3 fields, found 2)');
    expect(stores.documents.list(first.notebookId).map((document) => document.name)).toEqual(['fruit-sept-2021.txt']);
    expect(rowsOf(join(workspaceDir, 'examples', 'dellma-agriculture-2021.sqlite')).problems).toMatchObject([{ line: 9, raw: 'lemon,428 BOXES / ACRE' }]);

    const second = await open();
    expect(second.connectionId).toBe(first.connectionId);
    expect(released).toEqual([first.connectionId]);
    expect(second.notebookId).not.toBe(first.notebookId);
    expect(stores.connections.list()).toHaveLength(1);
    database.close();
  });
});
