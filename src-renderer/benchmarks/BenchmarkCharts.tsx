import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ResultsTable } from '../../src-main/contract';

const statusColors = ['#2563eb', '#d97706', '#dc2626', '#7c3aed', '#0891b2', '#4b5563', '#16a34a', '#db2777'];

function rowName(row: ResultsTable['rows'][number]): string {
  return `${row.technique}${row.variant === undefined ? '' : ` (${row.variant})`} · ${row.scenario} · ${row.db}`;
}

/** Accuracy per technique × scenario × database kind, tokens per question, and where runs ended. */
export function BenchmarkCharts({ table }: { table: ResultsTable }) {
  const accuracy = table.rows.map((row) => ({
    name: rowName(row),
    right: row.questions === 0 ? 0 : Math.round((1000 * row.correct) / row.questions) / 10,
    tiesCounted: row.questions === 0 ? 0 : Math.round((1000 * row.correctWithTies) / row.questions) / 10,
  }));
  const tokens = table.questions.map((result) => ({ name: `${result.id} ${result.technique} ${result.db}`, prompt: result.promptTokens, completion: result.completionTokens }));
  const statuses = [...new Set(table.rows.flatMap((row) => Object.keys(row.ended)))].sort();
  const ended = table.rows.map((row) => ({ name: rowName(row), ...Object.fromEntries(statuses.map((status) => [status, row.ended[status] ?? 0])) }));
  return (
    <div className="benchmark-charts">
      <figure data-testid="chart-accuracy">
        <figcaption>Accuracy per technique (%)</figcaption>
        <ResponsiveContainer width="100%" height={60 + 40 * accuracy.length}>
          <BarChart data={accuracy} layout="vertical" margin={{ left: 12, right: 24 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis type="number" domain={[0, 100]} />
            <YAxis type="category" dataKey="name" width={220} />
            <Tooltip />
            <Legend />
            <Bar dataKey="right" name="right" fill="#2563eb" isAnimationActive={false} />
            <Bar dataKey="tiesCounted" name="ties counted" fill="#93c5fd" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </figure>
      <figure data-testid="chart-tokens">
        <figcaption>Tokens per question</figcaption>
        <ResponsiveContainer width="100%" height={240}>
          <BarChart data={tokens} margin={{ left: 12, right: 24 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="name" hide />
            <YAxis />
            <Tooltip />
            <Legend />
            <Bar dataKey="prompt" stackId="tokens" name="prompt" fill="#2563eb" isAnimationActive={false} />
            <Bar dataKey="completion" stackId="tokens" name="completion" fill="#f59e0b" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </figure>
      <figure data-testid="chart-ended">
        <figcaption>Where runs ended</figcaption>
        <ResponsiveContainer width="100%" height={60 + 40 * ended.length}>
          <BarChart data={ended} layout="vertical" margin={{ left: 12, right: 24 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis type="number" allowDecimals={false} />
            <YAxis type="category" dataKey="name" width={220} />
            <Tooltip />
            <Legend />
            {statuses.map((status, index) => (
              <Bar key={status} dataKey={status} stackId="ended" name={status} fill={statusColors[index % statusColors.length]} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </figure>
    </div>
  );
}
