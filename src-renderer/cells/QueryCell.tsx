import { useEffect, useId, useState } from 'react';
import { exportFileName, minQueryTimeoutMs, querySettingsLimits, readCellData, type Cell } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { QueryEditor } from '../editor/QueryEditor';
import { ResultGrid } from '../grid/ResultGrid';
import { idleRuntime, type StreamedRows } from '../state/cell-runtime';
import { connectionProblem } from '../state/notebook-slice';
import { CellFrame } from './CellFrame';
import { QueryResultView } from './QueryResultView';

/** A SQL (or Cypher) cell: editor, run controls, and the last result or error. */
export function QueryCell({ cell }: { cell: Cell }) {
  const connections = useWorkbench((state) => state.connections);
  const schemaState = useWorkbench((state) => (cell.connectionId ? state.schemas[cell.connectionId] : undefined));
  const runtime = useWorkbench((state) => state.runtimes[cell.id] ?? idleRuntime);
  const focused = useWorkbench((state) => state.focusCellId === cell.id);
  const editCell = useWorkbench((state) => state.editCell);
  const runCell = useWorkbench((state) => state.runCell);
  const cancelCell = useWorkbench((state) => state.cancelCell);
  const loadSchema = useWorkbench((state) => state.loadSchema);
  const setFocusCell = useWorkbench((state) => state.setFocusCell);
  const reportError = useWorkbench((state) => state.reportError);
  const notebookTitle = useWorkbench((state) => state.notebooks.find((notebook) => notebook.id === cell.notebookId)?.title ?? '');
  const position = useWorkbench((state) => state.cells.findIndex((candidate) => candidate.id === cell.id) + 1);
  const display = cell.kind === 'query' ? readCellData('query', cell.data).display : undefined;
  const connection = connections.find((candidate) => candidate.id === cell.connectionId);
  const cannotRun = connectionProblem(cell, connections);

  useEffect(() => {
    if (cell.connectionId) void loadSchema(cell.connectionId);
  }, [cell.connectionId, loadSchema]);

  const run = (advance: boolean): void => void runCell(cell.id, { advance }).catch((error: unknown) => reportError(error, 'Run failed'));
  const cancel = (): void => void cancelCell(cell.id).catch((error: unknown) => reportError(error, 'Cancel failed'));
  const busy = runtime.status !== 'idle';
  const isGraph = connection?.engine === 'neo4j' || connection?.engine === 'kuzu';

  const toolbar = (
    <span className="query-controls">
      <select
        aria-label="Connection"
        data-testid="cell-connection"
        value={connection ? connection.id : ''}
        onChange={(event) => editCell(cell.id, { connectionId: event.target.value || null })}
      >
        <option value="">Choose a connection…</option>
        {connections.map((candidate) => (
          <option key={candidate.id} value={candidate.id}>
            {candidate.name}
          </option>
        ))}
      </select>
      <SettingInput
        label="rows"
        ariaLabel="Row cap"
        title="Rows kept from the result; the rest are not read"
        className="row-cap"
        min={1}
        max={querySettingsLimits.maxRows}
        step={1}
        value={cell.settings.maxRows}
        read={readRowCap}
        allowed={rowCapRange}
        onValid={(maxRows) => editCell(cell.id, { settings: { ...cell.settings, maxRows } })}
      />
      <SettingInput
        label="timeout s"
        ariaLabel="Timeout in seconds"
        title="Give up after this many seconds"
        min={minQueryTimeoutMs / 1000}
        max={querySettingsLimits.timeoutMs / 1000}
        step="any"
        value={cell.settings.timeoutMs / 1000}
        read={readTimeoutMs}
        allowed={timeoutRange}
        onValid={(timeoutMs) => editCell(cell.id, { settings: { ...cell.settings, timeoutMs } })}
      />
      {busy ? (
        <button className="danger" data-testid="cancel-query" onClick={cancel} disabled={runtime.status === 'cancelling'} title="Cancel (Ctrl+.)">
          {runtime.status === 'cancelling' ? 'Cancelling…' : 'Cancel'}
        </button>
      ) : (
        <button
          className="primary"
          data-testid="run-query"
          onClick={() => run(false)}
          disabled={cannotRun !== null}
          title={cannotRun ?? 'Run (Ctrl+Enter); Shift+Enter runs and moves on'}
        >
          ▶ Run
        </button>
      )}
    </span>
  );

  return (
    <CellFrame cell={cell} toolbar={toolbar}>
      <QueryEditor
        value={cell.source}
        language={connection?.engine === 'neo4j' || connection?.engine === 'kuzu' ? 'cypher' : 'sql'}
        schema={schemaState?.status === 'ready' ? schemaState.schema : undefined}
        identifierQuote={connection?.engine === 'mysql' ? '`' : '"'}
        focused={focused}
        onChange={(source) => editCell(cell.id, { source })}
        onRun={({ advance }) => run(advance)}
        onCancel={cancel}
        onFocus={() => setFocusCell(cell.id)}
      />
      {busy && <RunningBanner startedAt={runtime.startedAt} rowCount={runtime.streamed?.rowCount} />}
      {busy && runtime.streamed && runtime.streamed.rows.length > 0 && <StreamingGrid streamed={runtime.streamed} />}
      {!busy && cell.output?.status === 'error' && (
        <div className={`query-error error-${cell.output.error.code}`} data-testid="query-error" role="alert">
          <strong>
            {cell.output.error.code === 'unknown-object' && isGraph ? 'Unknown label, relationship type or property' : (errorTitles[cell.output.error.code] ?? 'Query failed')}
          </strong>
          <span>{cell.output.error.message}</span>
        </div>
      )}
      {!busy && cell.output?.status === 'ok' && (
        <QueryResultView
          cell={cell}
          result={cell.output.result}
          engine={connection?.engine}
          fileName={exportFileName({ notebookTitle, position, ...(cell.output.query === undefined ? {} : { query: cell.output.query }) })}
          display={display}
          onDisplayChange={(next) => editCell(cell.id, { display: next })}
        />
      )}
    </CellFrame>
  );
}

