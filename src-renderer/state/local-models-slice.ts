import type { LocalModelsView } from '../../src-main/contract';
import type { SliceContext } from './store';

export interface LocalModelsSlice {
  /** The model manager's list; null until first read. */
  localModels: LocalModelsView | null;
  /** Whether a native file picker exists (the desktop app), or a path must be typed (browser mode). */
  localModelsCanBrowse: boolean;
  loadLocalModels(): Promise<void>;
  addLocalModel(path: string): Promise<void>;
  browseLocalModel(): Promise<string | null>;
  removeLocalModel(id: string): Promise<void>;
  loadLocalModel(id: string, options: { threads?: number; contextSize?: number }): Promise<void>;
  unloadLocalModel(): Promise<void>;
  selectLocalModel(id: string | null): Promise<void>;
}

export function createLocalModelsSlice({ client, set, get }: SliceContext): LocalModelsSlice {
  // Progress arrives while `local-models/load` is still running: shown on the model's row.
  client.on('local-model-progress', ({ id, progress }) => {
    const view = get().localModels;
    if (!view) return;
    set({ localModels: { ...view, models: view.models.map((model) => (model.id === id ? { ...model, state: 'loading', progress } : model)) } });
  });
  return {
    localModels: null,
    localModelsCanBrowse: false,
    loadLocalModels: async () => {
      const [view, info] = await Promise.all([client.invoke('local-models/list', {}), client.invoke('workspace/info', {})]);
      set({ localModels: view, localModelsCanBrowse: info.transport === 'ipc' });
    },
    addLocalModel: async (path) => set({ localModels: await client.invoke('local-models/add', { path }) }),
    browseLocalModel: async () => (await client.invoke('dialog/open-file', { title: 'GGUF model', extensions: ['gguf'] })).path,
    removeLocalModel: async (id) => set({ localModels: await client.invoke('local-models/remove', { id }) }),
    loadLocalModel: async (id, options) => {
      const view = get().localModels;
      if (view) set({ localModels: { ...view, models: view.models.map((model) => (model.id === id ? { ...model, state: 'loading', progress: 0 } : model)) } });
      try {
        set({ localModels: await client.invoke('local-models/load', { id, ...options }) });
      } catch (error) {
        set({ localModels: await client.invoke('local-models/list', {}) });
        throw error;
      }
    },
    unloadLocalModel: async () => set({ localModels: await client.invoke('local-models/unload', {}) }),
    selectLocalModel: async (id) => set({ localModels: await client.invoke('local-models/select', { id }) }),
  };
}
