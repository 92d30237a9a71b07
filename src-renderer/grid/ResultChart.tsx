import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { CellValue, QueryResult } from '../../src-main/contract';
import { columnLabel } from './column-label';
import { columnNumberFormat } from './format-cell';

type ChartKind = 'bar' | 'line' | 'scatter';

/** Charts draw at most this many rows (in the grid's order); the grid holds them all. */
const maxPoints = 2000;

const isNumber = (value: CellValue | undefined): value is number => typeof value === 'number' && Number.isFinite(value);
/** Axis labels as the grid shows the column's values (a year axis reads 2024, not 2,024). */
const tickOf =
  (columnName: string) =>
  (value: unknown): string =>
    typeof value === 'number' ? columnNumberFormat(columnName)(value) : String(value);

/** A chart of any result: bar, line or scatter, with the x and y columns the analyst picks. */
export function ResultChart({ result, rows }: { result: Pick<QueryResult, 'columns'>; rows: CellValue[][] }) {
  const numericColumns = result.columns.map((_, index) => rows.some((row) => isNumber(row[index])) && rows.every((row) => row[index] === null || isNumber(row[index])));
  const firstNumeric = numericColumns.indexOf(true);
  const firstOther = numericColumns.findIndex((numeric, index) => !numeric || index !== firstNumeric);
  const [kind, setKind] = useState<ChartKind>('bar');
  const [x, setX] = useState(firstOther >= 0 ? firstOther : 0);
  const [y, setY] = useState(firstNumeric >= 0 ? firstNumeric : 0);

  if (rows.length === 0) return <p className="muted chart-empty">No rows to chart.</p>;
  if (firstNumeric < 0) return <p className="muted chart-empty">No numeric column to chart.</p>;
  const shown = rows.slice(0, maxPoints);
  const data = shown.filter((row) => isNumber(row[y]) && (kind !== 'scatter' || isNumber(row[x]))).map((row) => ({ x: row[x] ?? 'NULL', y: row[y] as number }));
  const xName = columnLabel(result.columns[x]?.name ?? 'x', x);
  const yName = columnLabel(result.columns[y]?.name ?? 'y', y);
  const axes = (
    <>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey="x" name={xName} type={kind === 'scatter' ? 'number' : 'category'} tick={{ fontSize: 11 }} tickFormatter={tickOf(xName)} />
      <YAxis dataKey="y" name={yName} tick={{ fontSize: 11 }} tickFormatter={tickOf(yName)} width={80} />
      <Tooltip formatter={(value) => tickOf(yName)(value)} />
    </>
  );
  return (
    <div className="result-chart" data-testid="result-chart">
      <div className="chart-controls">
        <label>
          Chart
          <select aria-label="Chart type" value={kind} onChange={(event) => setKind(event.target.value as ChartKind)}>
            <option value="bar">Bar</option>
            <option value="line">Line</option>
            <option value="scatter">Scatter</option>
          </select>
        </label>
        <label>
          X
          <select aria-label="X column" value={x} onChange={(event) => setX(Number(event.target.value))}>
            {result.columns.map((column, index) => (
              <option key={column.name + String(index)} value={index} disabled={kind === 'scatter' && !numericColumns[index]}>
                {columnLabel(column.name, index)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Y
          <select aria-label="Y column" value={y} onChange={(event) => setY(Number(event.target.value))}>
            {result.columns.map((column, index) => (
              <option key={column.name + String(index)} value={index} disabled={!numericColumns[index]}>
                {columnLabel(column.name, index)}
              </option>
            ))}
          </select>
        </label>
        {rows.length > maxPoints && <span className="muted">first {maxPoints.toLocaleString()} of {rows.length.toLocaleString()} rows</span>}
      </div>
      <ResponsiveContainer width="100%" height={300}>
        {kind === 'bar' ? (
          <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
            {axes}
            <Bar dataKey="y" name={yName} fill="#2f5fe0" isAnimationActive={false} />
          </BarChart>
        ) : kind === 'line' ? (
          <LineChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
            {axes}
            <Line dataKey="y" name={yName} stroke="#2f5fe0" dot={false} isAnimationActive={false} />
          </LineChart>
        ) : (
          <ScatterChart margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
            {axes}
            <Scatter data={data} name={yName} fill="#2f5fe0" isAnimationActive={false} />
          </ScatterChart>
        )}
      </ResponsiveContainer>
    </div>
  );
}
