import { chartData } from '../contract/chart-data';
import { queryResultSchema, type QueryResult } from '../contract/data';
import { describeChart, queryDisplaySchema } from '../contract/query-display';

/** A query cell the analyst left showing a chart: the settings in words and the table the chart draws. */
export interface ChartRecord {
  cellId: string;
  query: string;
  /** "Bar chart: sum of revenue by month, by x ascending". */
  description: string;
  /** What the chart draws, as a table (x, then one column per series); null with `problem` when the columns are gone. */
  table: QueryResult | null;
  problem: string | null;
  notes: string[];
}

/**
 * The charts of a notebook's query cells, as the cells keep them (`data.display`), computed
 * from each cell's saved result by the same chartData the cell draws with, so the report's
 * table holds the values the analyst saw. Cells are read defensively: a bundle is outside data.
 */
export function chartsOf(cells: readonly unknown[]): ChartRecord[] {
  return cells.flatMap((cell): ChartRecord[] => {
    if (!isObject(cell) || cell['kind'] !== 'query' || !isObject(cell['data']) || !isObject(cell['output'])) return [];
    const display = queryDisplaySchema.safeParse(cell['data']['display']);
    const result = queryResultSchema.safeParse(cell['output']['result']);
    if (!display.success || display.data.view !== 'chart' || !display.data.chart || cell['output']['status'] !== 'ok' || !result.success) return [];
    const settings = display.data.chart;
    const drawn = chartData(result.data.columns, result.data.rows, settings);
    const base = { cellId: String(cell['id']), query: typeof cell['source'] === 'string' ? cell['source'] : '', description: describeChart(settings) };
    if (!drawn.ok) return [{ ...base, table: null, problem: drawn.problem, notes: [] }];
    const { series, points, notes } = drawn.data;
    const table: QueryResult = {
      columns: [{ name: settings.x, type: '' }, ...series.map((entry) => ({ name: entry.label, type: '' }))],
      rows: points.map((point) => [point.x, ...point.values]),
      rowCount: points.length,
      truncated: false,
      elapsedMs: 0,
    };
    return [{ ...base, table, problem: null, notes }];
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
