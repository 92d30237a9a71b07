import { useCallback, useEffect, useState } from 'react';
import type { ActionLibrarySummary, ActionLibraryView } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { ActionLibraryEditor } from './ActionLibraryEditor';

/**
 * The action library a Pearl run plans with, in the run composer: the workspace's libraries
 * (the seed, and those imported from `dwb actions mine`), each viewable with its actions' types,
 * definitions, usage across runs and origin, at any of its versions; edited here (each save
 * the next version); a mined library is imported by its path here.
 */
export function ActionLibraryPicker({ connectionId, value, onChange }: { connectionId?: string; value: string | undefined; onChange(id: string | undefined): void }) {
  const mineActionLibrary = useWorkbench((state) => state.mineActionLibrary);
  const decideActionLibrary = useWorkbench((state) => state.decideActionLibrary);
  const [mining, setMining] = useState(false);
  const refineActionLibrary = useWorkbench((state) => state.refineActionLibrary);
  const [refining, setRefining] = useState(false);
  const [refined, setRefined] = useState<string | null>(null);
  const listActionLibraries = useWorkbench((state) => state.listActionLibraries);
  const getActionLibrary = useWorkbench((state) => state.getActionLibrary);
  const importActionLibrary = useWorkbench((state) => state.importActionLibrary);
  const browseActionLibrary = useWorkbench((state) => state.browseActionLibrary);
  const [libraries, setLibraries] = useState<ActionLibrarySummary[]>([]);
  const [shown, setShown] = useState<ActionLibraryView | null>(null);
  const [path, setPath] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);

  const reload = useCallback(() => listActionLibraries().then(setLibraries), [listActionLibraries]);
  useEffect(() => {
    void reload().catch((error: unknown) => setProblem(error instanceof Error ? error.message : String(error)));
  }, [reload]);

  const show = (id: string, version?: number): void => {
    setProblem(null);
    setEditing(false);
    getActionLibrary(id, version)
      .then(setShown)
      .catch((error: unknown) => setProblem(error instanceof Error ? error.message : String(error)));
  };
  const importFrom = async (): Promise<void> => {
    setProblem(null);
    try {
      const imported = await importActionLibrary(path.trim());
      await reload();
      onChange(imported.id);
      setPath('');
      show(imported.id);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };

  const mine = async (): Promise<void> => {
    if (!connectionId) return;
    setProblem(null);
    setMining(true);
    try {
      const mined = await mineActionLibrary(connectionId, value);
      await reload();
      show(mined.id);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setMining(false);
    }
  };
  const refine = async (): Promise<void> => {
    if (!connectionId) return;
    setProblem(null);
    setRefined(null);
    setRefining(true);
    try {
      const result = await refineActionLibrary(connectionId, value ?? 'seed');
      const kept = result.outcomes.filter((outcome) => outcome.kept).length;
      const dropped = result.outcomes.filter((outcome) => !outcome.kept).map((outcome) => `"${outcome.question.slice(0, 60)}" (${outcome.tries} wrong tries)`);
      setRefined(`${kept} of ${result.outcomes.length} demonstrations kept${result.library ? ` as version ${result.library.version} of ${result.library.name}` : ''}${dropped.length ? `; no demonstration from ${dropped.join(', ')}` : ''}.`);
      if (result.library) {
        await reload();
        onChange(result.library.id);
        show(result.library.id);
      }
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setRefining(false);
    }
  };
  const decide = async (id: string, accept: boolean): Promise<void> => {
    setProblem(null);
    try {
      await decideActionLibrary(id, accept);
      await reload();
      if (accept) {
        onChange(id);
        show(id);
      } else setShown(null);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <div className="action-libraries" data-testid="action-libraries">
      <label className="inline-setting">
        Action library
        <select aria-label="Action library" value={value ?? ''} onChange={(event) => onChange(event.target.value || undefined)}>
          <option value="">Best fit for the data</option>
          {libraries.map((library) => (
            <option key={library.id} value={library.id} disabled={library.status === 'proposed'}>
              {library.name} · {library.scenario}/{library.schema} · {library.actionCount} actions{library.status === 'proposed' ? ' (mined, waiting for review)' : ''}
            </option>
          ))}
        </select>
        <button type="button" className="ghost small" data-testid="view-action-library" onClick={() => (shown ? setShown(null) : show(value ?? 'seed'))}>
          {shown ? 'Hide actions' : 'View actions'}
        </button>
      </label>
      <div className="inline-setting">
        <input aria-label="Action library file" placeholder="library.json from dwb actions mine" value={path} onChange={(event) => setPath(event.target.value)} />
        <button
          type="button"
          className="ghost small"
          onClick={() =>
            void browseActionLibrary()
              .then((picked) => picked && setPath(picked))
              .catch((error: unknown) => setProblem(error instanceof Error ? error.message : String(error)))
          }
        >
          Browse…
        </button>
        <button type="button" className="ghost small" data-testid="import-action-library" disabled={!path.trim()} onClick={() => void importFrom()}>
          Import
        </button>
        <button
          type="button"
          className="ghost small"
          data-testid="mine-action-library"
          disabled={!connectionId || mining}
          title="One model call per question asked of this data so far, and one per rules text (its formula terms); then simplification rounds. You review the result."
          onClick={() => void mine()}
        >
          {mining ? 'Mining…' : 'Mine from past questions'}
        </button>
        <button
          type="button"
          className="ghost small"
          data-testid="refine-action-library"
          disabled={!connectionId || refining}
          title="Plans and runs each question asked of this data with its country and home node (or goods), up to 4 tries, until the simulator's best decision; keeps each right program as a demonstration in the library's next version."
          onClick={() => void refine()}
        >
          {refining ? 'Refining…' : 'Refine demonstrations'}
        </button>
      </div>
      {refined && (
        <p className="hint" data-testid="refine-outcome">
          {refined}
        </p>
      )}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      {shown && shown.status === 'proposed' && (
        <div className="mined-review" data-testid="mined-review">
          <span>
            {shown.name}, {shown.versions[0]?.note}, waits for your review: {shown.rounds.map((round) => `round ${round.round} (${round.kind}) ${round.before} → ${round.after} actions`).join('; ')}.
          </span>
          <button type="button" className="primary small" data-testid="accept-mined" onClick={() => void decide(shown.id, true)}>
            Accept
          </button>
          <button type="button" className="ghost small" data-testid="reject-mined" onClick={() => void decide(shown.id, false)}>
            Reject
          </button>
        </div>
      )}
      {shown && shown.rounds.some((round) => round.merges.length > 0) && (
        <ul className="mined-merges" data-testid="mined-merges">
          {shown.rounds.flatMap((round) =>
            round.merges.map((merge) => (
              <li key={`${round.round}-${merge.into}`}>
                round {round.round}: <code>{merge.into}</code> ← {merge.from.join(', ')}
              </li>
            )),
          )}
        </ul>
      )}
      {shown && !editing && (
        <div className="inline-setting">
          <label className="inline-setting">
            Version
            <select aria-label="Library version" value={shown.version} onChange={(event) => show(shown.id, Number(event.target.value))}>
              {[...shown.versions].reverse().map((entry) => (
                <option key={entry.version} value={entry.version}>
                  {entry.version}
                  {entry.version === shown.latestVersion ? ' (latest)' : ''} · {entry.note} · {entry.actionCount} actions
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="ghost small" data-testid="edit-action-library" disabled={shown.version !== shown.latestVersion} title={shown.version !== shown.latestVersion ? 'Edit the latest version' : undefined} onClick={() => setEditing(true)}>
            Edit actions
          </button>
        </div>
      )}
      {shown && editing && (
        <ActionLibraryEditor
          library={shown}
          onCancel={() => setEditing(false)}
          onSaved={(saved) => {
            void reload();
            onChange(saved.id);
            show(saved.id);
          }}
        />
      )}
      {shown && !editing && (
        <table className="data action-table" data-testid="action-library-view">
          <caption>
            {shown.name} · version {shown.version} · {shown.scenario}/{shown.schema} · {shown.demonstrationCount} demonstrations{shown.roundCount ? ` · ${shown.roundCount} mining rounds` : ''}
          </caption>
          <thead>
            <tr>
              <th>Action</th>
              <th>Definition</th>
              <th>Used</th>
              <th>From</th>
            </tr>
          </thead>
          <tbody>
            {shown.actions.map((action) => (
              <tr key={action.name}>
                <td>
                  <code>
                    {action.name}({action.params.join(', ')}
                    {action.variadic ? ', …' : ''})
                  </code>
                </td>
                <td>{action.definition}</td>
                <td className="num">{action.usage}</td>
                <td>{action.provenance}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
