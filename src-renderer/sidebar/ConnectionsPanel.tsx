import { useState } from 'react';
import type { Connection } from '../../src-main/contract';
import { useWorkbench } from '../app/store-context';
import { SchemaTree } from './SchemaTree';

/** Saved connections, a form to add a SQLite file, and each connection's schema. */
export function ConnectionsPanel({ canBrowse, browse }: { canBrowse: boolean; browse(): Promise<string | null> }) {
  const connections = useWorkbench((state) => state.connections);
  const [adding, setAdding] = useState(false);
  const [expanded, setExpanded] = useState<string | null>(null);

  return (
    <section className="panel" aria-label="Connections">
      <header className="panel-header">
        <h2>Connections</h2>
        <button className="ghost small" data-testid="add-connection" onClick={() => setAdding(!adding)}>
          {adding ? 'Close' : '+ Add'}
        </button>
      </header>
      {adding && <AddSqliteForm canBrowse={canBrowse} browse={browse} onDone={() => setAdding(false)} />}
      <ul className="list" data-testid="connection-list">
        {connections.map((connection) => (
          <ConnectionRow
            key={connection.id}
            connection={connection}
            expanded={expanded === connection.id}
            onToggle={() => setExpanded(expanded === connection.id ? null : connection.id)}
          />
        ))}
      </ul>
    </section>
  );
}

function ConnectionRow({ connection, expanded, onToggle }: { connection: Connection; expanded: boolean; onToggle(): void }) {
  const removeConnection = useWorkbench((state) => state.removeConnection);
  const reportError = useWorkbench((state) => state.reportError);
  const [confirming, setConfirming] = useState(false);
  return (
    <li className="connection">
      <button className="list-item" onClick={onToggle} aria-expanded={expanded} title={connection.target.path}>
        <span className="chevron">{expanded ? '▾' : '▸'}</span>
        <span className="engine">{connection.engine}</span>
        <span className="list-title">{connection.name}</span>
      </button>
      <span className="row-actions">
        {confirming ? (
          <>
            <button className="danger small" onClick={() => void removeConnection(connection.id).catch((error: unknown) => reportError(error, 'Remove failed'))}>
              Remove
            </button>
            <button className="ghost small" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </>
        ) : (
          <button className="icon" title="Remove connection (the database file is not touched)" aria-label={`Remove ${connection.name}`} onClick={() => setConfirming(true)}>
            ✕
          </button>
        )}
      </span>
      {expanded && <SchemaTree connectionId={connection.id} />}
    </li>
  );
}

function AddSqliteForm({ canBrowse, browse, onDone }: { canBrowse: boolean; browse(): Promise<string | null>; onDone(): void }) {
  const addConnection = useWorkbench((state) => state.addConnection);
  const [path, setPath] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const fileName = path.split(/[\\/]/).pop() ?? path;
      await addConnection(name.trim() || fileName, { engine: 'sqlite', path: path.trim() });
      onDone();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="add-connection-form"
      data-testid="add-connection-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <label>
        SQLite file
        <span className="row">
          <input required placeholder="/path/to/data.sqlite" value={path} onChange={(event) => setPath(event.target.value)} aria-label="SQLite file path" />
          {canBrowse && (
            <button type="button" className="ghost small" onClick={() => void browse().then((chosen) => chosen && setPath(chosen))}>
              Browse…
            </button>
          )}
        </span>
      </label>
      <label>
        Name
        <input placeholder="(file name)" value={name} onChange={(event) => setName(event.target.value)} aria-label="Connection name" />
      </label>
      <p className="hint">Opened read-only: SQLite itself refuses any change.</p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button className="primary" type="submit" disabled={busy || path.trim() === ''}>
        {busy ? 'Adding…' : 'Add connection'}
      </button>
    </form>
  );
}
