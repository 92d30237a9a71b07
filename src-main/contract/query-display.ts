import { z } from 'zod';

/**
 * How a query cell shows its result — the table or a chart, and the chart's settings — kept
 * with the cell (its `data.display`) so the choice survives a notebook switch, a reload and an
 * export. Columns are named, not numbered: a query edited to add a column keeps the chart.
 */
export const chartKinds = ['bar', 'line', 'scatter'] as const;
export const chartAggregates = ['none', 'sum', 'mean', 'count', 'min', 'max'] as const;
export const chartSorts = ['none', 'x-asc', 'x-desc', 'y-asc', 'y-desc'] as const;

/** At most this many measures (y columns) in one chart. */
export const maxChartMeasures = 8;

export const chartSettingsSchema = z.object({
  kind: z.enum(chartKinds),
  /** The column along the x axis; with an aggregate, the rows are grouped by it. */
  x: z.string().max(500),
  /** The y columns; one series each (or one per value of `seriesBy`). */
  measures: z.array(z.string().max(500)).min(1).max(maxChartMeasures),
  aggregate: z.enum(chartAggregates),
  /** A column whose values split each measure into series (one per value), or null. */
  seriesBy: z.string().max(500).nullable(),
  sort: z.enum(chartSorts),
});
export type ChartSettings = z.infer<typeof chartSettingsSchema>;
export type ChartAggregate = ChartSettings['aggregate'];
export type ChartSort = ChartSettings['sort'];

export const queryDisplaySchema = z.object({
  view: z.enum(['table', 'chart']),
  chart: chartSettingsSchema.optional(),
});
export type QueryDisplay = z.infer<typeof queryDisplaySchema>;

const aggregateWords: Record<ChartAggregate, string> = { none: 'each row', sum: 'sum', mean: 'mean', count: 'count', min: 'min', max: 'max' };
const sortWords: Record<ChartSort, string> = { none: 'in result order', 'x-asc': 'by x ascending', 'x-desc': 'by x descending', 'y-asc': 'by value ascending', 'y-desc': 'by value descending' };

/** The chart's settings in one line, as reports print them ("Bar chart: sum of revenue by month, sorted by x ascending"). */
export function describeChart(settings: ChartSettings): string {
  const kind = `${settings.kind[0]?.toUpperCase() ?? ''}${settings.kind.slice(1)} chart`;
  const measures = settings.measures.join(', ');
  const what = settings.aggregate === 'none' ? `${measures} for each row against ${settings.x}` : `${aggregateWords[settings.aggregate]} of ${measures} by ${settings.x}`;
  const series = settings.seriesBy ? `, one series per ${settings.seriesBy}` : '';
  return `${kind}: ${what}${series}, ${sortWords[settings.sort]}`;
}
