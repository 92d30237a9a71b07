import { useState } from 'react';
import type { LocalModel } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';

function formatSize(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GB` : `${Math.round(bytes / 1024 ** 2)} MB`;
}

/**
 * The model manager: GGUF files added from disk (never downloaded), what their headers say,
 * loading with a progress bar, unloading, removing from the list (the file stays), and which
 * one decision runs use.
 */
export function LocalModelsPanel({ chosenId, onChoose, onError }: { chosenId: string | null; onChoose(id: string): void; onError(message: string | null): void }) {
  const view = useWorkbench((state) => state.localModels);
  const canBrowse = useWorkbench((state) => state.localModelsCanBrowse);
  const add = useWorkbench((state) => state.addLocalModel);
  const browse = useWorkbench((state) => state.browseLocalModel);
  const remove = useWorkbench((state) => state.removeLocalModel);
  const load = useWorkbench((state) => state.loadLocalModel);
  const unload = useWorkbench((state) => state.unloadLocalModel);
  const [path, setPath] = useState('');
  const [threads, setThreads] = useState('');
  const [contextSize, setContextSize] = useState('');

  const attempt = (work: () => Promise<void>): void => {
    onError(null);
    work().catch((caught: unknown) => onError(caught instanceof Error ? caught.message : String(caught)));
  };
  const loadOptions = (): { threads?: number; contextSize?: number } => ({
    ...(Number(threads) > 0 ? { threads: Math.round(Number(threads)) } : {}),
    ...(Number(contextSize) >= 256 ? { contextSize: Math.round(Number(contextSize)) } : {}),
  });

  return (
    <div className="local-models" data-testid="local-models">
      <p className="hint">
        A GGUF model file on this computer, run by the workbench itself in its own process. The app never downloads a model: get one from a model hub, or
        see the README.
      </p>
      <div className="form-row">
        <input aria-label="GGUF file path" placeholder="/path/to/model.gguf" value={path} onChange={(event) => setPath(event.target.value)} />
        {canBrowse && (
          <button type="button" className="ghost small" onClick={() => attempt(async () => setPath((await browse()) ?? path))}>
            Browse…
          </button>
        )}
        <button
          type="button"
          className="small"
          data-testid="add-local-model"
          disabled={path.trim() === ''}
          onClick={() =>
            attempt(async () => {
              await add(path.trim());
              setPath('');
            })
          }
        >
          Add
        </button>
      </div>
      <div className="form-row">
        <label>
          Threads
          <input aria-label="Threads" type="number" min={1} placeholder="auto" value={threads} onChange={(event) => setThreads(event.target.value)} />
        </label>
        <label>
          Context size
          <input aria-label="Context size" type="number" min={256} placeholder="the model's, at most 8192" value={contextSize} onChange={(event) => setContextSize(event.target.value)} />
        </label>
      </div>
      {view && view.models.length === 0 && <p className="list-meta">No model files yet.</p>}
      <ul className="local-model-list">
        {view?.models.map((model) => (
          <LocalModelRow
            key={model.id}
            model={model}
            chosen={model.id === chosenId}
            onChoose={() => onChoose(model.id)}
            onLoad={() => attempt(() => load(model.id, loadOptions()))}
            onUnload={() => attempt(unload)}
            onRemove={() => attempt(() => remove(model.id))}
          />
        ))}
      </ul>
    </div>
  );
}

function LocalModelRow(props: { model: LocalModel; chosen: boolean; onChoose(): void; onLoad(): void; onUnload(): void; onRemove(): void }) {
  const { model } = props;
  return (
    <li className={`local-model ${props.chosen ? 'chosen' : ''}`} data-testid="local-model">
      <label className="checkbox">
        <input type="radio" name="local-model" aria-label={`Use ${model.name}`} checked={props.chosen} onChange={props.onChoose} />
        <span className="list-title">{model.name}</span>
      </label>
      <span className="list-meta" data-testid="local-model-meta">
        {formatSize(model.sizeBytes)} · {model.architecture} · {model.quantization} · context {model.contextLength ?? 'unknown'} ·{' '}
        <span title={model.chatTemplate ?? undefined}>{model.chatTemplate ? 'chat template' : 'no chat template (a base model)'}</span>
      </span>
      <span className="list-meta">{model.path}</span>
      {model.state === 'loading' && <progress data-testid="local-model-progress" aria-label={`Loading ${model.name}`} max={1} value={model.progress ?? 0} />}
      <span className="list-meta" data-testid="local-model-state">
        {model.state === 'loaded' && model.loaded
          ? `Loaded in ${(model.loaded.loadMs / 1000).toFixed(1)} s · ${model.loaded.threads} threads${model.loaded.threadsAuto ? ` (auto: ${threadRatesText(model.loaded.threadRates)})` : ''} · context ${model.loaded.contextSize} · ${model.loaded.gpu ? `GPU (${model.loaded.gpu})` : 'CPU'}`
          : model.state === 'loading'
            ? 'Loading…'
            : 'Not loaded'}
      </span>
      <span className="button-row">
        {model.state === 'loaded' ? (
          <button type="button" className="ghost small" onClick={props.onUnload}>
            Unload
          </button>
        ) : (
          <button type="button" className="ghost small" disabled={model.state === 'loading'} onClick={props.onLoad}>
            Load
          </button>
        )}
        <button type="button" className="ghost small" onClick={props.onRemove}>
          Remove from list
        </button>
      </span>
    </li>
  );
}

/** The measured rates an automatic thread choice was made from: `1: 28.1, 2: 7.4 tokens/s`. */
function threadRatesText(rates: Record<string, number>): string {
  return `${Object.entries(rates)
    .map(([count, rate]) => `${count}: ${rate}`)
    .join(', ')} tokens/s`;
}
