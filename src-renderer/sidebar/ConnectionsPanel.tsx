import { useEffect, useRef, useState } from 'react';
import type { Connection } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { ConnectionDialog } from '../connections/ConnectionDialog';
import { describeTarget, kindInfo, kindOfTarget } from '../connections/connection-kinds';
import { SchemaTree } from './SchemaTree';
import { PencilIcon } from '../ui/icons';
import { rovingListKeyDown } from '../ui/roving-list';

/**
 * Saved connections: add or edit one in a dialog (a form per kind), remove with a
 * confirmation, and browse each one's schema. `browse` is App's SQLite picker; the dialog asks
 * for files of the chosen kind itself.
 */
export function ConnectionsPanel({ canBrowse }: { canBrowse: boolean; browse?: () => Promise<string | null> }) {
  const connections = useWorkbench((state) => state.connections);
  const [dialog, setDialog] = useState<{ editing: Connection | null } | null>(null);
  const [expanded, setExpanded] = useState<string | null>(null);
  // The list's one tab stop (as the notebook list's): the row last focused, else the first.
  const [focusedId, setFocusedId] = useState<string | null>(null);
  const tabStopId = connections.some((connection) => connection.id === focusedId) ? focusedId : (connections[0]?.id ?? null);

  return (
    <section className="panel" aria-label="Connections">
      <header className="panel-header">
        <h2>Connections</h2>
        <button className="ghost small" data-testid="add-connection" onClick={() => setDialog({ editing: null })}>
          + Add
        </button>
      </header>
      <ul className="list" data-testid="connection-list" aria-label="Connections (arrow keys move, Enter shows the schema)" onKeyDown={rovingListKeyDown}>
        {connections.map((connection) => (
          <ConnectionRow
            key={connection.id}
            connection={connection}
            tabStop={connection.id === tabStopId}
            onFocus={() => setFocusedId(connection.id)}
            expanded={expanded === connection.id}
            onToggle={() => setExpanded(expanded === connection.id ? null : connection.id)}
            onEdit={() => setDialog({ editing: connection })}
          />
        ))}
      </ul>
      {dialog && <ConnectionDialog editing={dialog.editing} canBrowse={canBrowse} onClose={() => setDialog(null)} />}
    </section>
  );
}

function ConnectionRow(props: { connection: Connection; tabStop: boolean; expanded: boolean; onFocus(): void; onToggle(): void; onEdit(): void }) {
  const { connection, expanded, onToggle, onEdit } = props;
  const rowButton = useRef<HTMLButtonElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  const removeConnection = useWorkbench((state) => state.removeConnection);
  const openHistory = useWorkbench((state) => state.openHistory);
  const reportError = useWorkbench((state) => state.reportError);
  const [confirming, setConfirming] = useState(false);
  // The safe choice has the focus when the question appears (the ✕ pressed is gone by then).
  useEffect(() => {
    if (confirming) keepButton.current?.focus();
  }, [confirming]);
  const kind = kindInfo(kindOfTarget(connection.target));
  const where = describeTarget(connection.target);
  return (
    <li className={`connection${confirming ? ' confirming' : ''}`} data-testid="connection" data-engine={connection.engine}>
      <button ref={rowButton} className="list-item" data-roving-item tabIndex={props.tabStop ? 0 : -1} onFocus={props.onFocus} onClick={onToggle} aria-expanded={expanded} title={`${kind.label}: ${where}`}>
        <span className="chevron">{expanded ? '▾' : '▸'}</span>
        <span className="engine">{kind.id}</span>
        <span className="list-title">{connection.name}</span>
      </button>
      <span className="row-actions">
        {confirming ? (
          <>
            <button className="danger small" data-roving-action tabIndex={-1} onClick={() => void removeConnection(connection.id).catch((error: unknown) => reportError(error, 'Remove failed'))}>
              Remove
            </button>
            {/* Keeping the connection goes back to its row. */}
            <button
              ref={keepButton}
              className="ghost small"
              data-roving-action
              tabIndex={-1}
              onClick={() => {
                setConfirming(false);
                rowButton.current?.focus();
              }}
            >
              Keep
            </button>
          </>
        ) : (
          <>
            <button className="icon" data-roving-action tabIndex={-1} title="Queries run on this connection" aria-label={`Query history of ${connection.name}`} data-testid="connection-history" onClick={() => openHistory({ tab: 'queries', connectionId: connection.id })}>
              ⟲
            </button>
            <button className="icon" data-roving-action tabIndex={-1} title="Edit connection" aria-label={`Edit ${connection.name}`} onClick={onEdit}>
              <PencilIcon />
            </button>
            <button
              className="icon"
              data-roving-action
              tabIndex={-1}
              title={kind.family === 'file' ? 'Remove connection (the file is not touched)' : 'Remove connection (the database is not touched)'}
              aria-label={`Remove ${connection.name}`}
              onClick={() => setConfirming(true)}
            >
              ✕
            </button>
          </>
        )}
      </span>
      {expanded && (
        <>
          <p className="connection-meta" title={where}>
            {where}
          </p>
          <SchemaTree connectionId={connection.id} />
        </>
      )}
    </li>
  );
}
