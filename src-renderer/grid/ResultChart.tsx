import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from 'recharts';
import {
  chartAggregates,
  chartData,
  chartNumber,
  chartSorts,
  defaultChartSettings,
  maxChartMeasures,
  type CellValue,
  type ChartAggregate,
  type ChartSettings,
  type ChartSort,
  type QueryResult,
} from '../../src-main/contract';
import { columnLabel } from './column-label';
import { columnNumberFormat } from './format-cell';

/** Distinct in both themes and from each other; the legend's text stays in the text colour. */
const seriesColours = ['#2f5fe0', '#d9480f', '#2b8a3e', '#9c36b5', '#c2255c', '#0b7285', '#e67700', '#5c677d', '#1971c2', '#a61e4d', '#5f3dc4', '#087f5b'];

const aggregateLabels: Record<ChartAggregate, string> = { none: 'None (each row)', sum: 'Sum', mean: 'Mean', count: 'Count', min: 'Min', max: 'Max' };
const sortLabels: Record<ChartSort, string> = { none: 'Result order', 'x-asc': 'X ascending', 'x-desc': 'X descending', 'y-asc': 'Value ascending', 'y-desc': 'Value descending' };

/** Axis labels as the grid shows the column's values (a year axis reads 2024, not 2,024). */
const tickOf =
  (columnName: string) =>
  (value: unknown): string =>
    typeof value === 'number' ? columnNumberFormat(columnName)(value) : String(value);

/**
 * A chart of any result: bar, line or scatter, raw rows or grouped by the x column with an
 * aggregate, one series per measure (or per value of a series column), sorted as chosen.
 * `settings` are the cell's own (saved with it); without them the chart starts from a guess.
 */
export function ResultChart({
  result,
  rows,
  settings: saved,
  onSettingsChange,
}: {
  result: Pick<QueryResult, 'columns'>;
  rows: CellValue[][];
  settings: ChartSettings | undefined;
  onSettingsChange(settings: ChartSettings): void;
}) {
  if (rows.length === 0) return <p className="muted chart-empty">No rows to chart.</p>;
  const settings = saved ?? defaultChartSettings(result.columns, rows);
  if (!settings) return <p className="muted chart-empty">No numeric column to chart.</p>;
  const names = result.columns.map((column) => column.name);
  const numeric = names.map((_, index) => rows.some((row) => chartNumber(row[index]) !== null));
  const change = (edit: Partial<ChartSettings>): void => onSettingsChange({ ...settings, ...edit });
  const toggleMeasure = (name: string, on: boolean): void => {
    const measures = on ? [...settings.measures, name].filter((value, index, all) => all.indexOf(value) === index) : settings.measures.filter((measure) => measure !== name);
    if (measures.length > 0 && measures.length <= maxChartMeasures) change({ measures });
  };
  const outcome = chartData(result.columns, rows, settings);

  return (
    <div className="result-chart" data-testid="result-chart">
      <div className="chart-controls">
        <label>
          Chart
          <select aria-label="Chart type" value={settings.kind} onChange={(event) => change({ kind: event.target.value as ChartSettings['kind'] })}>
            <option value="bar">Bar</option>
            <option value="line">Line</option>
            <option value="scatter">Scatter</option>
          </select>
        </label>
        <label>
          X
          <select aria-label="X column" value={settings.x} onChange={(event) => change({ x: event.target.value })}>
            {names.map((name, index) => (
              <option key={name + String(index)} value={name}>
                {columnLabel(name, index)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Aggregate
          <select aria-label="Aggregate" value={settings.aggregate} onChange={(event) => change({ aggregate: event.target.value as ChartAggregate })}>
            {chartAggregates.map((aggregate) => (
              <option key={aggregate} value={aggregate}>
                {aggregateLabels[aggregate]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Series by
          <select aria-label="Series by" value={settings.seriesBy ?? ''} onChange={(event) => change({ seriesBy: event.target.value || null })}>
            <option value="">None</option>
            {names.map((name, index) => (
              <option key={name + String(index)} value={name}>
                {columnLabel(name, index)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sort
          <select aria-label="Sort" value={settings.sort} onChange={(event) => change({ sort: event.target.value as ChartSort })}>
            {chartSorts.map((sort) => (
              <option key={sort} value={sort}>
                {sortLabels[sort]}
              </option>
            ))}
          </select>
        </label>
      </div>
      <fieldset className="chart-measures">
        <legend>Y</legend>
        {names.map((name, index) => (
          <label key={name + String(index)}>
            <input
              type="checkbox"
              checked={settings.measures.includes(name)}
              // Count counts any column's values; the other aggregates (and raw rows) need numbers.
              disabled={(!numeric[index] && settings.aggregate !== 'count') || (settings.measures.length === 1 && settings.measures[0] === name)}
              onChange={(event) => toggleMeasure(name, event.target.checked)}
            />
            {columnLabel(name, index)}
          </label>
        ))}
      </fieldset>
      {outcome.ok ? <ChartDrawing settings={settings} data={outcome.data} /> : <p className="muted chart-empty" role="alert">{outcome.problem}</p>}
    </div>
  );
}

function ChartDrawing({ settings, data }: { settings: ChartSettings; data: Extract<ReturnType<typeof chartData>, { ok: true }>['data'] }) {
  const rows = data.points.map((point) => Object.fromEntries([['x', point.x], ...data.series.map((series, index) => [series.key, point.values[index] ?? null])]) as Record<string, string | number | null>);
  const yName = settings.measures[0] ?? 'y';
  const scatter = settings.kind === 'scatter';
  const margin = { top: 8, right: 16, bottom: 8, left: 8 };
  const axes = (
    <>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey="x" name={settings.x} type={scatter && data.numericX ? 'number' : 'category'} tick={{ fontSize: 11 }} tickFormatter={tickOf(settings.x)} />
      <YAxis {...(scatter ? { dataKey: 'y', type: 'number' as const } : {})} tick={{ fontSize: 11 }} tickFormatter={tickOf(yName)} width={80} />
      <Tooltip formatter={(value) => tickOf(yName)(value)} />
      {data.series.length > 1 && <Legend formatter={(value: string) => <span className="chart-legend-text">{value}</span>} />}
    </>
  );
  return (
    <>
      {data.notes.length > 0 && (
        <p className="muted chart-note" data-testid="chart-note">
          Chart: {data.notes.join('; ')}
        </p>
      )}
      <ResponsiveContainer width="100%" height={300}>
        {settings.kind === 'bar' ? (
          <BarChart data={rows} margin={margin}>
            {axes}
            {data.series.map((series, index) => (
              <Bar key={series.key} dataKey={series.key} name={series.label} fill={seriesColours[index % seriesColours.length]} isAnimationActive={false} />
            ))}
          </BarChart>
        ) : settings.kind === 'line' ? (
          <LineChart data={rows} margin={margin}>
            {axes}
            {data.series.map((series, index) => (
              <Line key={series.key} dataKey={series.key} name={series.label} stroke={seriesColours[index % seriesColours.length]} dot={false} connectNulls isAnimationActive={false} />
            ))}
          </LineChart>
        ) : (
          <ScatterChart margin={margin}>
            {axes}
            {data.series.map((series, index) => (
              <Scatter
                key={series.key}
                // Each series its own points: a scatter reads x and y from the same keys in every series.
                data={data.points.flatMap((point) => (point.values[index] === null ? [] : [{ x: point.x, y: point.values[index] }]))}
                name={series.label}
                fill={seriesColours[index % seriesColours.length]}
                isAnimationActive={false}
              />
            ))}
          </ScatterChart>
        )}
      </ResponsiveContainer>
    </>
  );
}
