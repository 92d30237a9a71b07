import { useEffect, useState } from 'react';
import { RunCheckCell } from '../runs/RunCheckCell';
import { RunMadeBy } from '../runs/RunMadeBy';
import type { QueryHistoryEntry, RunSummary, WorkbenchClient } from '../../src-main/contract';
import { duration, statusWords } from '../runs/RunHistory';
import { useWorkbench, useWorkbenchStore } from '../ui/store-context';

const pauseMs = 200;
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'medium' });

/**
 * History across the workspace: the queries query cells ran on each connection (searchable,
 * each re-openable as a new cell in the open notebook) and the decision runs of every notebook.
 */
export function HistoryView({ client }: { client: WorkbenchClient }) {
  const history = useWorkbench((state) => state.history);
  const openHistory = useWorkbench((state) => state.openHistory);
  return (
    <main className="notebook history-view" data-testid="history-view" aria-label="History">
      <h1 className="notebook-title">History</h1>
      <div className="history-tabs" role="group" aria-label="What to list">
        <button className="ghost small" data-testid="history-tab-queries" aria-pressed={history.tab === 'queries'} onClick={() => openHistory({ tab: 'queries' })}>
          Queries
        </button>
        <button className="ghost small" data-testid="history-tab-runs" aria-pressed={history.tab === 'runs'} onClick={() => openHistory({ tab: 'runs' })}>
          Decision runs of every notebook
        </button>
      </div>
      {history.tab === 'queries' ? <QueryHistory client={client} /> : <AllRuns client={client} />}
    </main>
  );
}

