import { useState } from 'react';
import type { ActionLibrarySummary, ActionLibraryView } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';

/** One action as the form holds it: the parameters as the analyst types them, comma-separated. */
interface DraftAction {
  key: number;
  name: string;
  params: string;
  variadic: boolean;
  definition: string;
}

/**
 * Edits a library's actions: rename, retype, redefine, remove or add, then save as the next
 * version (the main process checks the whole library, as it checks a file, and says what is
 * wrong; nothing is written until it reads). Usage and origin stay the library's.
 */
export function ActionLibraryEditor({ library, onSaved, onCancel }: { library: ActionLibraryView; onSaved(saved: ActionLibrarySummary): void; onCancel(): void }) {
  const saveActionLibrary = useWorkbench((state) => state.saveActionLibrary);
  const [actions, setActions] = useState<DraftAction[]>(() => library.actions.map((action, index) => ({ key: index, name: action.name, params: action.params.join(', '), variadic: action.variadic === true, definition: action.definition })));
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const change = (key: number, patch: Partial<DraftAction>): void => setActions((all) => all.map((action) => (action.key === key ? { ...action, ...patch } : action)));
  const save = async (): Promise<void> => {
    setProblem(null);
    setSaving(true);
    try {
      const saved = await saveActionLibrary(
        library.id,
        actions.map((action) => ({
          name: action.name.trim(),
          params: action.params.split(',').map((param) => param.trim()).filter(Boolean),
          ...(action.variadic ? { variadic: true } : {}),
          definition: action.definition.trim(),
        })),
        note,
      );
      onSaved(saved);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="action-editor" data-testid="action-library-editor">
      <table className="data action-table">
        <caption>
          Editing {library.name} (version {library.latestVersion}); saving makes {library.builtIn ? 'a new library from the seed' : `version ${library.latestVersion + 1}`}.
        </caption>
        <thead>
          <tr>
            <th>Action</th>
            <th>Parameters</th>
            <th>Definition</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {actions.map((action) => (
            <tr key={action.key}>
              <td>
                <input aria-label="Action name" value={action.name} onChange={(event) => change(action.key, { name: event.target.value })} />
              </td>
              <td>
                <input aria-label={`Parameters of ${action.name}`} value={action.params} onChange={(event) => change(action.key, { params: event.target.value })} />
              </td>
              <td>
                <input aria-label={`Definition of ${action.name}`} className="wide" value={action.definition} onChange={(event) => change(action.key, { definition: event.target.value })} />
              </td>
              <td>
                <button type="button" className="ghost small" aria-label={`Remove ${action.name}`} onClick={() => setActions((all) => all.filter((other) => other.key !== action.key))}>
                  ×
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="inline-setting">
        <button type="button" className="ghost small" data-testid="add-library-action" onClick={() => setActions((all) => [...all, { key: Math.max(0, ...all.map((action) => action.key)) + 1, name: '', params: 'DB', variadic: false, definition: '' }])}>
          + Action
        </button>
        <input aria-label="What changed" placeholder="What changed (kept with the version)" value={note} onChange={(event) => setNote(event.target.value)} />
        <button type="button" className="primary small" data-testid="save-action-library" disabled={saving || actions.length === 0} onClick={() => void save()}>
          Save as new version
        </button>
        <button type="button" className="ghost small" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {problem && (
        <p className="form-error" role="alert" data-testid="action-library-error">
          {problem}
        </p>
      )}
    </div>
  );
}
