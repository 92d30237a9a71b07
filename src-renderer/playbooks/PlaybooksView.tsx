import { useCallback, useEffect, useState } from 'react';
import type { DiffPart, PlaybookDetail, PlaybookTask, PlaybookTraining, PlaybookVersionSummary, WorkbenchClient } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';

const short = (hash: string | null): string => (hash === null ? '—' : hash.slice(0, 12));

function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

const statusLabel: Record<PlaybookVersionSummary['status'], string> = {
  proposed: 'proposed — review it',
  accepted: 'accepted',
  edited: 'replaced by an edit',
  rejected: 'rejected',
};

/** The diff as lines marked added, removed or unchanged; text only, never HTML. */
function DiffLines({ parts }: { parts: DiffPart[] }) {
  const lines = parts.flatMap((part) =>
    part.text
      .replace(/\n$/, '')
      .split('\n')
      .map((text) => ({ kind: part.kind, text })),
  );
  return (
    <pre className="playbook-diff" data-testid="playbook-diff" aria-label="Changes from the version before">
      {lines.map((line, index) => (
        <div key={index} className={`diff-line ${line.kind}`} data-kind={line.kind}>
          <span className="diff-mark" aria-hidden="true">{line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' '}</span>
          {line.text}
        </div>
      ))}
    </pre>
  );
}

/**
 * AutoPlan playbooks: train on a questions file with the configured model or import the
 * versions `dwb playbook train` wrote; per task type, every version with its hash, parent,
 * training questions and date; a version's diff from the one it was rewritten from, with
 * accept, edit and reject; and the pin, which the autoplan technique follows.
 */
