import { useMemo, useState, type KeyboardEvent } from 'react';
import { Bar, BarChart, CartesianGrid, ErrorBar, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { reviewKeyOf, type Cell, type QueryResult } from '../../src-main/contract';
import {
  dellmaLikelihoods,
  dellmaStepSchemas,
  exactNotComparedReason,
  forecastLines,
  type DellmaAudit,
  type DellmaContext,
  type DellmaExact,
  type DellmaExpected,
  type DellmaFit,
  type DellmaForecast,
  type DellmaFrame,
  type DellmaRank,
  type DellmaSampling,
  type DellmaStep,
} from '../../src-main/contract/dellma';
import { documentLimits } from '../../src-main/contract/documents';
import { useWorkbench } from '../ui/store-context';
import { ResultGrid } from '../grid/ResultGrid';
import { formatNumber } from './format-number';

/** Weights of the paper's verbal scale (very likely 6 … very unlikely 1), normalised per factor. */
const weights: Record<(typeof dellmaLikelihoods)[number], number> = { 'very likely': 6, likely: 5, 'somewhat likely': 4, 'somewhat unlikely': 3, unlikely: 2, 'very unlikely': 1 };

const titles: Record<DellmaStep, string> = {
  frame: 'DeLLMa · decision frame',
  context: 'DeLLMa · context for the forecast and the rankings',
  forecast: 'DeLLMa · factors and forecast',
  sampling: 'DeLLMa · sampled futures',
  rank: 'DeLLMa · ranking',
  fit: 'DeLLMa · Bradley–Terry fit and utilities',
  expected: 'DeLLMa · expected utility and decision',
  exact: 'DeLLMa · exact outcomes in the what-if sandbox [ext]',
  audit: 'DeLLMa · utilities against the simulator [ext]',
};

/** The step a DeLLMa observation cell records, read from its typed input; null when it is none or does not parse. */
export function dellmaStepOf(cell: Cell): { step: DellmaStep; input: unknown } | null {
  if (cell.kind !== 'observation') return null;
  const tool = cell.data.tool;
  if (!tool?.startsWith('dellma.')) return null;
  const step = tool.slice('dellma.'.length) as DellmaStep;
  const schema = (dellmaStepSchemas as Record<string, (typeof dellmaStepSchemas)[DellmaStep] | undefined>)[step];
  const parsed = schema?.safeParse((cell.data as { input?: unknown }).input);
  return parsed?.success ? { step, input: parsed.data } : null;
}

/** One DeLLMa step, drawn from its typed record (contract/dellma.ts). */
export function DellmaStepView({ cell, step, input }: { cell: Cell; step: DellmaStep; input: unknown }) {
  return (
    <div className={`dellma dellma-${step}`} data-testid={`dellma-${step}`}>
      <p className="dellma-title">
        {step === 'rank' ? `${titles.rank} · batch ${(input as DellmaRank).batch}${(input as DellmaRank).rankedBy === 'analyst' ? ' · ranked by the analyst' : ''}` : titles[step]}
        {(input as { refit?: unknown }).refit ? " · the analyst's re-fit [ext]" : ''}
      </p>
      {refitOf(input) !== null && <RefitNote cell={cell} step={step} batch={refitOf(input) ?? 0} />}
      {step === 'frame' && <FrameView frame={input as DellmaFrame} />}
      {step === 'context' && <ContextView context={input as DellmaContext} />}
      {step === 'forecast' && <ForecastView cell={cell} forecast={input as DellmaForecast} />}
      {step === 'sampling' && <SamplingView sampling={input as DellmaSampling} />}
      {step === 'rank' && <RankView cell={cell} rank={input as DellmaRank} />}
      {step === 'fit' && <FitView fit={input as DellmaFit} />}
      {step === 'expected' && <ExpectedView expected={input as DellmaExpected} />}
      {step === 'exact' && <ExactView exact={input as DellmaExact} />}
      {step === 'audit' && <AuditView audit={input as DellmaAudit} />}
    </div>
  );
}

function table(columns: string[], rows: (string | number | null)[][]): QueryResult {
  return { columns: columns.map((name) => ({ name, type: typeof rows[0]?.[columns.indexOf(name)] === 'number' ? 'REAL' : 'TEXT' })), rows, rowCount: rows.length, truncated: false, elapsedMs: 0 };
}

function FrameView({ frame }: { frame: DellmaFrame }) {
  const source = { question: 'listed in the question', query: 'listed by a query', simulator: "the simulator's candidates (names only; their outcomes stay hidden)" }[frame.source];
  return (
    <>
      <p>
        <strong>Options</strong> ({source}): {frame.actions.join(', ')}
      </p>
      {frame.pruned.length > 0 && (
        <p className="muted">
          Shortlisted to {frame.maxActions} by the model; left out: {frame.pruned.join(', ')}
        </p>
      )}
      {frame.note && <p className="warning">{frame.note}</p>}
      {frame.optionFactors === false ? (
        <p className="muted">Only the unknowns the question lists are forecast (extension “a factor per option” off); one query the model writes gives the context.</p>
      ) : (
        <p className="muted" data-extension="dellma-option-factors">
          [ext] DeLLMa on a database (extension “a factor per option”, on): each option gets a factor of its own, “how &lt;option&gt; turns out”, beside any unknowns the question lists, and one query the model writes gives the context.
        </p>
      )}
    </>
  );
}

/** What the forecast and every ranking read: the attached documents (each whole or cut to its share of the budget) and the query's rows. */
function ContextView({ context }: { context: DellmaContext }) {
  const used = context.documents.reduce((sum, document) => sum + document.usedChars, 0);
  const cut = context.documents.filter((document) => document.truncated).length;
  return (
    <>
      <p data-testid="context-summary">
        {context.chars.toLocaleString('en-US')} characters in all: {context.documents.length} attached document{context.documents.length === 1 ? '' : 's'} ({used.toLocaleString('en-US')} of at most {documentLimits.contextChars.toLocaleString('en-US')} characters
        {cut > 0 ? `; ${cut} cut to fit, marked so in the prompt` : '; each whole'}) and {context.dataChars > 0 ? `${context.dataChars.toLocaleString('en-US')} characters of query rows` : 'no query rows (none could be retrieved)'}.
      </p>
      <ResultGrid
        result={table(
          ['document', 'characters used', 'of', 'truncated'],
          context.documents.map((document) => [document.name, document.usedChars, document.chars, document.truncated ? 'yes' : 'no']),
        )}
        fileName="dellma-context-documents"
      />
    </>
  );
}

/**
 * The forecast as a table of factors, values, verbal likelihoods and probabilities. While the
 * run waits at this forecast (step-through), the likelihoods are editable and the
 * probabilities follow at once; "Continue with this forecast" sends the edit, and everything
 * after is sampled and ranked from it.
 */
function ForecastView({ cell, forecast }: { cell: Cell; forecast: DellmaForecast }) {
  const runId = cell.provenance.runId ?? '';
  const pending = useWorkbench((state) => state.runs[runId]?.pendingReview ?? null);
  const reviewRun = useWorkbench((state) => state.reviewRun);
  const reportError = useWorkbench((state) => state.reportError);
  const editable = forecast.source === 'model' && pending?.subject === 'forecast';
  const [likelihoods, setLikelihoods] = useState(() => forecast.factors.map((factor) => factor.values.map((entry) => entry.likelihood)));
  const [sent, setSent] = useState(false);
  const edited = useMemo(
    () => ({
      factors: forecast.factors.map((factor, f) => {
        const chosen = factor.values.map((entry, v) => likelihoods[f]?.[v] ?? entry.likelihood);
        const total = chosen.reduce((sum, label) => sum + weights[label], 0);
        return { ...factor, values: factor.values.map((entry, v) => ({ ...entry, likelihood: chosen[v] ?? entry.likelihood, probability: weights[chosen[v] ?? entry.likelihood] / total })) };
      }),
    }),
    [forecast, likelihoods],
  );
  const changed = edited.factors.some((factor, f) => factor.values.some((entry, v) => entry.likelihood !== forecast.factors[f]?.values[v]?.likelihood));
  const send = (): void => {
    if (!pending) return;
    setSent(true);
    // Answered by the forecast review's key: the edit can only answer the review it was made for.
    void reviewRun({ runId, key: reviewKeyOf(pending) }, changed ? { action: 'edit', steps: forecastLines(edited) } : { action: 'approve' }).catch((error: unknown) => {
      setSent(false);
      reportError(error, 'Could not answer the run');
    });
  };
  return (
    <>
      <p className="muted">
        {forecast.source === 'model' ? "The model's forecast" : "The analyst's forecast, used from here on"}
        {forecast.reused ? ` (reused without a model call: made by ${forecast.reused.runId ?? 'an earlier run'} at ${forecast.reused.savedAt} for the same context)` : ''} · likelihoods on the paper's six-level scale, normalised per factor; factors independent.
      </p>
      {forecast.factors.some((factor) => factor.mapped) && (
        <p className="muted" data-testid="forecast-mapped">
          [ext] The values of {forecast.factors.filter((factor) => factor.mapped).map((factor) => `“${factor.name}”`).join(', ')} are the analyst&apos;s, each mapped to a what-if change; the model gave only their likelihoods.
        </p>
      )}
      {forecast.documents && forecast.documents.length > 0 && (
        <p className="muted" data-testid="forecast-documents">
          Context included the attached document(s):{' '}
          {forecast.documents.map((document) => `${document.name} (${document.truncated ? `${document.usedChars.toLocaleString('en-US')} of ${document.chars.toLocaleString('en-US')} characters, truncated` : `${document.chars.toLocaleString('en-US')} characters`})`).join('; ')}
        </p>
      )}
      <table className="dellma-table" data-testid="forecast-table">
        <thead>
          <tr>
            <th>Factor</th>
            <th>Value</th>
            <th>Likelihood</th>
            <th>Probability</th>
          </tr>
        </thead>
        <tbody>
          {edited.factors.flatMap((factor, f) =>
            factor.values.map((entry, v) => (
              <tr key={`${f}-${v}`}>
                {v === 0 && <td rowSpan={factor.values.length}>{factor.name}</td>}
                <td>{entry.value}</td>
                <td>
                  {editable && !sent ? (
                    <select
                      aria-label={`Likelihood of ${factor.name}: ${entry.value}`}
                      value={entry.likelihood}
                      onChange={(event) => setLikelihoods(likelihoods.map((row, rf) => (rf === f ? row.map((label, rv) => (rv === v ? (event.target.value as typeof label) : label)) : row)))}
                    >
                      {dellmaLikelihoods.map((label) => (
                        <option key={label} value={label}>
                          {label}
                        </option>
                      ))}
                    </select>
                  ) : (
                    entry.likelihood
                  )}
                </td>
                <td className="number" data-testid="forecast-probability">
                  {entry.probability.toFixed(3)}
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>
      {editable && (
        <div className="review-actions">
          <button className="primary" data-testid="forecast-continue" disabled={sent} onClick={send}>
            {changed ? 'Continue with my forecast' : 'Continue with this forecast'}
          </button>
          <span className="muted">The run waits here: change any likelihood, and the sampling, rankings, fit and decision are computed from your version.</span>
        </div>
      )}
    </>
  );
}

function SamplingView({ sampling }: { sampling: DellmaSampling }) {
  return (
    <>
      {sampling.variant === 'naive' ? (
        <p>
          DeLLMa-Naive, seed {sampling.seed}: {sampling.items} scenarios, each a future of its own drawn from the forecast with an option drawn at random, ranked in one call.
        </p>
      ) : (
        <p>
          {sampling.variant === 'top1' ? 'DeLLMa-Top-1' : 'DeLLMa-Pairs'}, seed {sampling.seed}: {sampling.states} futures drawn from the forecast, each paired with every option → {sampling.items} scenarios; batches of {sampling.batch} with overlap {sampling.overlap} (stride {Math.floor(sampling.batch * (1 - sampling.overlap) + 1e-9)}).
        </p>
      )}
      <p className="muted">
        Estimated cost: {sampling.cost.calls} ranking call(s), about {formatNumber(sampling.cost.promptTokens)} prompt and {formatNumber(sampling.cost.completionTokens)} answer tokens.
      </p>
      <p className="muted">Batches: {sampling.windows.map((window) => `${window.start + 1}–${window.start + window.size}`).join(', ')}</p>
      {sampling.futures && <ResultGrid result={table(['future', 'state', 'probability'], sampling.futures.map((future, index) => [index + 1, future.state, future.probability]))} fileName="dellma-futures" />}
    </>
  );
}

function RankView({ cell, rank }: { cell: Cell; rank: DellmaRank }) {
  const placeOf = new Map((rank.order ?? []).map((number, index) => [number, index + 1]));
  const rows = [...rank.items].sort((a, b) => (placeOf.get(a.number) ?? 1e9) - (placeOf.get(b.number) ?? 1e9)).map((item) => [placeOf.get(item.number) ?? null, item.number, item.action, item.state]);
  const repairs = rank.repairs ? [...rank.repairs.missing.map((n) => `${n} appended`), ...rank.repairs.duplicates.map((n) => `${n} repeated (dropped)`), ...rank.repairs.outOfRange.map((n) => `${n} out of range (dropped)`)] : [];
  return (
    <>
      {rank.rankedBy === 'analyst' ? (
        <p data-testid="dellma-analyst-ranking">
          The analyst ranked this batch by hand: these {rank.comparisons} comparisons enter the fit instead of the model&apos;s (model, best first: {rank.modelOrder?.join(', ') ?? 'no usable ranking'}).
        </p>
      ) : rank.order ? <p>{rank.explanation}</p> : <p className="warning">No usable ranking after {rank.attempts} answer(s): this batch adds no comparisons.</p>}
      <p className="muted">
        {rank.comparisons} comparisons{repairs.length ? ` · repaired: ${repairs.join(', ')}` : ' · no repairs'}
      </p>
      <ResultGrid result={table(['place', 'scenario', 'option', 'future'], rows)} fileName={`dellma-batch-${rank.batch}`} />
      {!rank.refit && <RankYourself cell={cell} rank={rank} />}
    </>
  );
}

const refitOf = (input: unknown): number | null => {
  const refit = (input as { refit?: { batch?: unknown } }).refit;
  return typeof refit?.batch === 'number' ? refit.batch : null;
};

/** [ext] On each cell of an analyst's re-fit: what it is, and (on its decision) the way to remove it. */
function RefitNote({ cell, step, batch }: { cell: Cell; step: DellmaStep; batch: number }) {
  const withdraw = useWorkbench((state) => state.withdrawDellmaRefit);
  const reportError = useWorkbench((state) => state.reportError);
  const [busy, setBusy] = useState(false);
  const runId = cell.provenance.runId ?? '';
  const node = cell.provenance.node ?? '';
  return (
    <div className="dellma-refit-note" data-testid="dellma-refit-note">
      <p className="muted">
        [ext] The analyst&apos;s re-fit: batch {batch} ranked by hand after the run; the fit, expected utilities, sensitivity and decision are computed again from the run&apos;s recorded batches with this ranking in its place (no model call). The run&apos;s own cells stay as they were.
      </p>
      {step === 'expected' && (
        <button
          className="ghost small"
          data-testid="withdraw-refit"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            withdraw(runId, node)
              .catch((error: unknown) => reportError(error, 'Could not remove the re-fit'))
              .finally(() => setBusy(false));
          }}
        >
          Remove this re-fit
        </button>
      )}
    </div>
  );
}

/**
 * [ext] After a DeLLMa run has finished, any batch can be ranked by hand: the scenarios in a
 * list to reorder (each row's ↑/↓ buttons, or Alt+↑/↓ on a focused row), sent as the same
 * `number | option | future` lines the step-through review uses.
 */
function RankYourself({ cell, rank }: { cell: Cell; rank: DellmaRank }) {
  const runId = cell.provenance.runId ?? '';
  const running = useWorkbench((state) => state.runs[runId]?.status === 'running');
  const fitted = useWorkbench((state) => state.cells.some((other) => other.provenance.runId === runId && other.kind === 'observation' && other.data.tool === 'dellma.fit'));
  const rankBatch = useWorkbench((state) => state.rankDellmaBatch);
  const reportError = useWorkbench((state) => state.reportError);
  const [order, setOrder] = useState<number[] | null>(null);
  const [busy, setBusy] = useState(false);
  if (running || !fitted || !runId) return null;
  const byNumber = new Map(rank.items.map((item) => [item.number, item]));
  const line = (number: number): string => `${number} | ${byNumber.get(number)?.action ?? '?'} | ${byNumber.get(number)?.state ?? '?'}`;
  if (!order) {
    return (
      <button className="ghost small" data-testid="rank-batch-yourself" onClick={() => setOrder(rank.order ?? rank.items.map((item) => item.number))}>
        Rank this batch yourself [ext]
      </button>
    );
  }
  const move = (index: number, by: -1 | 1): void => {
    const target = index + by;
    if (target < 0 || target >= order.length) return;
    const next = [...order];
    [next[index], next[target]] = [next[target] as number, next[index] as number];
    setOrder(next);
  };
  const onKey = (event: KeyboardEvent<HTMLLIElement>, index: number): void => {
    if (!event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return;
    event.preventDefault();
    const by = event.key === 'ArrowUp' ? -1 : 1;
    move(index, by);
    // The moved row keeps the focus, so a scenario can be carried several places.
    const list = event.currentTarget.parentElement;
    requestAnimationFrame(() => (list?.children[index + by] as HTMLElement | undefined)?.focus());
  };
  const submit = (): void => {
    setBusy(true);
    rankBatch(runId, rank.batch, order.map(line))
      .then(() => setOrder(null))
      .catch((error: unknown) => reportError(error, 'Could not re-fit with your ranking'))
      .finally(() => setBusy(false));
  };
  return (
    <div className="dellma-rank-yourself" data-testid="rank-yourself">
      <p className="muted">Best first. Move a scenario with its buttons, or focus it and press Alt+↑ / Alt+↓. The re-fit replaces this batch&apos;s comparisons with yours and recomputes the fit and the decision in code; the run&apos;s cells stay.</p>
      <ol aria-label={`Your ranking of batch ${rank.batch}, best first`}>
        {order.map((number, index) => (
          <li key={number} tabIndex={0} data-testid="rank-yourself-item" aria-label={`Place ${index + 1}: ${line(number)}`} onKeyDown={(event) => onKey(event, index)}>
            <span className="place">{index + 1}.</span>
            <span className="line">{line(number)}</span>
            <button className="icon" aria-label={`Move scenario ${number} up`} disabled={index === 0} onClick={() => move(index, -1)}>
              ↑
            </button>
            <button className="icon" aria-label={`Move scenario ${number} down`} disabled={index === order.length - 1} onClick={() => move(index, 1)}>
              ↓
            </button>
          </li>
        ))}
      </ol>
      <div className="review-actions">
        <button className="primary" data-testid="refit-submit" disabled={busy} onClick={submit}>
          Re-fit with my ranking
        </button>
        <button className="ghost" disabled={busy} onClick={() => setOrder(null)}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function FitView({ fit }: { fit: DellmaFit }) {
  const byAction = useMemo(() => {
    const groups = new Map<string, number[]>();
    for (const item of fit.items) groups.set(item.action, [...(groups.get(item.action) ?? []), item.utility]);
    return [...groups].map(([action, values]) => ({ action, mean: values.reduce((sum, value) => sum + value, 0) / values.length, max: Math.max(...values) }));
  }, [fit]);
  return (
    <>
      <p>
        ILSR over {fit.comparisons} {fit.kind === 'pairs' ? 'pairwise comparisons' : 'top-1 choices'}, alpha {fit.alpha}, {fit.iterations} iterations{fit.converged ? '' : ' (not converged)'}; the comparison graph has {fit.components} component(s). Utilities are softmax(θ / {fit.temperature}) over all {fit.items.length} scenarios together.
      </p>
      {fit.rankAgreement !== null && (
        <p className="muted">
          [ext] Kendall τ between the rankings and the fitted utilities, pooled over the batches: {fit.rankAgreement.toFixed(3)}
          {fit.batchAgreement ? ` (per batch: ${fit.batchAgreement.map((tau) => (tau === null ? 'n/a' : tau.toFixed(3))).join(', ')})` : ''}
        </p>
      )}
      <div role="figure" aria-label="Utility per scenario, by option" data-testid="fit-chart">
        <ResponsiveContainer width="100%" height={180}>
          <BarChart data={byAction} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="action" tick={{ fontSize: 11 }} />
            <YAxis tick={{ fontSize: 11 }} tickFormatter={formatNumber} width={72} />
            <Tooltip formatter={(value) => formatNumber(Number(value))} />
            <Bar dataKey="mean" name="mean utility" fill="#7fa2ff" isAnimationActive={false} />
            <Bar dataKey="max" name="largest utility" fill="#b9c9ff" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <ResultGrid result={table(['scenario', 'option', 'future', 'theta', 'utility'], fit.items.map((item) => [item.position + 1, item.action, item.state, item.theta, item.utility]))} fileName="dellma-fit" />
    </>
  );
}

function ExpectedView({ expected }: { expected: DellmaExpected }) {
  const data = expected.rows.map((row) => ({
    action: row.action,
    expected: row.expected ?? 0,
    error: row.low !== null && row.high !== null && row.expected !== null ? [row.expected - row.low, row.high - row.expected] : [0, 0],
  }));
  return (
    <>
      <p className="decision-value" data-testid="dellma-decision">
        {expected.chosen ?? `No decision: ${expected.note ?? ''}`}
      </p>
      {expected.margin !== null && (
        <p>
          Ahead of {expected.runnerUp ?? '?'} by {formatNumber(expected.margin)} in expected utility (the mean utility of the option&apos;s sampled futures).
        </p>
      )}
      <p data-testid="expected-values">
        Expected utility: {expected.rows.map((row) => `${row.action} ${row.expected === null ? 'n/a' : formatNumber(row.expected)}`).join(' · ')}
      </p>
      <div role="figure" aria-label="Expected utility per option with bootstrap intervals" data-testid="expected-chart" className="expected-chart">
        <ResponsiveContainer width="100%" height={200}>
          <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="action" tick={{ fontSize: 11 }} />
            <YAxis tick={{ fontSize: 11 }} tickFormatter={formatNumber} width={72} />
            <Tooltip formatter={(value) => formatNumber(Number(value))} />
            <Bar dataKey="expected" name="expected utility" fill="#2f8a55" isAnimationActive={false}>
              {/* Stroked in the theme's text colour by styles.css (.expected-chart), so it shows in light and dark. */}
              <ErrorBar dataKey="error" width={6} isAnimationActive={false} />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
      <ResultGrid
        result={table(['option', 'expected utility', '[ext] 95% low', '[ext] 95% high'], expected.rows.map((row) => [row.action, row.expected, row.low, row.high]))}
        fileName="dellma-expected-utility"
      />
      <p className="muted">[ext] Bootstrap over the sampled futures: the same decision in {(100 * expected.stability).toFixed(0)}% of resamples.</p>
      <div data-testid="dellma-sensitivity">
        <p>
          <strong>[ext] Sensitivity</strong> — forecast moves that would flip the decision (re-weighting the same rankings, no new calls):
        </p>
        {expected.sensitivity.length === 0 ? (
          <p className="muted">No single forecast move flips it.</p>
        ) : (
          <ul>
            {expected.sensitivity.slice(0, 5).map((flip) => (
              <li key={`${flip.factor}-${flip.value}`}>
                “{flip.factor}” = “{flip.value}” from p={flip.from.toFixed(2)} to {flip.to.toFixed(2)} makes {flip.newDecision} the decision
              </li>
            ))}
          </ul>
        )}
      </div>
    </>
  );
}

function AuditView({ audit }: { audit: DellmaAudit }) {
  return (
    <>
      <p>
        [ext] Kendall τ-b between the expected utilities and the simulator&apos;s {audit.objective}: <strong data-testid="dellma-tau">{audit.tau === null ? 'n/a' : audit.tau.toFixed(3)}</strong> (1: the same order; −1: reversed). The model&apos;s pairwise preferences between scenarios of different options agree with it in{' '}
        <strong data-testid="dellma-pair-agreement">{audit.pairAgreement === null ? 'n/a' : `${(100 * audit.pairAgreement).toFixed(1)}%`}</strong> of {audit.comparedPairs} pairs. Computed after the decision; the model never saw these outcomes.
      </p>
      <ResultGrid result={table(['option', 'expected utility', audit.objective], audit.rows.map((row) => [row.action, row.expected, row.outcome]))} fileName="dellma-audit" />
    </>
  );
}

/**
 * [ext] The sampled futures × options computed exactly in the what-if sandbox, beside (never
 * inside) the elicited utilities: its own cell, its own numbers, and whether it agrees.
 */
function ExactView({ exact }: { exact: DellmaExact }) {
  const verdict = exact.agrees === null ? `; not compared with DeLLMa's decision (${exactNotComparedReason(exact)})` : `, which ${exact.agrees ? 'agrees' : 'disagrees'} with DeLLMa's decision (${exact.decision ?? 'none'})`;
  const tie = exact.tiedBest.length > 1 ? ` (tied: ${exact.tiedBest.join(', ')})` : '';
  return (
    <>
      <p className="muted">
        Computed by applying the question&apos;s what-if changes to a copy of the data, each future × option in a transaction that is rolled back; the source is never written. These outcomes did not enter the fit, the expected utilities or the decision above. A future here is the sampled values of the question&apos;s unknowns; the per-option factors (“how … turns out”, the model&apos;s own uncertainty about the outcome) are what the computation replaces.
      </p>
      {exact.error ? (
        <p className="warning" data-testid="exact-error">
          Not computed: {exact.error}
        </p>
      ) : (
        <p data-testid="exact-verdict">
          Exactly-computed best by the probability-weighted expected {exact.direction === 'minimize' ? 'objective (smaller is better)' : 'objective'}: <strong>{exact.exactBest ?? 'none'}</strong>
          {tie}
          {verdict}.
        </p>
      )}
      {exact.capped && (
        <p className="warning" data-testid="exact-capped">
          {exact.capped}
        </p>
      )}
      <ResultGrid
        result={table(['option', 'expected objective', 'covers p', 'futures computed'], exact.rows.map((row) => [row.action, row.expected, row.coverage, row.computed]))}
        fileName="dellma-exact-expected"
      />
      <ResultGrid
        result={table(
          ['future', 'p', 'draws', 'option', 'objective', 'status'],
          exact.scenarios.map((scenario) => [scenario.future, scenario.probability, scenario.draws, scenario.action, scenario.objective, scenario.reason ? `${scenario.status}: ${scenario.reason}` : scenario.status]),
        )}
        fileName="dellma-exact-scenarios"
      />
      <details>
        <summary>The mapping and the sandbox</summary>
        <p className="muted">Objective: {exact.objective}</p>
        <ul>
          {exact.mapped.flatMap((factor) =>
            factor.values.map((entry) => (
              <li key={`${factor.factor}-${entry.value}`}>
                {factor.factor} = {entry.value}: {entry.change ?? 'no change'}
              </li>
            )),
          )}
          {exact.options.map((option) => (
            <li key={`option-${option.action}`}>
              option {option.action}: {option.mapped ? (option.change ?? 'no change') : 'not mapped'}
            </li>
          ))}
        </ul>
        <p className="muted">
          {exact.evaluations} of at most {exact.maxEvaluations} sandbox evaluations
          {exact.baseline === null ? '' : `; objective on the data as it is: ${formatNumber(exact.baseline)}`}
          {exact.sourceDigestBefore ? `; source ${exact.sourceDigestBefore === exact.sourceDigestAfter ? 'unchanged' : 'CHANGED'} (${exact.sourceDigestBefore.slice(0, 19)}…)` : ''}
          {exact.isolation ? `; ${exact.isolation === 'process' ? 'in a worker process' : 'in process'}` : ''}.
        </p>
      </details>
    </>
  );
}