const rowCapRange = `Row cap: a whole number from 1 to ${querySettingsLimits.maxRows.toLocaleString('en-US')}`;
const timeoutRange = `Timeout: ${(minQueryTimeoutMs / 1000).toLocaleString('en-US')} to ${(querySettingsLimits.timeoutMs / 1000).toLocaleString('en-US')} seconds`;

/** The row cap typed, or null when it is not a whole number within the contract's range. */
function readRowCap(text: string): number | null {
  if (!/^\d+$/.test(text.trim())) return null;
  const rows = Number(text);
  return rows >= 1 && rows <= querySettingsLimits.maxRows ? rows : null;
}

/** The timeout typed in seconds, as milliseconds, or null outside the contract's range. */
function readTimeoutMs(text: string): number | null {
  if (text.trim() === '') return null;
  const seconds = Number(text);
  if (!Number.isFinite(seconds)) return null;
  const ms = Math.round(seconds * 1000);
  return ms >= minQueryTimeoutMs && ms <= querySettingsLimits.timeoutMs ? ms : null;
}

/**
 * A number setting of the cell: a valid value is saved as it is typed; an invalid one stays in the
 * field (nothing saved) with the allowed range said beside it, until it is corrected.
 */
function SettingInput(props: {
  label: string;
  ariaLabel: string;
  title: string;
  className?: string;
  min: number;
  max: number;
  step: number | 'any';
  value: number;
  read(text: string): number | null;
  allowed: string;
  onValid(value: number): void;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  const errorId = useId();
  const invalid = draft !== null && props.read(draft) === null;
  return (
    <label className="setting" title={props.title}>
      {props.label}
      <input
        type="number"
        className={props.className}
        min={props.min}
        max={props.max}
        step={props.step}
        aria-label={props.ariaLabel}
        aria-invalid={invalid}
        aria-describedby={invalid ? errorId : undefined}
        value={draft ?? String(props.value)}
        onChange={(event) => {
          // A number input reports '' for text it cannot read (e.g. '1e'), which is invalid too.
          const text = event.target.value;
          const read = props.read(text);
          if (read === null) setDraft(text);
          else {
            setDraft(null);
            props.onValid(read);
          }
        }}
      />
      {invalid && (
        <span className="setting-error" id={errorId} role="alert" data-testid="setting-error">
          {props.allowed}
        </span>
      )}
    </label>
  );
}

const errorTitles: Record<string, string> = {
  syntax: 'Syntax error',
  'unknown-object': 'Unknown table or column',
  'read-only': 'Refused — read-only connection',
  timeout: 'Timed out',
  cancelled: 'Cancelled',
  'not-found': 'Database not found',
  'query-failed': 'Query failed',
  'connection-failed': 'Cannot connect',
};

/** The rows a running query has streamed so far, shown at once while it reads on. */
function StreamingGrid({ streamed }: { streamed: StreamedRows }) {
  const result = {
    columns: streamed.columns,
    rows: streamed.rows,
    rowCount: streamed.rowCount,
    truncated: false,
    elapsedMs: streamed.elapsedMs,
    ...(streamed.rows.length < streamed.rowCount
      ? { preview: { rows: streamed.rows.length, note: `First ${streamed.rows.length.toLocaleString()} rows shown while the query reads on` } }
      : {}),
  };
  return <ResultGrid result={result} fileName="streaming" />;
}

function RunningBanner({ startedAt, rowCount }: { startedAt: number; rowCount: number | undefined }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 200);
    return () => clearInterval(timer);
  }, []);
  return (
    <div className="running" data-testid="query-running" role="status">
      <span className="spinner" /> Running… {((now - startedAt) / 1000).toFixed(1)} s
      {rowCount !== undefined && (
        <span data-testid="query-row-count">
          {' '}
          · {rowCount.toLocaleString()} row{rowCount === 1 ? '' : 's'} read
        </span>
      )}
    </div>
  );
}
