import { testProviderConnection } from '../llm/test-connection';
import type { LocalModelManager } from './local-models';
import type { ModelSettingsStore } from './model-settings';
import type { HandlersFor } from './router';

/** The `model/*` and `local-models/*` requests: the model endpoint's settings and the local GGUF models. */
export function modelHandlers(dependencies: { modelSettings: ModelSettingsStore; localModels: LocalModelManager }): HandlersFor<'model/' | 'local-models/'> {
  const { modelSettings, localModels } = dependencies;
  return {
    'model/get': () => modelSettings.view(),
    'model/save': ({ settings, apiKey }) => modelSettings.save(settings, apiKey),
    'model/test': ({ settings, apiKey }) => testProviderConnection(modelSettings.withKey(settings, apiKey)),

    'local-models/list': () => localModels.view(),
    'local-models/add': ({ path }) => localModels.add(path),
    'local-models/remove': ({ id }) => localModels.remove(id),
    'local-models/load': ({ id, threads, contextSize }) => localModels.load(id, { ...(threads ? { threads } : {}), ...(contextSize ? { contextSize } : {}) }),
    'local-models/unload': () => localModels.unload(),
    'local-models/select': ({ id }) => localModels.select(id),
  };
}
