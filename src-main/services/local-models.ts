import { resolve } from 'node:path';
import { WorkbenchError } from '../contract/errors';
import type { LocalModel, LocalModelsView } from '../contract/local-models';
import { createLocalModelProvider, type LocalModelProvider } from '../llm/local/local-provider';
import { defaultThreads, type LocalModelSettings } from '../llm/local/local-settings';
import type { GgufModelInfo } from '../llm/local/model-file';
import { readModelInfoOffThread } from '../llm/local/model-header';
import type { ModelProcessLauncher, ThreadChoice } from '../llm/local/protocol';
import type { AppDatabase } from '../workspace/app-database';
import type { Environment } from '../workspace/clock';

const selectedKey = 'local-model-selected';

interface Row {
  id: string;
  path: string;
  info: string;
  added_at: string;
}

/**
 * The model manager: the list of GGUF files (in the workspace database), and the one model
 * loaded at a time, in its own process. Runs use the selected model, loading it on their first
 * call if it is not loaded yet.
 */
export class LocalModelManager {
  private active: { id: string; provider: LocalModelProvider } | null = null;
  private progress: { id: string; value: number } | null = null;

  constructor(
    private readonly dependencies: {
      database: AppDatabase;
      environment: Environment;
      /** The Electron utility-process launcher in the app; a forked child process otherwise. */
      launch?: ModelProcessLauncher;
      onProgress(id: string, progress: number): void;
    },
  ) {}

  view(): LocalModelsView {
    return { models: this.rows().map((row) => this.toModel(row)), selectedId: this.selectedId(), defaultThreads: defaultThreads() };
  }

  async add(path: string): Promise<LocalModelsView> {
    const absolute = resolve(path.trim());
    const existing = this.rows().find((row) => row.path === absolute);
    if (existing) throw new WorkbenchError('conflict', `${absolute} is already in the list`);
    // Refuses a file that is not GGUF or whose architecture llama.cpp does not know, with the reason;
    // read in a worker thread, so a hostile header cannot stall the other clients.
    const info = await readModelInfoOffThread(absolute);
    this.dependencies.database
      .prepare('INSERT INTO local_models (id, path, info, added_at) VALUES (?, ?, ?, ?)')
      .run(this.dependencies.environment.newId(), absolute, JSON.stringify(info), this.dependencies.environment.now());
    return this.view();
  }

  async remove(id: string): Promise<LocalModelsView> {
    this.row(id);
    if (this.active?.id === id) await this.unload();
    if (this.selectedId() === id) this.select(null);
    this.dependencies.database.prepare('DELETE FROM local_models WHERE id = ?').run(id);
    return this.view();
  }

  async load(id: string, options: { threads?: number; contextSize?: number } = {}): Promise<LocalModelsView> {
    const row = this.row(id);
    await this.unload();
    const provider = createLocalModelProvider(
      { modelPath: row.path, ...(options.threads ? { threads: options.threads } : {}), ...(options.contextSize ? { contextSize: options.contextSize } : {}) },
      this.dependencies.launch ? { launch: this.dependencies.launch } : {},
    );
    this.active = { id, provider };
    this.progress = { id, value: 0 };
    try {
      await provider.load({
        onProgress: (value) => {
          this.progress = { id, value };
          this.dependencies.onProgress(id, value);
        },
      });
    } catch (error) {
      if (this.active?.id === id) this.active = null;
      throw error;
    } finally {
      if (this.progress?.id === id) this.progress = null;
    }
    return this.view();
  }

  async unload(): Promise<LocalModelsView> {
    const active = this.active;
    this.active = null;
    await active?.provider.unload();
    return this.view();
  }

  select(id: string | null): LocalModelsView {
    if (id !== null) this.row(id);
    this.dependencies.database
      .prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
      .run(selectedKey, JSON.stringify(id));
    return this.view();
  }

  /** The provider runs use, or null when runs use the HTTP endpoint. Loads the model on its first call. */
  providerForRuns(): { provider: LocalModelProvider; settings: LocalModelSettings; contextTokens: number | null; threads: () => Promise<ThreadChoice> } | null {
    const id = this.selectedId();
    if (id === null) return null;
    if (this.active?.id !== id) {
      const row = this.row(id);
      void this.active?.provider.unload();
      this.active = { id, provider: createLocalModelProvider({ modelPath: row.path }, this.dependencies.launch ? { launch: this.dependencies.launch } : {}) };
    }
    const { provider } = this.active;
    // The window runs keep their prompts inside: the loaded model's, else the one it will load with (if set).
    return {
      provider,
      settings: provider.settings,
      contextTokens: provider.loaded()?.contextSize ?? provider.settings.contextSize ?? null,
      threads: async () => (await provider.load()).threadChoice,
    };
  }

  async close(): Promise<void> {
    await this.unload();
  }

  private selectedId(): string | null {
    const stored = this.dependencies.database.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(selectedKey) as string | undefined;
    const id = stored ? (JSON.parse(stored) as string | null) : null;
    return id !== null && this.rows().some((row) => row.id === id) ? id : null;
  }

  private rows(): Row[] {
    return this.dependencies.database.prepare('SELECT id, path, info, added_at FROM local_models ORDER BY added_at, id').all() as Row[];
  }

  private row(id: string): Row {
    const row = this.rows().find((candidate) => candidate.id === id);
    if (!row) throw new WorkbenchError('not-found', `No local model ${id} in the list`);
    return row;
  }

  private toModel(row: Row): LocalModel {
    const info = JSON.parse(row.info) as GgufModelInfo;
    const isActive = this.active?.id === row.id;
    const loaded = isActive ? this.active!.provider.loaded() : null;
    const loading = isActive && !loaded && this.progress?.id === row.id;
    return {
      id: row.id,
      path: row.path,
      name: info.name,
      sizeBytes: info.sizeBytes,
      architecture: info.architecture,
      quantization: info.quantization,
      contextLength: info.contextLength,
      chatTemplate: info.chatTemplate,
      addedAt: row.added_at,
      state: loaded ? 'loaded' : loading ? 'loading' : 'unloaded',
      progress: loading ? (this.progress?.value ?? 0) : null,
      loaded: loaded ? { contextSize: loaded.contextSize, threads: loaded.threads, threadsAuto: loaded.threadChoice.auto, threadRates: loaded.threadChoice.measured, gpu: loaded.gpu, loadMs: loaded.loadMs } : null,
    };
  }
}
