import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Candidate, Cell, SchemaInfo, WhatIfResult } from '../../src-main/contract';
import { WHATIF_DEFAULT_TIMEOUT_MS, candidateParameterFor, candidateText, describeCopiedTables, parseCandidateText, whatIfSpecSchema } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { QueryEditor } from '../editor/QueryEditor';
import { ResultGrid } from '../grid/ResultGrid';
import { CellFrame } from './CellFrame';
import { DeltaChart } from './DeltaChart';
import { DataSelect, ExperimentError, Notes, rankingTable, useExclusiveRun } from './experiment-parts';
import { formatNumber } from './format-number';
import { parseJsonObject } from '../state/json-source';
import { ScrollablePre } from '../ui/ScrollablePre';

/**
 * A what-if cell: on a throwaway copy of the data (a SQLite or DuckDB database, a CSV or
 * Parquet file, or the named tables of a PostgreSQL or MySQL server copied into DuckDB), one
 * change per candidate decision, an objective measured before and after, and the candidates
 * ranked. The result carries the source's digest before and after as proof it is unchanged.
 *
 * The cell's source is the experiment as JSON (the contract's what-if spec), so the analyst's
 * cells, the model's tool calls and `dwb whatif` describe experiments the same way.
 */
export function WhatIfCell({ cell }: { cell: Cell }) {
  const schemaState = useWorkbench((state) => (cell.connectionId ? state.schemas[cell.connectionId] : undefined));
  const focused = useWorkbench((state) => state.focusCellId === cell.id);
  const connections = useWorkbench((state) => state.connections);
  const editCell = useWorkbench((state) => state.editCell);
  const loadSchema = useWorkbench((state) => state.loadSchema);
  const setFocusCell = useWorkbench((state) => state.setFocusCell);
  const whatIfSupport = useWorkbench((state) => state.whatIfSupport);
  const runWhatIfCell = useWorkbench((state) => state.runWhatIfCell);
  const copyCellForEditing = useWorkbench((state) => state.copyCellForEditing);
  const cancelWhatIfCell = useWorkbench((state) => state.cancelWhatIfCell);
  const progress = useWorkbench((state) => state.whatIfRuns[cell.id]);
  const reportError = useWorkbench((state) => state.reportError);
  const [blocker, setBlocker] = useState<string | null>(null);
  /** Where the experiment runs when not on the data itself (a server's tables are copied into DuckDB). */
  const [whereNote, setWhereNote] = useState<string | null>(null);
  const { running, run } = useExclusiveRun(useCallback(() => runWhatIfCell(cell.id), [runWhatIfCell, cell.id]), 'What-if not run');

  const draft = parseJsonObject(cell.source);
  const editable = cell.author === 'analyst';
  const candidateMode: 'list' | 'query' = typeof draft['candidatesQuery'] === 'string' ? 'query' : 'list';
  // The list is edited as text and saved parsed; the text keeps what the analyst typed (commas, spaces).
  const [candidateDraft, setCandidateDraft] = useState(() => candidateText(storedCandidates(draft)));
  const checked = whatIfSpecSchema.safeParse(draft);
  const problem = checked.success ? null : describeIssue(checked.error.issues[0]);

  useEffect(() => {
    if (!cell.connectionId) return;
    void loadSchema(cell.connectionId);
    let current = true;
    whatIfSupport(cell.connectionId)
      .then(({ reason, note }) => {
        if (!current) return;
        setBlocker(reason);
        setWhereNote(note);
      })
      .catch((error: unknown) => current && setBlocker(error instanceof Error ? error.message : String(error)));
    return () => {
      current = false;
    };
  }, [cell.connectionId, loadSchema, whatIfSupport]);

  const save = (fields: Record<string, unknown>): void => {
    const next: Record<string, unknown> = { ...draft, ...fields };
    for (const [key, value] of Object.entries(next)) if (value === undefined) delete next[key];
    editCell(cell.id, { source: JSON.stringify(next, null, 2) });
  };
  const schema = schemaState?.status === 'ready' ? schemaState.schema : undefined;
  const cancel = (): void => void cancelWhatIfCell(cell.id).catch((error: unknown) => reportError(error, 'Cancel failed'));
  const engine = connections.find((connection) => connection.id === cell.connectionId)?.engine;
  /** One of the experiment's SQL texts, edited in its own Monaco editor; Ctrl+Enter runs the experiment. */
  const sqlField = (field: 'change' | 'objective' | 'candidatesQuery', label: string): SqlFieldProps => ({
    testId: `whatif-${field === 'candidatesQuery' ? 'candidates-query' : field}`,
    label,
    value: stringField(draft, field),
    schema,
    onChange: (text) => save({ [field]: text }),
    onRun: run,
    onCancel: cancel,
    onFocus: () => setFocusCell(cell.id),
  });
  const ready = checked.success && cell.connectionId !== null && blocker === null;

  const toolbar = (
    <span className="query-controls">
      {editable ? (
        <DataSelect cell={cell} label="What-if database" />
      ) : (
        <button className="ghost small" data-testid="copy-to-edit" title="Add an editable copy of this experiment below" onClick={() => void copyCellForEditing(cell.id).catch((error: unknown) => reportError(error, 'Copy failed'))}>
          Copy to edit
        </button>
      )}
      {editable && running && (
        <>
          <span className="muted" data-testid="whatif-progress">
            {progress?.done != null && progress.total != null ? `${progress.done.toLocaleString()} of ${progress.total.toLocaleString()} candidates` : 'Copying the data…'}
          </span>
          <button className="danger" data-testid="cancel-whatif" onClick={cancel} title="Stop (Ctrl+.)">
            Cancel
          </button>
        </>
      )}
      {editable && !running && (
        <button className="primary" data-testid="run-whatif" disabled={!ready} onClick={run} title={problem ?? 'Run every candidate on a copy of the data (Ctrl+Enter)'}>
          ▶ Run what-if
        </button>
      )}
    </span>
  );

  return (
    <CellFrame cell={cell} toolbar={toolbar}>
      <div className="whatif-spec">
        {blocker && (
          <p className="warning" data-testid="whatif-blocked">
            {blocker}
          </p>
        )}
        {editable && whereNote && (
          <p className="muted" data-testid="whatif-where">
            {whereNote}
          </p>
        )}
        {editable ? (
          <>
            <FieldLabel title="Change" hint={`one INSERT, UPDATE or DELETE applied for each candidate, which it names as ${candidateParameterFor(engine ?? 'sqlite')}`} />
            <SqlField {...sqlField('change', 'Change')} focused={focused} />
            <FieldLabel title="Objective" hint="a read-only SELECT returning one number, measured before and after the change">
              <select aria-label="Direction" value={draft['direction'] === 'minimize' ? 'minimize' : 'maximize'} onChange={(event) => save({ direction: event.target.value })}>
                <option value="maximize">higher is better</option>
                <option value="minimize">lower is better</option>
              </select>
            </FieldLabel>
            <SqlField {...sqlField('objective', 'Objective')} />
            <FieldLabel title="Candidates" hint={candidateMode === 'list' ? 'comma-separated, or one per line' : 'the first column of a read-only query'}>
              <span className="segmented" role="radiogroup" aria-label="Candidates from">
                <label>
                  <input type="radio" name={`candidates-${cell.id}`} checked={candidateMode === 'list'} onChange={() => save({ candidatesQuery: undefined, candidates: parseCandidateText(candidateDraft) })} />
                  list
                </label>
                <label>
                  <input type="radio" name={`candidates-${cell.id}`} checked={candidateMode === 'query'} onChange={() => save({ candidates: undefined, candidatesQuery: '' })} />
                  query
                </label>
              </span>
              {candidateMode === 'list' && <span className="muted" data-testid="candidate-count">{plural(parseCandidateText(candidateDraft).length, 'candidate')}</span>}
            </FieldLabel>
            {candidateMode === 'list' ? (
              <textarea
                className="candidate-list"
                aria-label="Candidates"
                data-testid="whatif-candidates"
                rows={2}
                value={candidateDraft}
                placeholder="e.g. 3, 7, 12"
                onFocus={() => setFocusCell(cell.id)}
                onChange={(event) => {
                  setCandidateDraft(event.target.value);
                  save({ candidates: parseCandidateText(event.target.value) });
                }}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
                    event.preventDefault();
                    run();
                  } else if (event.key === '.' && (event.ctrlKey || event.metaKey)) {
                    event.preventDefault();
                    cancel();
                  }
                }}
              />
            ) : (
              <SqlField {...sqlField('candidatesQuery', 'Candidates query')} />
            )}
            <div className="spec-fields">
              <label className="setting" title="Give up on a candidate after this many seconds">
                timeout per candidate s
                <input
                  type="number"
                  min={1}
                  max={600}
                  aria-label="Timeout per candidate in seconds"
                  value={Math.round((typeof draft['timeoutMs'] === 'number' ? draft['timeoutMs'] : WHATIF_DEFAULT_TIMEOUT_MS) / 1000)}
                  onChange={(event) => {
                    const seconds = Number(event.target.value);
                    if (Number.isFinite(seconds) && seconds >= 1 && seconds <= 600) save({ timeoutMs: Math.round(seconds * 1000) });
                  }}
                />
              </label>
              {problem && cell.source.trim() !== '' && (
                <span className="muted" data-testid="whatif-incomplete">
                  To run: {problem}
                </span>
              )}
            </div>
          </>
        ) : (
          <ReadOnlySpec draft={draft} />
        )}
      </div>
      {cell.output?.status === 'whatif' && <WhatIfView result={cell.output.whatif} />}
      {cell.output?.status === 'error' && <ExperimentError title="What-if failed" message={cell.output.error.message} testId="whatif-error" />}
    </CellFrame>
  );
}

