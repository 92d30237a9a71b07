import { mkdtempSync, rmSync, cpSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAgriculture } from '../../../src-main/dellma-data/agriculture';
import { allSubsets, normalisedUtility } from '../../../src-main/dellma-data/environment';
import { loadStocks, monthlyMeans, parsePriceHistory } from '../../../src-main/dellma-data/stocks';
import { parsePrice, parseUsdaStats, parseYield, revenuePerAcre } from '../../../src-main/dellma-data/usda';
import { repoRoot } from '../../support/fixtures';

const fixtures = join(repoRoot, 'fixtures', 'dellma');
const temp = mkdtempSync(join(tmpdir(), 'dellma-data-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('USDA units', () => {
  it('parses numbers with thousands separators and units', () => {
    expect(parseYield('18,000 LB / ACRE')).toEqual({ value: 18000, unit: 'LB', text: '18,000 LB / ACRE' });
    expect(parseYield('6.92 TONS / ACRE')).toMatchObject({ value: 6.92, unit: 'TON' });
    expect(parsePrice('15.59 $ / BOX, ON TREE EQUIV')).toMatchObject({ value: 15.59, unit: 'BOX', qualifier: 'ON TREE EQUIV' });
    expect(parsePrice('2,430 $ / TON')).toMatchObject({ value: 2430, unit: 'TON', qualifier: null });
  });

  it('converts weights before multiplying', () => {
    const row = (y: string, p: string) => ({ commodity: 'x', yield: parseYield(y) as never, price: parsePrice(p) as never, line: 2 });
    expect(revenuePerAcre(row('9,050 LB / ACRE', '32 $ / CWT'))).toBeCloseTo(2896, 9);
    expect(revenuePerAcre(row('2 TONS / ACRE', '0.5 $ / LB'))).toBeCloseTo(2000, 9);
    expect(revenuePerAcre(row('10 BOXES / ACRE', '1 $ / TON'))).toMatch(/cannot be converted/);
  });

  it('reports malformed rows with file and line and keeps the good ones', () => {
    const text = ['Commodity,Yield,Price per Unit', 'apple,"19,000 LB / ACRE",0.244 $ / LB', 'kiwi,lots,3 $ / LB', 'pear,15.6 TONS / ACRE', '', 'fig,"1 TON / ACRE,2 $ / TON', 'plum,6.52 TONS / ACRE,1140 € / TON'].join('\n');
    const stats = parseUsdaStats('CA-test.csv', text);
    expect(stats.rows.map((row) => row.commodity)).toEqual(['apple']);
    expect(stats.malformed.map((p) => [p.file, p.line])).toEqual([
      ['CA-test.csv', 3],
      ['CA-test.csv', 4],
      ['CA-test.csv', 6],
      ['CA-test.csv', 7],
    ]);
    expect(stats.malformed.find((p) => p.line === 3)?.message).toMatch(/yield "lots"/);
    expect(stats.malformed.find((p) => p.line === 4)?.message).toMatch(/expected 3 fields, found 2/);
    expect(stats.malformed.find((p) => p.line === 6)?.message).toMatch(/unbalanced quotes/);
  });
});

describe('agriculture environment', () => {
  const { environment, stats2021, stats2022 } = loadAgriculture(join(fixtures, 'agriculture'));

  it('parses every published row', () => {
    expect(stats2021.malformed).toEqual([]);
    expect(stats2022.malformed).toEqual([]);
    expect(stats2021.rows.length).toBe(40);
    expect(stats2022.rows.length).toBe(38);
  });

  it('ground truth is the 2022 revenue per acre', () => {
    const expected = { apple: 18000 * 0.3, avocado: 2.97 * 3530, grape: 6.7 * 1010, grapefruit: 432 * 9.59, lemon: 485 * 15.59, peach: 12.9 * 891, pear: 17.1 * 640 };
    for (const [fruit, value] of Object.entries(expected)) expect(environment.outcome[fruit]).toBeCloseTo(value, 9);
  });

  it('has the 120 problems with their best fruit', () => {
    expect(environment.problems).toHaveLength(120);
    expect(environment.problems[0]).toEqual({ id: 1, actions: ['apple', 'avocado'], best: 'avocado' });
    expect(environment.problems[119]!.actions).toHaveLength(7);
    expect(environment.problems[119]!.best).toBe('peach');
    expect(environment.problems.filter((p) => p.actions.length === 2)).toHaveLength(21);
    expect(environment.factors).toHaveLength(16);
    expect(environment.contextFor(['lemon'])).toContain('428 BOXES / ACRE');
    expect(environment.contextFor(['lemon'])).not.toContain('apple production');
    expect(environment.documents[0]!.text).toContain('Fruit and Tree Nut Grower Price Index');
    expect(normalisedUtility(environment.outcome, 'pear', 'peach')).toBeCloseTo(10944 / 11493.9, 9);
  });

  it('refuses a stats file without a row it needs, naming the malformed line', () => {
    const dir = join(temp, 'agri');
    cpSync(join(fixtures, 'agriculture'), dir, { recursive: true });
    const file = join(dir, 'stats', 'CA-2022.csv');
    writeFileSync(file, readFileSync(file, 'utf8').replace('pear,17.1 TONS / ACRE,640 $ / TON', 'pear,17.1 TONS / ACRE,six hundred $ / TON'));
    expect(() => loadAgriculture(dir)).toThrow(/CA-2022\.csv has no usable row for pear \(malformed rows: line \d+\)/);
  });
});

describe('stocks environment', () => {
  const environment = loadStocks(join(fixtures, 'stocks'));

  it('outcome is the December 2023 return from the open of the 1st to the close of the 29th', () => {
    expect(environment.malformed).toEqual([]);
    expect(environment.outcome.AMD).toBeCloseTo(147.410004 / 119.879997 - 1, 9);
    expect(environment.outcome.GME).toBeCloseTo(17.530001 / 14.52 - 1, 9);
    expect(environment.problems).toHaveLength(120);
    expect(environment.factors).toHaveLength(5 + 7 * 5);
  });

  it('always taking the first-listed stock scores 83/120 (69.2%), the figure of the spec’s pitfall', () => {
    expect(environment.problems.filter((problem) => problem.actions[0] === problem.best)).toHaveLength(83);
    expect(environment.problems.every((problem) => problem.actions[0] !== 'AMD' || problem.best === 'AMD')).toBe(true);
  });

  it('context shows 24 monthly mean closes as the paper prints them', () => {
    const context = environment.contextFor(['AMD']);
    expect(context).toContain('Price now (open of 2023-12-01): 119.88');
    expect(context).toContain('2021-12: 143.49');
    expect(context).toContain('2023-11: 117.59');
    expect(context).not.toContain('2023-12:');
  });

  it('reports malformed price rows with their line', () => {
    const history = parsePriceHistory('X', 'X.csv', ['Date,Open,High,Low,Close,Adj Close,Volume', '2023-11-01,1,1,1,2,2,5', '2023-11-02,,1,1,2,2,5', '11/03/2023,1,1,1,2,2,5', '2023-11-06,1,1,1,4,4,5'].join('\n'));
    expect(history.malformed.map((p) => p.line)).toEqual([3, 4]);
    expect(monthlyMeans(history, '2023-12-01')).toEqual([{ month: '2023-11', mean: 3 }]);
  });
});

it('enumerates subsets of size ≥ 2', () => {
  expect(allSubsets(['a', 'b', 'c'])).toEqual([['a', 'b'], ['a', 'c'], ['b', 'c'], ['a', 'b', 'c']]);
});
