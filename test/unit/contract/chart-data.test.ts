import { describe, expect, it } from 'vitest';
import { chartData, chartNumber, defaultChartSettings, describeChart, maxChartPoints, maxChartSeries, type CellValue, type ChartSettings } from '../../../src-main/contract';

const columns = [{ name: 'month' }, { name: 'region' }, { name: 'revenue' }, { name: 'cost' }];
const rows: CellValue[][] = [
  ['2024-02', 'north', 10, 4],
  ['2024-01', 'north', 5, 1],
  ['2024-02', 'south', 7, null],
  ['2024-01', 'south', 3, 2],
  ['2024-02', 'north', 1, 1],
];
const settings = (overrides: Partial<ChartSettings>): ChartSettings => ({ kind: 'bar', x: 'month', measures: ['revenue'], aggregate: 'sum', seriesBy: null, sort: 'none', ...overrides });
const drawn = (overrides: Partial<ChartSettings>, from: CellValue[][] = rows) => {
  const outcome = chartData(columns, from, settings(overrides));
  if (!outcome.ok) throw new Error(outcome.problem);
  return outcome.data;
};

describe('chartData', () => {
  it('groups repeated x values into one point per value, in first-seen order', () => {
    const data = drawn({});
    expect(data.points).toEqual([
      { x: '2024-02', values: [18] },
      { x: '2024-01', values: [8] },
    ]);
    expect(data.series).toEqual([{ key: 's0', label: 'revenue' }]);
  });

  it('computes each aggregate, with SQL’s rules for NULL', () => {
    expect(drawn({ aggregate: 'mean', measures: ['cost'] }).points.map((p) => p.values[0])).toEqual([2.5, 1.5]);
    expect(drawn({ aggregate: 'count', measures: ['cost'] }).points.map((p) => p.values[0])).toEqual([2, 2]);
    expect(drawn({ aggregate: 'min' }).points.map((p) => p.values[0])).toEqual([1, 3]);
    expect(drawn({ aggregate: 'max' }).points.map((p) => p.values[0])).toEqual([10, 5]);
    const allNull = drawn({ measures: ['cost'] }, [['a', 'x', 1, null], ['a', 'y', 2, null]]);
    expect(allNull.points).toEqual([{ x: 'a', values: [null] }]);
    expect(drawn({ aggregate: 'count', measures: ['cost'] }, [['a', 'x', 1, null]]).points).toEqual([{ x: 'a', values: [0] }]);
  });

  it('draws one series per measure, and per value of a series column', () => {
    const measures = drawn({ measures: ['revenue', 'cost'], sort: 'x-asc' });
    expect(measures.series.map((s) => s.label)).toEqual(['revenue', 'cost']);
    expect(measures.points).toEqual([
      { x: '2024-01', values: [8, 3] },
      { x: '2024-02', values: [18, 5] },
    ]);
    const split = drawn({ seriesBy: 'region', sort: 'x-asc' });
    expect(split.series.map((s) => s.label)).toEqual(['revenue · north', 'revenue · south']);
    expect(split.points).toEqual([
      { x: '2024-01', values: [5, 3] },
      { x: '2024-02', values: [11, 7] },
    ]);
  });

  it('sorts by x (numbers by size, text naturally, NULL last) and by value', () => {
    const mixed = [
      ['month 10', 'n', 1, 0],
      [null, 'n', 9, 0],
      ['month 2', 'n', 5, 0],
      [7, 'n', 3, 0],
    ];
    expect(drawn({ sort: 'x-asc' }, mixed).points.map((p) => p.x)).toEqual([7, 'month 2', 'month 10', 'NULL']);
    expect(drawn({ sort: 'x-desc' }, mixed).points.map((p) => p.x)).toEqual(['month 10', 'month 2', 7, 'NULL']);
    expect(drawn({ sort: 'y-desc' }, mixed).points.map((p) => p.values[0])).toEqual([9, 5, 3, 1]);
    expect(drawn({ sort: 'y-asc', measures: ['cost'], aggregate: 'sum' }, [['a', 'n', 1, null], ['b', 'n', 1, 2], ['c', 'n', 1, 1]]).points.map((p) => p.x)).toEqual(['c', 'b', 'a']);
  });

  it('keeps NULL apart from the text NULL and reads decimals sent as text', () => {
    const data = drawn({}, [[null, 'n', '1.5', 0], ['NULL', 'n', 2, 0], [null, 'n', '123456789012.25', 0]]);
    expect(data.points).toEqual([
      { x: 'NULL', values: [123456789013.75] },
      { x: 'NULL', values: [2] },
    ]);
    expect(chartNumber('NaN')).toBeNull();
    expect(chartNumber(true)).toBeNull();
    expect(chartNumber(' -3e2 ')).toBe(-300);
  });

  it('leaves out values that are not numbers and says how many', () => {
    const data = drawn({}, [['a', 'n', 'twelve', 0], ['a', 'n', 4, 0], ['b', 'n', true, 0]]);
    expect(data.points).toEqual([
      { x: 'a', values: [4] },
      { x: 'b', values: [null] },
    ]);
    expect(data.notes).toEqual(['2 values that are not numbers left out']);
  });

  it('without an aggregate, draws each row; a series column puts each row in its own series', () => {
    const data = drawn({ aggregate: 'none', seriesBy: 'region' });
    expect(data.points.length).toBe(5);
    expect(data.points[0]).toEqual({ x: '2024-02', values: [10, null] });
    expect(data.points[2]).toEqual({ x: '2024-02', values: [null, 7] });
  });

  it('caps points and series with a note, and names a column the result lacks', () => {
    const many = Array.from({ length: maxChartPoints + 5 }, (_, i) => [i, String(i % (maxChartSeries + 3)), 1, 1]);
    const data = drawn({ x: 'month', seriesBy: 'region' }, many);
    expect(data.points.length).toBe(maxChartPoints);
    expect(data.series.length).toBe(maxChartSeries);
    expect(data.numericX).toBe(true);
    expect(data.notes).toContain(`first ${maxChartSeries} of ${maxChartSeries + 3} series`);
    expect(data.notes).toContain(`first 2,000 of 2,005 groups`);
    expect(chartData(columns, rows, settings({ measures: ['profit'] }))).toEqual({ ok: false, problem: 'The result has no column “profit”: choose the chart’s columns again.' });
  });

  it('picks a first chart and describes settings in words', () => {
    expect(defaultChartSettings(columns, rows)).toEqual({ kind: 'bar', x: 'month', measures: ['revenue'], aggregate: 'none', seriesBy: null, sort: 'none' });
    expect(defaultChartSettings([{ name: 'a' }], [['x']])).toBeNull();
    expect(describeChart(settings({ seriesBy: 'region', sort: 'x-asc' }))).toBe('Bar chart: sum of revenue by month, one series per region, by x ascending');
  });
});