interface SqlFieldProps {
  testId: string;
  label: string;
  value: string;
  schema: SchemaInfo | undefined;
  focused?: boolean;
  onChange(text: string): void;
  onRun(): void;
  onCancel(): void;
  onFocus(): void;
}

function SqlField(props: SqlFieldProps) {
  return <QueryEditor {...props} language="sql" focused={props.focused ?? false} onRun={() => props.onRun()} />;
}

function FieldLabel({ title, hint, children }: { title: string; hint: string; children?: React.ReactNode }) {
  return (
    <div className="field-label">
      <strong>{title}</strong>
      <span className="muted">{hint}</span>
      {children}
    </div>
  );
}

/** A model's experiment as it was run; the analyst edits a copy. */
function ReadOnlySpec({ draft }: { draft: Record<string, unknown> }) {
  const candidates = Array.isArray(draft['candidates']) ? draft['candidates'].map(String).join(', ') : null;
  return (
    <dl className="whatif-readonly">
      <dt>Change</dt>
      <dd>
        <ScrollablePre label="Change">{stringField(draft, 'change')}</ScrollablePre>
      </dd>
      <dt>Objective ({draft['direction'] === 'minimize' ? 'lower is better' : 'higher is better'})</dt>
      <dd>
        <ScrollablePre label="Objective">{stringField(draft, 'objective')}</ScrollablePre>
      </dd>
      <dt>Candidates</dt>
      <dd>{candidates !== null ? candidates : <ScrollablePre label="Candidates query">{stringField(draft, 'candidatesQuery')}</ScrollablePre>}</dd>
    </dl>
  );
}

