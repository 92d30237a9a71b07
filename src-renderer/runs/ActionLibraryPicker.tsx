import { useCallback, useEffect, useState } from 'react';
import type { ActionLibrarySummary, ActionLibraryView } from '../../src-main/contract';
import { useWorkbench } from '../app/store-context';

/**
 * The action library a Pearl run plans with, in the run composer: the workspace's libraries
 * (the seed, and those imported from `dwb actions mine`), each viewable with its actions' types,
 * definitions, usage and origin; a mined library is imported by its path here.
 */
export function ActionLibraryPicker({ value, onChange }: { value: string | undefined; onChange(id: string | undefined): void }) {
  const listActionLibraries = useWorkbench((state) => state.listActionLibraries);
  const getActionLibrary = useWorkbench((state) => state.getActionLibrary);
  const importActionLibrary = useWorkbench((state) => state.importActionLibrary);
  const browseActionLibrary = useWorkbench((state) => state.browseActionLibrary);
  const [libraries, setLibraries] = useState<ActionLibrarySummary[]>([]);
  const [shown, setShown] = useState<ActionLibraryView | null>(null);
  const [path, setPath] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const reload = useCallback(() => listActionLibraries().then(setLibraries), [listActionLibraries]);
  useEffect(() => {
    void reload().catch((error: unknown) => setProblem(error instanceof Error ? error.message : String(error)));
  }, [reload]);

  const show = (id: string): void => {
    setProblem(null);
    getActionLibrary(id)
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

  return (
    <div className="action-libraries" data-testid="action-libraries">
      <label className="inline-setting">
        Action library
        <select aria-label="Action library" value={value ?? ''} onChange={(event) => onChange(event.target.value || undefined)}>
          <option value="">Best fit for the data</option>
          {libraries.map((library) => (
            <option key={library.id} value={library.id}>
              {library.name} · {library.scenario}/{library.schema} · {library.actionCount} actions
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
      </div>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      {shown && (
        <table className="data action-table" data-testid="action-library-view">
          <caption>
            {shown.name} · {shown.scenario}/{shown.schema} · {shown.demonstrationCount} demonstrations{shown.roundCount ? ` · ${shown.roundCount} mining rounds` : ''}
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
