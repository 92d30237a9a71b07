import { useEffect } from 'react';
import { useWorkbench } from '../ui/store-context';
import { ModelSettingsDialog } from '../settings/ModelSettingsDialog';

/** Which model decision runs use, and the way into its settings. */
export function ModelPanel() {
  const model = useWorkbench((state) => state.model);
  const loadModel = useWorkbench((state) => state.loadModel);
  const localModels = useWorkbench((state) => state.localModels);
  const loadLocalModels = useWorkbench((state) => state.loadLocalModels);
  const local = localModels?.models.find((candidate) => candidate.id === localModels.selectedId) ?? null;
  const reportError = useWorkbench((state) => state.reportError);
  const open = useWorkbench((state) => state.modelSettingsOpen);
  const setOpen = useWorkbench((state) => state.setModelSettingsOpen);

  useEffect(() => {
    void loadModel().catch((error: unknown) => reportError(error, 'Could not read the model settings'));
    void loadLocalModels().catch((error: unknown) => reportError(error, 'Could not read the local models'));
  }, [loadModel, loadLocalModels, reportError]);

  return (
    <section className="panel" aria-label="Model">
      <header className="panel-header">
        <h2>Model</h2>
        <button className="ghost small" data-testid="open-model-settings" onClick={() => setOpen(true)}>
          {model?.settings || local ? 'Settings' : 'Set up'}
        </button>
      </header>
      <p className="model-summary" data-testid="model-summary">
        {local ? (
          <>
            <span className="list-title">{local.name}</span>
            <span className="list-meta">local model · {local.state === 'loaded' ? 'loaded' : 'loads on the first run'}</span>
          </>
        ) : model?.settings ? (
          <>
            <span className="list-title">{model.settings.model}</span>
            <span className="list-meta">{model.settings.baseUrl}</span>
          </>
        ) : (
          <span className="list-meta">No model yet: set up an OpenAI-compatible endpoint to run decision makers.</span>
        )}
      </p>
      {open && <ModelSettingsDialog onClose={() => setOpen(false)} />}
    </section>
  );
}