export function WhatIfView({ result }: { result: WhatIfResult }) {
  const table = useMemo(
    () => rankingTable(['rank', 'candidate', 'before', 'after', 'delta', 'rows changed'], result.rows.map((row) => [row.rank, row.candidate, row.before, row.after, row.delta, row.changedRows]), result.elapsedMs),
    [result],
  );
  const others = result.tied.filter((candidate) => candidate !== result.best);
  return (
    <div className="simulation-result" data-testid="whatif-result">
      <p className="simulation-winner" data-testid="whatif-winner">
        Best: <strong>{String(result.best)}</strong>
        {others.length > 0 && <span className="tie"> tied with {others.map(String).join(', ')}</span>}
        <span className="muted">
          {' '}
          · objective {result.direction === 'maximize' ? 'maximized' : 'minimized'}
          {result.margin !== null && others.length === 0 && ` · margin ${formatNumber(result.margin)} over the runner-up`}
        </span>
      </p>
      <DeltaChart bars={result.rows.map((row) => ({ candidate: String(row.candidate), delta: row.delta, tied: result.tied.includes(row.candidate) }))} label="Change in the objective for each candidate" />
      <p className="whatif-proof" data-testid="whatif-proof" title={`before ${result.sourceDigestBefore}\nafter  ${result.sourceDigestAfter}`}>
        {result.sourceDigestBefore === result.sourceDigestAfter ? '✓ Source unchanged' : '✗ Source changed'} — {shortDigest(result.sourceDigestAfter)}
        {result.copiedTables ? ' of the rows read from the server' : ''} before and after · {plural(result.rows.length, 'candidate')} in {Math.round(result.elapsedMs)} ms on{' '}
        {result.copiedTables ? `a local DuckDB copy of ${describeCopiedTables(result.copiedTables)}` : 'a throwaway copy'} ·{' '}
        {result.isolation === 'process' ? 'each candidate in a worker process stopped at its time limit' : 'time limits checked between candidates'}
      </p>
      <Notes notes={result.notes} />
      <ResultGrid result={table} fileName="whatif" />
    </div>
  );
}

function storedCandidates(draft: Record<string, unknown>): Candidate[] {
  const list = draft['candidates'];
  return Array.isArray(list) ? list.filter((item): item is Candidate => typeof item === 'string' || typeof item === 'number') : [];
}

function stringField(draft: Record<string, unknown>, field: string): string {
  const value = draft[field];
  return typeof value === 'string' ? value : '';
}

function describeIssue(issue: { path: PropertyKey[]; message: string } | undefined): string {
  if (!issue) return 'the experiment is incomplete';
  const field = String(issue.path[0] ?? '');
  const names: Record<string, string> = { change: 'write the change', objective: 'write the objective', candidates: 'list the candidates', candidatesQuery: 'write the candidates query' };
  return names[field] ?? `${field || 'experiment'}: ${issue.message}`;
}

function shortDigest(digest: string): string {
  const [algorithm, hex = ''] = digest.split(':');
  return `${algorithm}:${hex.slice(0, 12)}…`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
