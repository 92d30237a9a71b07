import type { CellValue } from './data';
import type { ChartAggregate, ChartSettings, ChartSort } from './query-display';

/**
 * A result turned into what a chart draws: the x values in order and, for each, one value per
 * series. Pure, so the cell's chart and the reports' aggregated table agree to the digit.
 */
export interface ChartSeries {
  /** A stable key for the drawing library (`s0`, `s1`, …). */
  key: string;
  /** "revenue", or "revenue · north" when split by a series column. */
  label: string;
}
export interface ChartPoint {
  x: string | number;
  /** One per series, in `series` order; null where the group has no value for it. */
  values: (number | null)[];
}
export interface ChartData {
  series: ChartSeries[];
  points: ChartPoint[];
  /** Every x shown is a number (a scatter chart or a numeric axis needs it). */
  numericX: boolean;
  /** What was left out and why, in words ("first 2,000 of 5,120 groups"). */
  notes: string[];
}
export type ChartDataOutcome = { ok: true; data: ChartData } | { ok: false; problem: string };

/** Points drawn at most (rows without an aggregate, groups with one); the grid holds them all. */
export const maxChartPoints = 2000;
/** Series drawn at most: beyond this a legend cannot be read. */
export const maxChartSeries = 12;

const nullLabel = 'NULL';
const numberText = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A value read as a number: numbers, and text that is a plain decimal (exact decimals and big
 * integers arrive as text, e.g. PostgreSQL's numeric sums). NaN, ±Infinity and booleans are not.
 */
export function chartNumber(value: CellValue | undefined): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && numberText.test(value.trim())) {
    const read = Number(value);
    return Number.isFinite(read) ? read : null;
  }
  return null;
}

/** An x value as the axis shows it: numbers stay numbers (sorted and scaled as such). */
function xOf(value: CellValue | undefined): string | number {
  if (value === null || value === undefined) return nullLabel;
  if (typeof value === 'number') return value;
  return String(value);
}

/** Rows of one group fall together under this key; NULL is its own group, apart from the text 'NULL'. */
function groupKey(value: CellValue | undefined): string {
  return value === null || value === undefined ? '\u0000null' : String(value);
}

function reduce(aggregate: Exclude<ChartAggregate, 'none'>, values: readonly CellValue[]): number | null {
  if (aggregate === 'count') return values.filter((value) => value !== null).length;
  const numbers = values.map(chartNumber).filter((value): value is number => value !== null);
  // SQL's rule: the sum, mean, min or max of no values is NULL, not 0.
  if (numbers.length === 0) return null;
  switch (aggregate) {
    case 'sum':
      return numbers.reduce((total, value) => total + value, 0);
    case 'mean':
      return numbers.reduce((total, value) => total + value, 0) / numbers.length;
    case 'min':
      return Math.min(...numbers);
    case 'max':
      return Math.max(...numbers);
  }
}

/** Numbers before text, numbers by size, text in natural order (“month 2” before “month 10”), NULL last. */
export function compareX(a: string | number, b: string | number, aIsNull = false, bIsNull = false): number {
  if (aIsNull || bIsNull) return aIsNull === bIsNull ? 0 : aIsNull ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return a.localeCompare(b, 'en', { numeric: true });
}

/** Nulls last whichever the direction: a missing value is never the biggest or the smallest. */
function compareY(a: number | null, b: number | null, direction: 1 | -1): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return (a - b) * direction;
}

interface Draft {
  x: string | number;
  isNull: boolean;
  values: (number | null)[];
  order: number;
}

function sortPoints(points: Draft[], sort: ChartSort): Draft[] {
  const sorted = [...points];
  if (sort === 'x-asc') sorted.sort((a, b) => compareX(a.x, b.x, a.isNull, b.isNull) || a.order - b.order);
  if (sort === 'x-desc') sorted.sort((a, b) => (a.isNull || b.isNull ? compareX(a.x, b.x, a.isNull, b.isNull) : compareX(b.x, a.x)) || a.order - b.order);
  if (sort === 'y-asc') sorted.sort((a, b) => compareY(a.values[0] ?? null, b.values[0] ?? null, 1) || a.order - b.order);
  if (sort === 'y-desc') sorted.sort((a, b) => compareY(a.values[0] ?? null, b.values[0] ?? null, -1) || a.order - b.order);
  return sorted;
}

/**
 * Groups, aggregates, splits into series and sorts a result for a chart. A column the settings
 * name that the result does not have is a problem said in words (the query changed since).
 */
