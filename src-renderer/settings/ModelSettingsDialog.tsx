import { useRef, useState } from 'react';
import type { ConnectionReport } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { useDialogKeys } from '../ui/use-dialog-keys';
import type { ModelSettingsForm } from '../state/runs-slice';
import { DialogFooter, useDialogAction } from '../ui/DialogFooter';
import { LocalModelsPanel } from './LocalModelsPanel';

const blank: ModelSettingsForm = {
  baseUrl: 'http://127.0.0.1:11434/v1',
  model: '',
  temperature: 0.2,
  maxTokens: 2048,
  requestTimeoutMs: 120_000,
  maxRetries: 2,
  stream: true,
  toolMode: 'auto',
};

/**
 * The model decision runs use: an OpenAI-compatible endpoint (presets, fields, a connection
 * test) or a local GGUF model from the model manager (the "Local model" preset).
 */
export function ModelSettingsDialog({ onClose }: { onClose(): void }) {
  const model = useWorkbench((state) => state.model);
  const saveModel = useWorkbench((state) => state.saveModel);
  const testModel = useWorkbench((state) => state.testModel);
  const localModels = useWorkbench((state) => state.localModels);
  const selectLocalModel = useWorkbench((state) => state.selectLocalModel);
  const [form, setForm] = useState<ModelSettingsForm>(model?.settings ?? blank);
  const [apiKey, setApiKey] = useState<string | undefined>(undefined);
  const [report, setReport] = useState<ConnectionReport | null>(null);
  const [source, setSource] = useState<'endpoint' | 'local'>(localModels?.selectedId ? 'local' : 'endpoint');
  const [chosenLocal, setChosenLocal] = useState<string | null>(localModels?.selectedId ?? null);
  const { busy, error, setError, attempt } = useDialogAction();
  const dialogElement = useRef<HTMLDivElement>(null);
  useDialogKeys(dialogElement, onClose);

  // What Test connection found out about structured output belongs to one endpoint and model.
  const update = (change: Partial<ModelSettingsForm>): void => {
    const endpointChanged = (change.baseUrl !== undefined && change.baseUrl !== form.baseUrl) || (change.model !== undefined && change.model !== form.model);
    const { structuredOutput: _known, ...rest } = form;
    setForm({ ...(endpointChanged ? rest : form), ...change });
  };

  return (
    <div className="dialog-backdrop" role="presentation" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div ref={dialogElement} className="dialog" role="dialog" aria-modal="true" aria-label="Model settings" data-testid="model-settings">
        <header className="dialog-header">
          <h2>Model</h2>
          <button className="icon" aria-label="Close" onClick={onClose}>
            ✕
          </button>
        </header>
        <p className="hint">
          Any OpenAI-compatible server: a local one (Ollama, LM Studio, llama.cpp, vLLM) or your company’s; or a local model file the workbench runs itself.
        </p>
        <div className="preset-row">
          {model?.presets.map((preset) => (
            <button
              key={preset.id}
              className="ghost small"
              title={preset.note}
              data-testid={`preset-${preset.id}`}
              aria-pressed={preset.kind === 'local' ? source === 'local' : source === 'endpoint' && form.baseUrl === preset.baseUrl}
              onClick={() => {
                if (preset.kind === 'local') return setSource('local');
                setSource('endpoint');
                update({ baseUrl: preset.baseUrl, model: form.model || preset.exampleModel });
              }}
            >
              {preset.label}
            </button>
          ))}
        </div>
        {source === 'local' ? (
          <LocalModelsPanel chosenId={chosenLocal} onChoose={setChosenLocal} onError={setError} />
        ) : (
          <>
          <div className="form-grid">
            <label>
              Base URL
              <input aria-label="Base URL" value={form.baseUrl} onChange={(event) => update({ baseUrl: event.target.value })} />
            </label>
            <label>
              Model
              <input aria-label="Model" value={form.model} placeholder="e.g. qwen2.5:7b-instruct" onChange={(event) => update({ model: event.target.value })} />
            </label>
            <label>
              API key
              <input
                aria-label="API key"
                type="password"
                autoComplete="off"
                value={apiKey ?? ''}
                placeholder={model?.hasApiKey ? 'stored — type to replace' : 'none (local servers need none)'}
                onChange={(event) => setApiKey(event.target.value)}
              />
            </label>
            <label>
              Tool calling
              <select aria-label="Tool calling" value={form.toolMode} onChange={(event) => update({ toolMode: event.target.value as ModelSettingsForm['toolMode'] })}>
                <option value="auto">Auto-detect</option>
                <option value="tools">Native tool calls</option>
                <option value="text">Plain-text protocol</option>
              </select>
            </label>
            <label>
              Temperature
              <input aria-label="Temperature" type="number" step={0.1} min={0} max={2} value={form.temperature} onChange={(event) => update({ temperature: Number(event.target.value) })} />
            </label>
            <label>
              Max tokens per reply
              <input aria-label="Max tokens" type="number" min={1} value={form.maxTokens} onChange={(event) => update({ maxTokens: Number(event.target.value) })} />
            </label>
            <label>
              Request timeout (s)
              <input
                aria-label="Request timeout"
                type="number"
                min={1}
                value={Math.round((form.requestTimeoutMs ?? 120_000) / 1000)}
                onChange={(event) => update({ requestTimeoutMs: Math.max(1, Number(event.target.value)) * 1000 })}
              />
            </label>
            <label>
              Retries
              <input aria-label="Retries" type="number" min={0} max={10} value={form.maxRetries} onChange={(event) => update({ maxRetries: Number(event.target.value) })} />
            </label>
            <label className="checkbox">
              <input type="checkbox" checked={form.stream ?? true} onChange={(event) => update({ stream: event.target.checked })} /> Stream tokens
            </label>
          </div>
          {model?.notice && (
            <p className="warning" role="note" data-testid="model-settings-notice">
              {model.notice}
            </p>
          )}
          {model && !model.secretsPersistent && (
            <p className="warning" role="note">
              This mode has no secure key store: an API key is kept in memory only and must be entered again after a restart.
            </p>
          )}
          {report && (
            <div className={`test-report ${report.ok ? 'ok' : 'failed'}`} data-testid="model-test-report" role="status">
              <strong>{report.ok ? 'Connected' : 'Not working'}</strong> {report.message}
              {report.ok && (
                <span>
                  {' '}
                  · {Math.round(report.latencyMs)} ms · tool calling: {report.supportsTools === 'unknown' ? 'unknown' : report.supportsTools ? 'yes' : 'no'}
                </span>
              )}
            </div>
          )}
          </>
        )}
        {source === 'local' ? (
          <DialogFooter
            error={error}
            busy={busy}
            saveLabel="Use for runs"
            saveDisabled={!localModels?.models.some((local) => local.id === chosenLocal)}
            saveHint={localModels?.models.length ? 'Choose a model in the list to use it for runs' : 'Add a GGUF model file above first'}
            saveId="save-model"
            onSave={() =>
              void attempt('saving', async () => {
                await selectLocalModel(chosenLocal);
                onClose();
              })
            }
            onClose={onClose}
          />
        ) : (
          <DialogFooter
            error={error}
            busy={busy}
            testLabel="Test connection"
            saveLabel="Save"
            saveDisabled={form.model.trim() === ''}
            saveHint="Name the model to save"
            testId="test-model"
            saveId="save-model"
            onTest={() =>
              void attempt('testing', async () => {
                const tested = await testModel(form, apiKey);
                setReport(tested);
                // Remembered with the endpoint when saved: runs ask for structured output only where it works.
                if (tested.structuredOutput) setForm({ ...form, structuredOutput: tested.structuredOutput });
              })
            }
            onSave={() =>
              void attempt('saving', async () => {
                await saveModel(form, apiKey);
                if (localModels?.selectedId) await selectLocalModel(null);
                onClose();
              })
            }
            onClose={onClose}
          />
        )}
      </div>
    </div>
  );
}
