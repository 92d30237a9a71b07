import { useCallback, useEffect, useState } from 'react';
import { deciderRowLabel, type BenchmarkSummary, type ResultsTable, type TechniqueIdValue, type TechniqueInfo, type WorkbenchClient } from '../../src-main/contract';
import type { DellmaRunSettingsInput } from '../../src-main/contract/dellma';
import { useWorkbench } from '../ui/store-context';
import { DellmaSettings } from '../runs/DellmaSettings';
import { FidelitySetting, type FidelityChoice } from '../runs/FidelitySetting';
import { BenchmarkCharts } from './BenchmarkCharts';
import { dellmaSizeProblem } from '../runs/request-problem';

const dbOptions = [
  { id: 'rdb', label: 'Relational (SQLite)' },
  { id: 'gdb', label: 'Graph (LadybugDB)' },
] as const;

const categories = ['CAN', 'MIS', 'DEEP', 'QUR', 'OTH', 'unlabelled'] as const;

function percent(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`;
}

function toggle<T>(list: readonly T[], item: T, on: boolean): T[] {
  return on ? [...list.filter((value) => value !== item), item] : list.filter((value) => value !== item);
}

/**
 * Technique benchmarks: start techniques × database kinds over a DQA questions file on the
 * configured model (DeLLMa with the variant and sizes chosen here), watch them, stop and
 * resume, read the table and charts, and open any question's run as a notebook.
 */
export function BenchmarksView({ client, onOpenNotebook }: { client: WorkbenchClient; onOpenNotebook: (notebookId: string) => void }) {
  const model = useWorkbench((state) => state.model);
  const reportError = useWorkbench((state) => state.reportError);
  const [benchmarks, setBenchmarks] = useState<BenchmarkSummary[]>([]);
  // From the technique registry: a technique added there shows here.
  const [techniqueOptions, setTechniqueOptions] = useState<TechniqueInfo[]>([]);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [table, setTable] = useState<ResultsTable | null>(null);
  const [questionsFile, setQuestionsFile] = useState('');
  const [techniques, setTechniques] = useState<TechniqueIdValue[]>(['planrag']);
  const [dbs, setDbs] = useState<('rdb' | 'gdb')[]>(['rdb']);
  const [concurrency, setConcurrency] = useState(2);
  const [maxSteps, setMaxSteps] = useState(20);
  // DeLLMa's variant and sizes, as `dwb dqa solve --engine dellma --variant … --samples … --batch … --overlap …`.
  const [dellma, setDellma] = useState<DellmaRunSettingsInput>({});
  // A benchmark measures the techniques as their papers ran them unless the analyst chooses the product.
  const [fidelity, setFidelity] = useState<FidelityChoice>({ fidelity: 'paper', temperature: undefined, temperatureValid: true });
  const [starting, setStarting] = useState(false);

  const loadTable = useCallback(
    (id: string) => {
      void client
        .invoke('benchmarks/results', { id })
        .then(setTable)
        .catch((error: unknown) => reportError(error, 'Could not read the results'));
    },
    [client, reportError],
  );

  useEffect(() => {
    void client
      .invoke('runs/techniques', {})
      .then(setTechniqueOptions)
      .catch((error: unknown) => reportError(error, 'Could not list the techniques'));
    void client
      .invoke('benchmarks/list', {})
      .then((list) => {
        setBenchmarks(list);
        setSelectedId((current) => current ?? list[0]?.id ?? null);
      })
      .catch((error: unknown) => reportError(error, 'Could not list the benchmarks'));
    return client.on('benchmark-progress', (summary) => {
      setBenchmarks((list) => (list.some((item) => item.id === summary.id) ? list.map((item) => (item.id === summary.id ? summary : item)) : [summary, ...list]));
    });
  }, [client, reportError]);

  const selected = benchmarks.find((benchmark) => benchmark.id === selectedId) ?? null;
  const selectedDone = selected?.progress.done ?? 0;
  const selectedStatus = selected?.status;
  useEffect(() => {
    if (selectedId !== null) loadTable(selectedId);
  }, [selectedId, selectedDone, selectedStatus, loadTable]);

  const start = (): void => {
    setStarting(true);
    client
      .invoke('benchmarks/start', {
        questionsFile,
        techniques,
        dbs,
        concurrency,
        maxSteps,
        fidelity: fidelity.fidelity,
        ...(fidelity.temperature !== undefined ? { temperature: fidelity.temperature } : {}),
        // DeLLMa's panel sets its technique options; the service checks them with its schema.
        ...(techniques.includes('dellma') ? { techniqueOptions: { dellma } } : {}),
      })
      .then((summary) => setSelectedId(summary.id))
      // A refused DeLLMa size reads as its reason, without the request's internal field path.
      .catch((error: unknown) => reportError(error instanceof Error ? new Error(dellmaSizeProblem(error.message)) : error, 'Could not start the benchmark'))
      .finally(() => setStarting(false));
  };
  const act = (method: 'benchmarks/stop' | 'benchmarks/resume', id: string): void => {
    void client.invoke(method, { id }).catch((error: unknown) => reportError(error, method === 'benchmarks/stop' ? 'Could not stop the benchmark' : 'Could not resume the benchmark'));
  };
  const label = (result: ResultsTable['questions'][number], category: (typeof categories)[number]): void => {
    if (selectedId === null) return;
    client
      .invoke('benchmarks/label', { id: selectedId, technique: result.technique, db: result.db, questionId: result.id, category })
      .then(() => loadTable(selectedId))
      .catch((error: unknown) => reportError(error, `Could not label ${result.id}`));
  };
  const openQuestion = (result: ResultsTable['questions'][number]): void => {
    if (selectedId === null) return;
    client
      .invoke('benchmarks/open-question', { id: selectedId, technique: result.technique, db: result.db, questionId: result.id })
      .then(({ notebookId }) => onOpenNotebook(notebookId))
      .catch((error: unknown) => reportError(error, `Could not open ${result.id}`));
  };

  return (
    <main className="benchmarks" data-testid="benchmarks-view" aria-label="Benchmarks">
      <h1>Benchmarks</h1>
      <section className="benchmark-form" aria-label="New benchmark">
        <p className="muted" data-testid="benchmark-model">
          {model?.settings ? `Model: ${model.settings.model} at ${model.settings.baseUrl}` : 'No model yet: set one up under Model in the sidebar first.'}
        </p>
        <label>
          Questions file (a DQA questions.json)
          <input aria-label="Questions file" value={questionsFile} placeholder="/path/to/locating/questions.json" onChange={(event) => setQuestionsFile(event.target.value)} />
        </label>
        <fieldset>
          <legend>Techniques</legend>
          {techniqueOptions.map((option) => (
            <label key={option.id} className="inline" title={option.summary}>
              <input type="checkbox" aria-label={option.label} checked={techniques.includes(option.id)} onChange={(event) => setTechniques(toggle(techniques, option.id, event.target.checked))} />
              {option.label}
            </label>
          ))}
        </fieldset>
        {techniques.includes('dellma') && (
          <div data-testid="benchmark-dellma">
            <DellmaSettings question="" rules="" value={dellma} onChange={setDellma} />
            <p className="muted">Every DeLLMa run of the benchmark uses this variant and these sizes; the estimate is per question.</p>
          </div>
        )}
        <fieldset>
          <legend>Databases</legend>
          {dbOptions.map((option) => (
            <label key={option.id} className="inline">
              <input type="checkbox" aria-label={option.label} checked={dbs.includes(option.id)} onChange={(event) => setDbs(toggle(dbs, option.id, event.target.checked))} />
              {option.label}
            </label>
          ))}
        </fieldset>
        <label className="inline">
          Questions at once
          <input type="number" aria-label="Questions at once" min={1} max={16} value={concurrency} onChange={(event) => setConcurrency(Number(event.target.value))} />
        </label>
        <label className="inline">
          Max steps
          <input type="number" aria-label="Max steps" min={1} max={200} value={maxSteps} onChange={(event) => setMaxSteps(Number(event.target.value))} />
        </label>
        <FidelitySetting techniques={techniqueOptions.filter((option) => techniques.includes(option.id))} fidelity={fidelity.fidelity} onChange={setFidelity} />
        <button className="primary" data-testid="start-benchmark" disabled={starting || questionsFile.trim() === '' || techniques.length === 0 || dbs.length === 0 || !fidelity.temperatureValid} onClick={start}>
          Start
        </button>
      </section>

      <section aria-label="Benchmark runs">
        <ul className="benchmark-list" data-testid="benchmark-list">
          {benchmarks.map((benchmark) => (
            <li key={benchmark.id} className={benchmark.id === selectedId ? 'selected' : ''} data-testid="benchmark-item" data-status={benchmark.status}>
              <button className="link" onClick={() => setSelectedId(benchmark.id)}>
                {benchmark.spec.techniques.join(', ')} · {benchmark.spec.dbs.join(', ')} · {benchmark.spec.questionsFile.split(/[\\/]/).slice(-2).join('/')} · {benchmark.spec.fidelity ?? 'product'} fidelity
              </button>
              <span className="benchmark-progress" data-testid="benchmark-progress">
                {benchmark.status}: {benchmark.progress.done}/{benchmark.progress.total} questions · accuracy so far {benchmark.progress.correct}/{benchmark.progress.done} ({percent(benchmark.progress.correct, benchmark.progress.done)}) · {benchmark.progress.tokens} tokens
              </span>
              {benchmark.status === 'running' ? (
                <button className="small" data-testid="stop-benchmark" onClick={() => act('benchmarks/stop', benchmark.id)}>
                  Stop
                </button>
              ) : benchmark.status !== 'finished' ? (
                <button className="small" data-testid="resume-benchmark" onClick={() => act('benchmarks/resume', benchmark.id)}>
                  Resume
                </button>
              ) : null}
              {benchmark.message && <span className="muted"> {benchmark.message}</span>}
            </li>
          ))}
        </ul>
      </section>

      {selected && table && (
        <section aria-label="Results" data-testid="benchmark-results">
          <h2>Results</h2>
          <p className="muted">Right = the exact simulator's best decision; ties counted = one of the candidates tied with it. Files: {selected.directory}</p>
          <table className="benchmark-table" data-testid="results-table">
            <thead>
              <tr>
                <th>Technique</th><th>Scenario</th><th>DB</th><th>Questions</th><th>Accuracy</th><th>Ties counted</th><th>Without flagged</th><th>Mean steps</th><th>Mean prompt tokens</th><th>Mean completion tokens</th><th>Wall time (s)</th><th>Largest prompt</th><th title="Time along the plan's levels when the technique reports it, else the run's wall time (mean)">Critical-path time (s)</th><th title="The playbook version AutoPlan followed">Playbook</th><th title="The row's decisions by the technique that made them: a fallback's are counted apart">Decided by</th>
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row) => (
                <tr key={`${row.technique}-${row.variant ?? ''}-${row.scenario}-${row.db}`}>
                  <td>
                    {row.technique}
                    {row.variant !== undefined && <span className="muted"> ({row.variant})</span>}
                  </td><td>{row.scenario}</td><td>{row.db}</td><td>{row.questions}</td>
                  <td>{row.correct}/{row.questions} ({percent(row.correct, row.questions)})</td>
                  <td>{row.correctWithTies}/{row.questions} ({percent(row.correctWithTies, row.questions)})</td>
                  <td>{row.clearCorrect}/{row.questions - row.flagged}</td>
                  <td>{row.meanSteps.toFixed(1)}</td><td>{row.meanPromptTokens.toFixed(0)}</td><td>{row.meanCompletionTokens.toFixed(0)}</td><td>{(row.wallMs / 1000).toFixed(1)}</td><td>{row.largestPromptTokens}</td><td>{(row.meanCriticalPathMs / 1000).toFixed(1)}</td>
                  <td className="mono" title={row.playbooks?.join(', ')}>{row.playbooks && row.playbooks.length > 0 ? row.playbooks.map((hash) => hash.replace(/^sha256:/, '').slice(0, 12)).join(', ') : '–'}</td>
                  <td data-testid="row-deciders">{decidersText(row)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Produced by</h2>
          {table.rows.map((row) => (
            <details key={`${row.technique}-${row.variant ?? ''}-${row.scenario}-${row.db}`} className="produced-by" data-testid="produced-by" open={table.rows.length === 1}>
              <summary>
                {row.technique}
                {row.variant !== undefined ? ` (${row.variant})` : ''} · {row.scenario} · {row.db}: {row.models?.join(', ') || 'model not recorded'}
              </summary>
              <table className="benchmark-table">
                <tbody>
                  {(row.producedBy ?? [{ label: 'Produced by', value: 'not recorded (results from before it was kept)' }]).map((line) => (
                    <tr key={line.label}>
                      <th scope="row">{line.label}</th>
                      <td>{line.value}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </details>
          ))}
          <BenchmarkCharts table={table} />
          <h2>Questions</h2>
          <table className="benchmark-table" data-testid="question-table">
            <thead>
              <tr>
                <th>Question</th><th>Technique</th><th>DB</th><th>Decision</th><th>Simulator best</th><th>Right</th><th>Flags</th><th>Ended</th><th>Category</th><th>Evidence</th><th>Decided by</th><th><span className="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {table.questions.map((result) => (
                <tr key={`${result.technique}-${result.db}-${result.id}`} data-testid="question-row" data-question={result.id}>
                  <td>{result.id}</td><td>{result.technique}{result.variant !== undefined && <span className="muted"> ({result.variant})</span>}</td><td>{result.db}</td>
                  <td>{result.match.matched ?? result.match.raw ?? 'no decision'}</td>
                  <td>{result.simulator?.best ?? '–'}</td>
                  <td>{result.correct ? 'yes' : result.correctWithTies ? 'tied' : 'no'}</td>
                  <td>{result.flags.join(', ')}</td>
                  <td>{result.status ?? 'not started'}</td>
                  <td>
                    {result.failure.category === null ? (
                      '–'
                    ) : (
                      <select
                        aria-label={`Category of ${result.id}`}
                        value={result.failure.category}
                        disabled={selected.status === 'running'}
                        title={result.failure.automatic ? 'Set from the run log and the simulator' : 'Set by the analyst, or left open'}
                        onChange={(event) => label(result, event.target.value as (typeof categories)[number])}
                      >
                        {categories.map((category) => (
                          <option key={category} value={category}>
                            {category}
                          </option>
                        ))}
                      </select>
                    )}
                  </td>
                  <td className="evidence">{result.failure.evidence.join('\n')}</td>
                  <td data-testid="question-decider">{questionDecider(result)}</td>
                  <td>
                    {result.error === null && (
                      <button className="small" data-testid="open-question" onClick={() => openQuestion(result)}>
                        Open
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </main>
  );
}

/** A row's decisions by who made them ("Pearl 2 · PlanRAG as Pearl's fallback 6"), with the tool-assisted ones counted. */
function decidersText(row: ResultsTable['rows'][number]): string {
  const deciders = (row.deciders ?? []).map((decider) => `${decider.label} ${decider.questions}`);
  if (row.toolAssisted) deciders.push(`${row.toolAssisted} tool-assisted`);
  return deciders.length ? deciders.join(' · ') : '–';
}

/** Who decided a question: the technique, or the fallback that did ("PlanRAG as Pearl's fallback"), tool-assisted said as such. */
function questionDecider(result: ResultsTable['questions'][number]): string {
  const origin = result.producedBy?.decidedBy;
  if (result.decidedBy === undefined || !origin) return result.decidedBy ?? '–';
  return deciderRowLabel(origin);
}
