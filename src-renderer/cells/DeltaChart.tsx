import { Bar, BarChart, CartesianGrid, Cell as BarCell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatNumber } from './format-number';

export interface DeltaBar {
  candidate: string;
  delta: number;
  /** Within the tolerance of the best: drawn in the winner's colour. */
  tied: boolean;
}

/** Each candidate's effect on the objective, best first; the first 20 are drawn. */
export function DeltaChart({ bars, label }: { bars: DeltaBar[]; label: string }) {
  const shown = bars.slice(0, 20);
  return (
    <div className="simulation-chart" data-testid="delta-chart" role="figure" aria-label={label}>
      <ResponsiveContainer width="100%" height={220}>
        <BarChart data={shown} margin={{ top: 8, right: 16, bottom: 48, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="candidate" angle={-35} textAnchor="end" interval={0} tick={{ fontSize: 11 }} />
          <YAxis tick={{ fontSize: 11 }} tickFormatter={formatNumber} width={72} />
          <Tooltip formatter={(value) => formatNumber(Number(value))} />
          <Bar dataKey="delta" isAnimationActive={false}>
            {shown.map((entry) => (
              <BarCell key={entry.candidate} fill={entry.tied ? '#2f8a55' : '#7fa2ff'} />
            ))}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
      {bars.length > shown.length && <p className="muted small-print">The chart shows the best {shown.length} of {bars.length} candidates; the table lists them all.</p>}
    </div>
  );
}
