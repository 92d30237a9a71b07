import { useEffect, useMemo, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Cell as BarCell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Cell, QueryResult, Scenario, SimulationResult, SimulationSpec } from '../../src-main/contract';
import { simulationSpecSchema } from '../../src-main/contract';
import { useWorkbench } from '../app/store-context';
import { ResultGrid } from '../grid/ResultGrid';
import { CellFrame } from './CellFrame';

/**
 * A simulation cell: the scenario simulator run on a connection's data for every candidate
 * decision — the table, a chart of each candidate's effect, and the winner with its ties.
 */
export function SimulationCell({ cell }: { cell: Cell }) {
  const connections = useWorkbench((state) => state.connections);
  const editCell = useWorkbench((state) => state.editCell);
  const runSimulationCell = useWorkbench((state) => state.runSimulationCell);
  const detectScenario = useWorkbench((state) => state.detectScenario);
  const reportError = useWorkbench((state) => state.reportError);
  const [scenario, setScenario] = useState<Scenario | null | 'unknown'>('unknown');
  const [running, setRunning] = useState(false);
  const raw = parseRaw(cell.source);
  const spec = parseSpec(raw);
  const editable = cell.author === 'analyst';

  useEffect(() => {
    if (!cell.connectionId) return;
    let current = true;
    detectScenario(cell.connectionId)
      .then((found) => current && setScenario(found))
      .catch(() => current && setScenario(null));
    return () => {
      current = false;
    };
  }, [cell.connectionId, detectScenario]);

  const detected = scenario === 'unknown' ? null : scenario;
  const activeScenario: Scenario | null = raw['scenario'] === 'locating' || raw['scenario'] === 'building' ? raw['scenario'] : detected;
  const draft: Record<string, unknown> = { rules: 'stated', ...raw, ...(activeScenario ? { scenario: activeScenario } : {}) };
  const setField = (field: string, value: string): void => editCell(cell.id, { source: JSON.stringify({ ...draft, [field]: value }) });
  const ready = spec !== null && cell.connectionId !== null;

  const toolbar = (
    <span className="query-controls">
      {editable && (
        <select aria-label="Simulation connection" value={cell.connectionId ?? ''} onChange={(event) => editCell(cell.id, { connectionId: event.target.value || null })}>
          <option value="">Choose data…</option>
          {connections.map((connection) => (
            <option key={connection.id} value={connection.id}>
              {connection.name}
            </option>
          ))}
        </select>
      )}
      {editable && (
        <button
          className="primary"
          data-testid="run-simulation"
          disabled={!ready || running}
          onClick={() => {
            setRunning(true);
            void runSimulationCell(cell.id)
              .catch((error: unknown) => reportError(error, 'Simulation failed'))
              .finally(() => setRunning(false));
          }}
        >
          {running ? 'Simulating…' : '▶ Simulate'}
        </button>
      )}
    </span>
  );

  return (
    <CellFrame cell={cell} toolbar={toolbar}>
      <div className="simulation-spec">
        {activeScenario === null && cell.connectionId && scenario !== 'unknown' && (
          <p className="warning">No simulator fits this database (it has neither the Locating nor the Building tables).</p>
        )}
        {activeScenario && (
          <div className="spec-fields">
            <span className="badge kind-simulation">{activeScenario === 'locating' ? 'Locating: where to place a merchant' : 'Building: which building to expand'}</span>
            {activeScenario === 'locating' ? (
              <>
                <SpecInput label="Country" value={fieldOf(draft, 'country')} editable={editable} onChange={(value) => setField('country', value)} />
                <SpecInput label="Home node" value={fieldOf(draft, 'home')} editable={editable} onChange={(value) => setField('home', value)} />
              </>
            ) : (
              <SpecInput label="Goods" value={fieldOf(draft, 'goods')} editable={editable} onChange={(value) => setField('goods', value)} />
            )}
            <label className="setting">
              rules
              <select aria-label="Rule set" disabled={!editable} value={String(draft['rules'])} onChange={(event) => setField('rules', event.target.value)}>
                <option value="stated">as stated</option>
                <option value="compat">DQA-compatible</option>
              </select>
            </label>
          </div>
        )}
      </div>
      {cell.output?.status === 'simulated' && <SimulationView result={cell.output.simulation} />}
      {cell.output?.status === 'error' && (
        <div className="query-error" role="alert" data-testid="simulation-error">
          <strong>Simulation failed</strong>
          <span>{cell.output.error.message}</span>
        </div>
      )}
    </CellFrame>
  );
}

function SpecInput({ label, value, editable, onChange }: { label: string; value: string; editable: boolean; onChange(value: string): void }) {
  return (
    <label className="setting">
      {label.toLowerCase()}
      <input aria-label={label} value={value} readOnly={!editable} onChange={(event) => onChange(event.target.value)} />
    </label>
  );
}

export function SimulationView({ result }: { result: SimulationResult }) {
  const table: QueryResult = useMemo(
    () => ({
      columns: ['rank', 'candidate', 'before', 'after', 'delta'].map((name) => ({ name, type: '' })),
      rows: result.candidates.map((row) => [row.rank, row.candidate, row.before, row.after, row.delta]),
      rowCount: result.candidates.length,
      truncated: false,
      elapsedMs: result.elapsedMs,
    }),
    [result],
  );
  const chart = result.candidates.slice(0, 20).map((row) => ({ candidate: row.candidate, delta: row.delta, tied: result.tied.includes(row.candidate) }));
  return (
    <div className="simulation-result" data-testid="simulation-result">
      <p className="simulation-winner" data-testid="simulation-winner">
        Best: <strong>{result.best}</strong>
        {result.tied.length > 1 && <span className="tie"> tied with {result.tied.filter((name) => name !== result.best).join(', ')}</span>}
        <span className="muted">
          {' '}
          · {result.objective}
          {result.margin !== null && ` · margin ${formatNumber(result.margin)}`}
        </span>
      </p>
      <div className="simulation-chart" data-testid="simulation-chart" aria-label="Effect of each candidate">
        <ResponsiveContainer width="100%" height={220}>
          <BarChart data={chart} margin={{ top: 8, right: 16, bottom: 48, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="candidate" angle={-35} textAnchor="end" interval={0} tick={{ fontSize: 11 }} />
            <YAxis tick={{ fontSize: 11 }} tickFormatter={formatNumber} width={72} />
            <Tooltip formatter={(value) => formatNumber(Number(value))} />
            <Bar dataKey="delta" isAnimationActive={false}>
              {chart.map((entry) => (
                <BarCell key={entry.candidate} fill={entry.tied ? '#2f8a55' : '#7fa2ff'} />
              ))}
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
      <p className="muted small-print">{result.candidateSet}</p>
      {result.notes.length > 0 && (
        <ul className="small-print">
          {result.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
      <ResultGrid result={table} fileName={`simulation-${result.spec.scenario}`} />
    </div>
  );
}

/** The cell's source is its specification, as JSON; a half-filled one is kept as typed. */
function parseRaw(source: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(source);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function parseSpec(raw: Record<string, unknown>): SimulationSpec | null {
  const parsed = simulationSpecSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

function fieldOf(spec: Record<string, unknown>, field: 'country' | 'home' | 'goods'): string {
  const value = spec[field];
  return typeof value === 'string' ? value : '';
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 1000 || value === 0 ? value.toLocaleString(undefined, { maximumFractionDigits: 2 }) : value.toPrecision(4);
}