export function chartData(columns: readonly { name: string }[], rows: readonly CellValue[][], settings: ChartSettings): ChartDataOutcome {
  const indexOf = (name: string): number => columns.findIndex((column) => column.name === name);
  const missing = [settings.x, ...settings.measures, ...(settings.seriesBy ? [settings.seriesBy] : [])].filter((name) => indexOf(name) < 0);
  if (missing.length > 0) return { ok: false, problem: `The result has no column ${missing.map((name) => `“${name}”`).join(', ')}: choose the chart’s columns again.` };
  const xIndex = indexOf(settings.x);
  const measureIndexes = settings.measures.map(indexOf);
  const splitIndex = settings.seriesBy ? indexOf(settings.seriesBy) : -1;
  const notes: string[] = [];

  // The series: each measure, or each measure × each value of the series column (natural order).
  const splitValues =
    splitIndex < 0
      ? [null]
      : [...new Map(rows.map((row) => [groupKey(row[splitIndex]), row[splitIndex] ?? null])).values()].sort((a, b) =>
          compareX(xOf(a), xOf(b), a === null, b === null),
        );
  const allSeries = settings.measures.flatMap((measure, m) =>
    splitValues.map((value) => ({ measure: m, splitKey: splitIndex < 0 ? null : groupKey(value), label: splitIndex < 0 ? measure : `${measure} · ${String(xOf(value))}` })),
  );
  if (allSeries.length > maxChartSeries) notes.push(`first ${maxChartSeries} of ${allSeries.length.toLocaleString('en-US')} series`);
  const series = allSeries.slice(0, maxChartSeries);
  const seriesIndex = new Map(series.map((entry, index) => [`${entry.measure}|${entry.splitKey ?? ''}`, index]));
  const slotOf = (m: number, row: readonly CellValue[]): number | undefined => seriesIndex.get(`${m}|${splitIndex < 0 ? '' : groupKey(row[splitIndex])}`);

  let drafts: Draft[];
  let skippedText = 0;
  if (settings.aggregate === 'none') {
    drafts = rows.map((row, order) => {
      const values: (number | null)[] = series.map(() => null);
      measureIndexes.forEach((column, m) => {
        const slot = slotOf(m, row);
        if (slot === undefined) return;
        const value = chartNumber(row[column]);
        if (value === null && row[column] !== null && row[column] !== undefined) skippedText++;
        values[slot] = value;
      });
      return { x: xOf(row[xIndex]), isNull: row[xIndex] === null || row[xIndex] === undefined, values, order };
    });
  } else {
    const aggregate = settings.aggregate;
    const groups = new Map<string, { x: string | number; isNull: boolean; order: number; cells: CellValue[][] }>();
    for (const row of rows) {
      const key = groupKey(row[xIndex]);
      let group = groups.get(key);
      if (!group) {
        group = { x: xOf(row[xIndex]), isNull: row[xIndex] === null || row[xIndex] === undefined, order: groups.size, cells: series.map(() => []) };
        groups.set(key, group);
      }
      measureIndexes.forEach((column, m) => {
        const slot = slotOf(m, row);
        if (slot === undefined) return;
        const value = row[column] ?? null;
        if (aggregate !== 'count' && value !== null && chartNumber(value) === null) skippedText++;
        group.cells[slot]?.push(value);
      });
    }
    drafts = [...groups.values()].map((group) => ({ x: group.x, isNull: group.isNull, order: group.order, values: group.cells.map((values) => reduce(aggregate, values)) }));
  }
  if (skippedText > 0) notes.push(`${skippedText.toLocaleString('en-US')} value${skippedText === 1 ? '' : 's'} that are not numbers left out`);

  const sorted = sortPoints(drafts, settings.sort);
  const unit = settings.aggregate === 'none' ? 'rows' : 'groups';
  if (sorted.length > maxChartPoints) notes.push(`first ${maxChartPoints.toLocaleString('en-US')} of ${sorted.length.toLocaleString('en-US')} ${unit}`);
  const points = sorted.slice(0, maxChartPoints).map(({ x, values }) => ({ x, values }));
  return {
    ok: true,
    data: {
      series: series.map((entry, index) => ({ key: `s${index}`, label: entry.label })),
      points,
      numericX: points.every((point) => typeof point.x === 'number'),
      notes,
    },
  };
}

/** A first chart for a result: x the first column that is not the first numeric one, y the first numeric one, raw rows. */
export function defaultChartSettings(columns: readonly { name: string }[], rows: readonly CellValue[][]): ChartSettings | null {
  const numeric = columns.map((_, index) => rows.some((row) => chartNumber(row[index]) !== null) && rows.every((row) => row[index] === null || chartNumber(row[index]) !== null));
  const firstNumeric = numeric.indexOf(true);
  if (firstNumeric < 0) return null;
  const firstOther = numeric.findIndex((isNumeric, index) => !isNumeric || index !== firstNumeric);
  const x = columns[firstOther >= 0 ? firstOther : 0]?.name;
  const y = columns[firstNumeric]?.name;
  if (x === undefined || y === undefined) return null;
  return { kind: 'bar', x, measures: [y], aggregate: 'none', seriesBy: null, sort: 'none' };
}