function QueryHistory({ client }: { client: WorkbenchClient }) {
  const connections = useWorkbench((state) => state.connections);
  const chosen = useWorkbench((state) => state.history.connectionId);
  const openHistory = useWorkbench((state) => state.openHistory);
  const reportError = useWorkbench((state) => state.reportError);
  const currentNotebookId = useWorkbench((state) => state.currentNotebookId);
  const addCell = useWorkbench((state) => state.addCell);
  const setMainView = useWorkbench((state) => state.setMainView);
  const connectionId = connections.some((connection) => connection.id === chosen) ? chosen : (connections[0]?.id ?? null);
  const [text, setText] = useState('');
  const [found, setFound] = useState<{ key: string; entries: QueryHistoryEntry[]; more: boolean } | null>(null);
  const key = `${connectionId ?? ''}\u0000${text.trim()}`;

  useEffect(() => {
    if (!connectionId) return;
    let current = true;
    const wanted = text.trim();
    // A pause in the typing first; a late answer to an older search never replaces a newer one.
    const timer = setTimeout(() => {
      client.invoke('history/queries', { connectionId, ...(wanted ? { text: wanted } : {}), limit: 200 }).then(
        (result) => current && setFound({ key: `${connectionId}\u0000${wanted}`, ...result }),
        (error: unknown) => reportError(error, 'Could not read the query history'),
      );
    }, pauseMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [client, connectionId, text, reportError]);

  const reopen = async (entry: QueryHistoryEntry): Promise<void> => {
    try {
      await addCell('query', { connectionId: entry.connectionId, source: entry.text });
      setMainView('notebook');
    } catch (error) {
      reportError(error, 'Could not open the query as a cell');
    }
  };

  if (connections.length === 0) return <p className="muted">Add a connection: the queries you run on it are listed here.</p>;
  const shown = found?.key === key ? found : null;
  return (
    <section aria-label="Query history">
      <div className="history-filters">
        <label>
          Connection
          <select aria-label="History of connection" data-testid="history-connection" value={connectionId ?? ''} onChange={(event) => openHistory({ tab: 'queries', connectionId: event.target.value })}>
            {connections.map((connection) => (
              <option key={connection.id} value={connection.id}>
                {connection.name}
              </option>
            ))}
          </select>
        </label>
        <input
          className="search-input"
          type="search"
          aria-label="Search the query history"
          data-testid="history-search"
          placeholder="Text in the queries run on this connection"
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
      </div>
      <p className="muted" role="status" data-testid="history-summary">
        {!shown ? 'Loading…' : shown.entries.length === 0 ? (text.trim() ? 'No query run on this connection holds this text.' : 'No query has run on this connection yet.') : `${shown.entries.length}${shown.more ? '+' : ''} ${shown.entries.length === 1 && !shown.more ? 'query' : 'queries'}`}
      </p>
      {shown && shown.entries.length > 0 && (
        <ul className="history-entries">
          {shown.entries.map((entry) => (
            <li key={entry.id} className="history-entry" data-testid="history-entry">
              <pre className="history-text">{entry.text}</pre>
              <div className="history-meta">
                <span>{dateFormat.format(new Date(entry.ranAt))}</span>
                <span>{entry.durationMs < 1000 ? `${Math.round(entry.durationMs)} ms` : `${(entry.durationMs / 1000).toFixed(1)} s`}</span>
                {entry.errorCode === null ? (
                  <span data-testid="history-outcome">
                    {(entry.rowCount ?? 0).toLocaleString()} row{entry.rowCount === 1 ? '' : 's'}
                  </span>
                ) : (
                  <span className="history-error" data-testid="history-outcome">
                    {entry.errorCode}
                  </span>
                )}
                {entry.notebookTitle && <span>in {entry.notebookTitle}</span>}
                <span className="spacer" />
                <button
                  className="ghost small"
                  data-testid="history-open-cell"
                  disabled={!currentNotebookId}
                  title={currentNotebookId ? 'Add this query as a new cell at the end of the open notebook' : 'Open a notebook first'}
                  onClick={() => void reopen(entry)}
                >
                  Open as a new cell
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function AllRuns({ client }: { client: WorkbenchClient }) {
  const store = useWorkbenchStore();
  const reportError = useWorkbench((state) => state.reportError);
  const openNotebook = useWorkbench((state) => state.openNotebook);
  const setMainView = useWorkbench((state) => state.setMainView);
  const selectCell = useWorkbench((state) => state.selectCell);
  const [runs, setRuns] = useState<{ runs: (RunSummary & { notebookTitle: string })[]; more: boolean } | null>(null);

  useEffect(() => {
    let current = true;
    client.invoke('runs/list-all', { limit: 200 }).then(
      (loaded) => current && setRuns(loaded),
      (error: unknown) => reportError(error, 'Could not list the runs'),
    );
    return () => {
      current = false;
    };
  }, [client, reportError]);

  const goTo = async (run: RunSummary): Promise<void> => {
    try {
      if (store.getState().currentNotebookId !== run.notebookId) await openNotebook(run.notebookId);
      setMainView('notebook');
      const cells = store.getState().cells;
      const target = cells.find((cell) => cell.provenance.runId === run.id && cell.kind === 'decision') ?? cells.find((cell) => cell.provenance.runId === run.id);
      if (target) selectCell(target.id);
    } catch (error) {
      reportError(error, 'Could not open the run’s notebook');
    }
  };

  if (runs === null) return <p className="muted">Loading…</p>;
  if (runs.runs.length === 0) return <p className="muted">No decision runs in this workspace yet.</p>;
  return (
    <section aria-label="Decision runs of every notebook">
      <table className="run-history-table" data-testid="all-runs">
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Notebook</th>
            <th scope="col">Status</th>
            <th scope="col">Technique</th>
            <th scope="col">Question</th>
            <th scope="col">Decision</th>
            <th scope="col">Check</th>
            <th scope="col">Time</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.runs.map((run) => (
            <tr key={run.id} data-testid="all-runs-row">
              <td>{dateFormat.format(new Date(run.createdAt))}</td>
              <td>{run.notebookTitle}</td>
              <td className={`run-state history-${run.status}`}>{statusWords[run.status]}</td>
              <RunMadeBy run={run} />
              <td className="run-question" title={run.question}>
                {run.question}
              </td>
              <td>{run.decision ?? <span className="muted">—</span>}</td>
              <RunCheckCell run={run} />
              <td>{duration(run)}</td>
              <td className="run-actions">
                <button className="ghost small" data-testid="all-runs-go" onClick={() => void goTo(run)}>
                  Go to run
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.more && <p className="muted">The newest 200 runs are listed.</p>}
    </section>
  );
}