export function PlaybooksView({ client }: { client: WorkbenchClient }) {
  const reportError = useWorkbench((state) => state.reportError);
  const model = useWorkbench((state) => state.model);
  const [tasks, setTasks] = useState<PlaybookTask[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [detail, setDetail] = useState<PlaybookDetail | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [trainings, setTrainings] = useState<PlaybookTraining[]>([]);
  const [questionsFile, setQuestionsFile] = useState('');
  const [db, setDb] = useState<'rdb' | 'gdb'>('rdb');
  const [batchSize, setBatchSize] = useState(4);
  const [split, setSplit] = useState('');
  const [importDir, setImportDir] = useState('');
  const connections = useWorkbench((state) => state.connections);
  const [historyConnection, setHistoryConnection] = useState('');
  // A DQA scenario by name; the analyst's own data (conn-<id>) by its connection's name, or as removed.
  const removedConnection = (scenario: string): string | null =>
    scenario.startsWith('conn-') && !connections.some((connection) => `conn-${connection.id}` === scenario) ? scenario.slice('conn-'.length) : null;
  const taskName = (scenario: string): string => {
    if (scenario === 'locating') return 'Locating';
    if (scenario === 'building') return 'Building';
    const removed = removedConnection(scenario);
    return removed === null ? (connections.find((connection) => `conn-${connection.id}` === scenario)?.name ?? scenario) : `removed connection (${removed})`;
  };
  // The last deletion of a removed connection's playbooks, undoable until the next.
  const [deleted, setDeleted] = useState<{ restoreId: string; name: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(() => {
    void client
      .invoke('playbooks/list', {})
      .then(setTasks)
      .catch((error: unknown) => reportError(error, 'Could not list the playbooks'));
  }, [client, reportError]);

  useEffect(() => {
    load();
    void client
      .invoke('playbooks/trainings', {})
      .then(setTrainings)
      .catch((error: unknown) => reportError(error, 'Could not list the trainings'));
    return client.on('playbooks-change', ({ training }) => {
      if (training) setTrainings((list) => [training, ...list.filter((item) => item.id !== training.id)]);
      load();
    });
  }, [client, load, reportError]);

  useEffect(() => {
    if (selected === null) return;
    void client
      .invoke('playbooks/get', { hash: selected })
      .then(setDetail)
      .catch((error: unknown) => reportError(error, 'Could not read the playbook version'));
  }, [client, selected, tasks, reportError]);

  const act = (work: () => Promise<unknown>, failure: string): void => {
    setBusy(true);
    work()
      .then(load)
      .catch((error: unknown) => reportError(error, failure))
      .finally(() => setBusy(false));
  };

  const train = (): void =>
    act(
      () => client.invoke('playbooks/train', { questionsFile, db, batchSize, ...(split.trim() ? { split: split.trim() } : {}) }),
      'Could not start the training',
    );
  const trainFromRuns = (): void => act(() => client.invoke('playbooks/train-from-runs', { connectionId: historyConnection, batchSize }), 'Could not start the training');
  const importVersions = (): void => act(() => client.invoke('playbooks/import', { directory: importDir }), 'Could not import the playbook versions');
  const review = (hash: string, action: 'accept' | 'reject'): void => act(() => client.invoke('playbooks/review', { hash, action }), `Could not ${action} the version`);
  const pin = (hash: string): void => act(() => client.invoke('playbooks/pin', { hash }), 'Could not pin the version');
  const saveEdit = (hash: string, text: string): void =>
    act(async () => {
      const edited = await client.invoke('playbooks/edit', { hash, playbook: text });
      setEditing(null);
      setSelected(edited.hash);
    }, 'Could not save the edit');

  const deleteTask = (task: PlaybookTask): void =>
    act(async () => {
      const { restoreId } = await client.invoke('playbooks/delete-task', { scenario: task.scenario, db: task.db });
      setDeleted({ restoreId, name: `${taskName(task.scenario)} × ${task.db === 'rdb' ? 'relational' : 'graph'}` });
    }, 'Could not delete the playbooks');
  const undoDelete = (restoreId: string): void =>
    act(async () => {
      await client.invoke('playbooks/restore', { restoreId });
      setDeleted(null);
    }, 'Could not bring the playbooks back');

  const withVersions = tasks.filter((task) => task.versions.length > 0);

  return (
    <main className="benchmarks playbooks" data-testid="playbooks-view" aria-label="Playbooks">
      <h1>Playbooks</h1>
      <p className="muted">
        AutoPlan learns one playbook per kind of question (scenario × database) from batches of past questions. Review each new version, then pin the one the AutoPlan technique should follow.
      </p>

      <section className="benchmark-form" aria-label="Train a playbook">
        <p className="muted">{model?.settings ? `Model: ${model.settings.model} at ${model.settings.baseUrl}` : 'No model yet: set one up under Model in the sidebar first.'}</p>
        <label>
          Questions file (a DQA questions.json)
          <input aria-label="Training questions file" value={questionsFile} placeholder="/path/to/locating/questions.json" onChange={(event) => setQuestionsFile(event.target.value)} />
        </label>
        <label>
          Database
          <select aria-label="Training database" value={db} onChange={(event) => setDb(event.target.value === 'gdb' ? 'gdb' : 'rdb')}>
            <option value="rdb">Relational (SQL)</option>
            <option value="gdb">Graph (Cypher)</option>
          </select>
        </label>
        <label>
          Batch size
          <input type="number" aria-label="Batch size" min={1} max={32} value={batchSize} onChange={(event) => setBatchSize(Number(event.target.value))} />
        </label>
        <label title="SEED:TRAIN_FRACTION, e.g. 7:0.5: train on that part and hold the rest out for testing">
          Split (optional)
          <input aria-label="Split" value={split} placeholder="7:0.5" onChange={(event) => setSplit(event.target.value)} />
        </label>
        <button className="primary" data-testid="train-playbook" disabled={busy || questionsFile.trim() === ''} onClick={train}>
          Train
        </button>
      </section>
      <section className="benchmark-form" aria-label="Train from signed-off runs">
        <label>
          Or learn from your signed-off runs on
          <select aria-label="Signed-off runs on" value={historyConnection} onChange={(event) => setHistoryConnection(event.target.value)}>
            <option value="">choose a connection…</option>
            {connections.map((connection) => (
              <option key={connection.id} value={connection.id}>
                {connection.name}
              </option>
            ))}
          </select>
        </label>
        <button className="ghost" data-testid="train-from-runs" disabled={busy || historyConnection === ''} onClick={trainFromRuns} title="Each signed-off run's question is asked again; the decision you signed off is the reward">
          Train from runs
        </button>
      </section>
      <section className="benchmark-form" aria-label="Import playbook versions">
        <label>
          Folder written by dwb playbook train --out
          <input aria-label="Playbook folder" value={importDir} placeholder="/path/to/playbooks" onChange={(event) => setImportDir(event.target.value)} />
        </label>
        <button className="ghost" data-testid="import-playbooks" disabled={busy || importDir.trim() === ''} onClick={importVersions}>
          Import
        </button>
      </section>

      {trainings.length > 0 && (
        <ul className="benchmark-list" data-testid="training-list" aria-label="Trainings">
          {trainings.map((training) => (
            <li key={training.id} data-testid="training-item" data-status={training.status}>
              {training.source.split(/[\\/]/).slice(-2).join('/')} · {training.db} · batches of {training.batchSize}: {training.status}, {training.versions} version(s)
              {training.message && <span className="muted"> {training.message}</span>}
            </li>
          ))}
        </ul>
      )}

      {deleted && (
        <div className="test-report ok" role="status" data-testid="playbooks-deleted">
          <span>Deleted the playbooks of {deleted.name} (in the trash until it is emptied).</span>
          <button className="small" data-testid="undo-delete-playbooks" disabled={busy} onClick={() => undoDelete(deleted.restoreId)}>
            Undo
          </button>
        </div>
      )}
      {withVersions.length === 0 && <p className="muted" data-testid="no-playbooks">No playbooks yet: train one, or import the versions of dwb playbook train.</p>}
      {withVersions.map((task) => (
        <section key={`${task.scenario}-${task.db}`} aria-label={`Playbooks ${task.scenario} ${task.db}`} data-testid="playbook-task">
          <h2>
            {taskName(task.scenario)} × {task.db === 'rdb' ? 'relational' : 'graph'}{' '}
            <span className="muted">{task.pinned === null ? '· nothing pinned: AutoPlan runs are refused until a version is pinned' : `· pinned ${short(task.pinned)}`}</span>
          </h2>
          {removedConnection(task.scenario) !== null && (
            <p className="muted">
              Its connection was removed, so no run uses these playbooks.{' '}
              <button className="small" data-testid="delete-task-playbooks" disabled={busy} onClick={() => deleteTask(task)}>
                Delete these playbooks
              </button>
            </p>
          )}
          <table className="benchmark-table" data-testid="playbook-versions">
            <thead>
              <tr>
                <th>Version</th><th>Hash</th><th>Parent</th><th>Training questions</th><th>Batch success</th><th>Added</th><th>Status</th><th><span className="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {task.versions.map((version) => (
                <tr key={version.hash} className={version.hash === selected ? 'selected' : ''} data-testid="playbook-version" data-hash={version.hash} data-status={version.status} data-pinned={version.pinned}>
                  <td>
                    v{version.index}
                    {version.origin === 'edit' ? ' (edit)' : ''}
                  </td>
                  <td className="mono" title={version.hash}>{short(version.hash)}</td>
                  <td className="mono" title={version.parent ?? ''}>{short(version.parent)}</td>
                  <td>{version.questionIds.join(', ')}</td>
                  <td>{Math.round(version.successRate * 100)}%</td>
                  <td>{formatDate(version.addedAt)}</td>
                  <td>
                    {version.pinned ? <strong>pinned</strong> : statusLabel[version.status]}
                    {version.specifics.length > 0 && (
                      <span className="playbook-warning" title="A playbook must stay general"> · names {version.specifics.join(', ')}</span>
                    )}
                  </td>
                  <td>
                    <button className="ghost small" data-testid="open-playbook" onClick={() => setSelected(version.hash === selected ? null : version.hash)}>
                      {version.hash === selected ? 'Close' : 'Review'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {detail && detail.hash === selected && detail.scenario === task.scenario && detail.db === task.db && (
            <div className="playbook-detail" data-testid="playbook-detail">
              <h3>
                v{detail.index} {short(detail.hash)} <span className="muted">from {detail.parent === null ? 'an empty playbook' : short(detail.parent)} · {detail.model} · {detail.cost.calls} model calls</span>
              </h3>
              {detail.specifics.length > 0 && (
                <p className="playbook-warning" role="alert">
                  Not general: names {detail.specifics.join(', ')} from its training questions. Edit those out before accepting.
                </p>
              )}
              {editing === null ? (
                <DiffLines parts={detail.diff} />
              ) : (
                <textarea aria-label="Edit the playbook" className="playbook-editor" value={editing} rows={Math.max(6, editing.split('\n').length + 1)} onChange={(event) => setEditing(event.target.value)} />
              )}
              <div className="playbook-actions">
                {editing === null ? (
                  <>
                    {detail.status === 'proposed' && (
                      <button className="primary" data-testid="accept-playbook" disabled={busy} onClick={() => review(detail.hash, 'accept')}>
                        Accept
                      </button>
                    )}
                    {detail.status !== 'edited' && (
                      <button className="ghost" data-testid="edit-playbook" disabled={busy} onClick={() => setEditing(detail.playbook)}>
                        Edit…
                      </button>
                    )}
                    {(detail.status === 'proposed' || detail.status === 'accepted') && !detail.pinned && (
                      <button className="ghost" data-testid="reject-playbook" disabled={busy} onClick={() => review(detail.hash, 'reject')}>
                        Reject
                      </button>
                    )}
                    {detail.status === 'accepted' && !detail.pinned && (
                      <button className="primary" data-testid="pin-playbook" disabled={busy} onClick={() => pin(detail.hash)}>
                        Pin for AutoPlan
                      </button>
                    )}
                    {detail.pinned && (
                      <button className="ghost" data-testid="unpin-playbook" disabled={busy} onClick={() => act(() => client.invoke('playbooks/unpin', { scenario: detail.scenario, db: detail.db }), 'Could not unpin')}>
                        Unpin
                      </button>
                    )}
                  </>
                ) : (
                  <>
                    <button className="primary" data-testid="save-playbook-edit" disabled={busy || editing.trim() === ''} onClick={() => saveEdit(detail.hash, editing)}>
                      Save as a new version
                    </button>
                    <button className="ghost" onClick={() => setEditing(null)}>Cancel</button>
                  </>
                )}
              </div>
              <details>
                <summary>What the batch taught ({detail.jobs.length} question{detail.jobs.length === 1 ? '' : 's'})</summary>
                <ul className="playbook-jobs">
                  {detail.jobs.map((job) => (
                    <li key={job.questionId}>
                      <strong>{job.questionId}</strong> {job.success ? 'succeeded' : 'failed'} ({job.decision ?? 'no decision'}): {job.summary}
                      {job.flaws && <div className="muted">Flaws: {job.flaws}</div>}
                      {job.revision && <div className="muted">Revision: {job.revision}</div>}
                    </li>
                  ))}
                </ul>
              </details>
            </div>
          )}
        </section>
      ))}
    </main>
  );
}
