import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import type { Connection, ConnectionTestReport } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { useDialogKeys } from '../ui/use-dialog-keys';
import { connectionKinds, kindInfo, type ConnectionKind } from './connection-kinds';
import { defaultName, emptyForm, formFromConnection, formFromUrl, passwordFromForm, targetFromForm, trinoUsesTls, withTrinoTls, type ConnectionFormState } from './connection-form';
import './connections.css';
import { DialogFooter, useDialogAction } from '../ui/DialogFooter';

/**
 * Adds or edits a connection: a form per kind of source (a file path, with Browse… in the
 * desktop app; or a server with host, login and password), a Test button that opens it and
 * reads its schema, and Save. Passwords go to the workspace's secret store, never into the
 * saved connection.
 */
export function ConnectionDialog({ editing, canBrowse, onClose }: { editing: Connection | null; canBrowse: boolean; onClose(): void }) {
  const addConnection = useWorkbench((state) => state.addConnection);
  const updateConnection = useWorkbench((state) => state.updateConnection);
  const testConnection = useWorkbench((state) => state.testConnection);
  const pickFile = useWorkbench((state) => state.pickFile);
  const secretsPersistent = useWorkbench((state) => state.secretsPersistent);
  const loadSecretsInfo = useWorkbench((state) => state.loadSecretsInfo);
  const [form, setForm] = useState<ConnectionFormState>(() => (editing ? formFromConnection(editing) : emptyForm('sqlite')));
  const [report, setReport] = useState<ConnectionTestReport | null>(null);
  const { busy, error, setError, attempt } = useDialogAction();
  const info = kindInfo(form.kind);

  useEffect(() => {
    if (secretsPersistent === null) void loadSecretsInfo().catch(() => undefined);
  }, [secretsPersistent, loadSecretsInfo]);

  const dialogElement = useRef<HTMLDivElement>(null);
  useDialogKeys(dialogElement, onClose);

  const update = (change: Partial<ConnectionFormState>): void => {
    setForm({ ...form, ...change });
    setReport(null);
  };
  const chooseKind = (kind: ConnectionKind): void => {
    setForm({ ...emptyForm(kind), name: form.name });
    setReport(null);
    setError(null);
  };
  const test = (): Promise<void> =>
    attempt('testing', async () => {
      setReport(await testConnection(targetFromForm(form), passwordFromForm(form), editing?.id));
    });
  const save = (): Promise<void> =>
    attempt('saving', async () => {
      const target = targetFromForm(form);
      const name = form.name.trim() || defaultName(form);
      if (editing) await updateConnection(editing.id, { name, target, ...withPassword(passwordFromForm(form)) });
      else await addConnection(name, target, passwordFromForm(form));
      onClose();
    });
  const browse = (): Promise<void> =>
    attempt('testing', async () => {
      const chosen = await pickFile(`${info.label} ${form.kind === 'kuzu' ? 'database' : 'file'}`, info.extensions);
      if (chosen) update({ path: chosen });
    });

  // On the page itself, not inside the sidebar that opens it: the sidebar's colours are for dark.
  return createPortal(
    <div className="dialog-backdrop" role="presentation" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div ref={dialogElement} className="dialog connection-dialog" role="dialog" aria-modal="true" aria-label={editing ? 'Edit connection' : 'Add connection'} data-testid="connection-dialog">
        <header className="dialog-header">
          <h2>{editing ? `Edit ${editing.name}` : 'Add a connection'}</h2>
          <button className="icon" aria-label="Close" onClick={onClose}>
            ✕
          </button>
        </header>
        <div className="kind-picker" role="radiogroup" aria-label="Kind of source">
          {connectionKinds.map((kind) => (
            <button
              key={kind.id}
              role="radio"
              aria-checked={form.kind === kind.id}
              className={`kind ${form.kind === kind.id ? 'selected' : ''}`}
              data-testid={`kind-${kind.id}`}
              onClick={() => chooseKind(kind.id)}
            >
              {kind.label}
            </button>
          ))}
        </div>
        <form
          className="form-grid connection-fields"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          {info.family === 'file' ? (
            <label className="wide">
              {form.kind === 'kuzu' ? 'Database file' : 'File'}
              <span className="path-row">
                <input aria-label="Path" required placeholder={info.placeholder} value={form.path} onChange={(event) => update({ path: event.target.value })} />
                {canBrowse && (
                  <button type="button" className="ghost small" onClick={() => void browse()}>
                    Browse…
                  </button>
                )}
              </span>
            </label>
          ) : form.kind === 'neo4j' ? (
            <>
              <label className="wide">
                URL
                <input
                  aria-label="URL"
                  placeholder={info.placeholder}
                  value={form.url}
                  onChange={(event) => update({ url: event.target.value })}
                  onBlur={(event) => setForm(formFromUrl(form, event.target.value))}
                />
              </label>
              <label>
                Database
                <input aria-label="Database" placeholder="(the server's default)" value={form.database} onChange={(event) => update({ database: event.target.value })} />
              </label>
            </>
          ) : (
            <>
              <label>
                Host
                <input
                  aria-label="Host"
                  placeholder={`${info.placeholder} or a whole URL`}
                  value={form.host}
                  onChange={(event) => update({ host: event.target.value })}
                  onBlur={(event) => event.target.value.includes('://') && setForm(formFromUrl(form, event.target.value))}
                />
              </label>
              <label>
                Port
                <input aria-label="Port" inputMode="numeric" value={form.port} onChange={(event) => update({ port: event.target.value })} />
              </label>
              {form.kind === 'trino' ? (
                <label>
                  Catalog / schema
                  <input aria-label="Catalog" placeholder="hive/sales (schema optional)" value={form.database} onChange={(event) => update({ database: event.target.value })} />
                </label>
              ) : (
                <label>
                  Database
                  <input aria-label="Database" placeholder={form.kind === 'mysql' ? '(optional)' : 'postgres'} value={form.database} onChange={(event) => update({ database: event.target.value })} />
                </label>
              )}
            </>
          )}
          {info.family === 'server' && (
            <>
              <label>
                User
                <input aria-label="User" autoComplete="off" value={form.user} onChange={(event) => update({ user: event.target.value })} />
              </label>
              <label>
                Password
                <input
                  aria-label="Password"
                  type="password"
                  autoComplete="new-password"
                  value={form.password}
                  disabled={form.forgetPassword}
                  placeholder={editing?.hasPassword ? 'stored — type to replace' : form.kind === 'trino' && !trinoUsesTls(form) ? 'none (a password needs HTTPS)' : 'none'}
                  onChange={(event) => update({ password: event.target.value })}
                />
              </label>
              {form.kind === 'trino' && (
                // Trino takes a password only over HTTPS, and the connector says to add ?ssl=true: this is that setting.
                <label className="checkbox">
                  <input type="checkbox" checked={trinoUsesTls(form)} onChange={(event) => update(withTrinoTls(form, event.target.checked))} />
                  <span>
                    HTTPS (<code>?ssl=true</code>): Trino accepts a password only over HTTPS
                  </span>
                </label>
              )}
              {editing?.hasPassword && (
                <label className="checkbox">
                  <input type="checkbox" checked={form.forgetPassword} onChange={(event) => update({ forgetPassword: event.target.checked, password: '' })} /> Forget the stored password
                </label>
              )}
            </>
          )}
          <label className="wide">
            Name
            <input aria-label="Connection name" placeholder={defaultName(form) || '(from the file or database)'} value={form.name} onChange={(event) => update({ name: event.target.value })} />
          </label>
          {/* Enter in any field saves. */}
          <button type="submit" hidden />
        </form>
        {info.urlShape && (
          // Host is filled in (127.0.0.1) when the form opens, so its placeholder cannot say this.
          <p className="hint" data-testid="url-shape-hint">
            A whole <code>{info.urlShape}</code> URL pasted into Host fills in the fields.
          </p>
        )}
        <p className="hint">Read-only: {info.readOnly}.</p>
        {info.family === 'server' && secretsPersistent === false && (
          <p className="warning" role="note" data-testid="secrets-warning">
            No secure password store here (browser mode, or the system offers none): passwords are kept in memory only, never written to
            disk, and must be entered again after a restart.
          </p>
        )}
        {report && (
          <div className={`test-report ${report.ok ? 'ok' : 'failed'}`} data-testid="connection-test-report" role="status">
            <strong>{report.ok ? 'Works' : `Failed (${report.code ?? 'error'})`}</strong> {report.message}
            <span className="muted"> · {Math.round(report.elapsedMs)} ms</span>
          </div>
        )}
        <DialogFooter
          error={error}
          busy={busy}
          testLabel="Test"
          saveLabel={editing ? 'Save' : 'Add connection'}
          testId="test-connection"
          saveId="save-connection"
          onTest={() => void test()}
          onSave={() => void save()}
          onClose={onClose}
        />
      </div>
    </div>,
    document.body,
  );
}

function withPassword(password: string | undefined): { password?: string } {
  return password === undefined ? {} : { password };
}
