import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Cell, Scenario, SimulationResult, SimulationSpec } from '../../src-main/contract';
import { simulationSpecSchema } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { ResultGrid } from '../grid/ResultGrid';
import { CellFrame } from './CellFrame';
import { DeltaChart } from './DeltaChart';
import { DataSelect, ExperimentError, Notes, rankingTable, useExclusiveRun } from './experiment-parts';
import { parseJsonObject } from '../state/json-source';
import { formatNumber } from './format-number';

/**
 * A simulation cell: the scenario simulator run on a connection's data for every candidate
 * decision — the table, a chart of each candidate's effect, and the winner with its ties.
 */
export function SimulationCell({ cell }: { cell: Cell }) {
  const editCell = useWorkbench((state) => state.editCell);
  const runSimulationCell = useWorkbench((state) => state.runSimulationCell);
  const detectScenario = useWorkbench((state) => state.detectScenario);
  const [scenario, setScenario] = useState<Scenario | null | 'unknown'>('unknown');
  const { running, run } = useExclusiveRun(useCallback(() => runSimulationCell(cell.id), [runSimulationCell, cell.id]), 'Simulation failed');
  const raw = parseJsonObject(cell.source);
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

  const toolbar = editable && (
    <span className="query-controls">
      <DataSelect cell={cell} label="Simulation connection" />
      <button className="primary" data-testid="run-simulation" disabled={!ready || running} onClick={run}>
        {running ? 'Simulating…' : '▶ Simulate'}
      </button>
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
      {cell.output?.status === 'error' && <ExperimentError title="Simulation failed" message={cell.output.error.message} testId="simulation-error" />}
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
  const table = useMemo(
    () => rankingTable(['rank', 'candidate', 'before', 'after', 'delta'], result.candidates.map((row) => [row.rank, row.candidate, row.before, row.after, row.delta]), result.elapsedMs),
    [result],
  );
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
      <DeltaChart bars={result.candidates.map((row) => ({ candidate: row.candidate, delta: row.delta, tied: result.tied.includes(row.candidate) }))} label="Effect of each candidate" />
      <p className="muted small-print">{result.candidateSet}</p>
      <Notes notes={result.notes} />
      <ResultGrid result={table} fileName={`simulation-${result.spec.scenario}`} />
    </div>
  );
}

function parseSpec(raw: Record<string, unknown>): SimulationSpec | null {
  const parsed = simulationSpecSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

function fieldOf(spec: Record<string, unknown>, field: 'country' | 'home' | 'goods'): string {
  const value = spec[field];
  return typeof value === 'string' ? value : '';
}
