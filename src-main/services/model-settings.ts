import type { ModelSettingsView, ProviderSettings } from '../contract/model';
import { localModelPreset, providerPresets } from '../llm/presets';
import { parseProviderSettings } from '../llm/settings';
import type { SecretStore } from '../secrets/secret-store';
import type { AppDatabase } from '../workspace/app-database';

const settingsKey = 'model-settings';
const apiKeySecret = 'model-api-key';

/** The model endpoint of the workspace: settings in the database, the API key in the secret store. */
export class ModelSettingsStore {
  constructor(
    private readonly database: AppDatabase,
    private readonly secrets: SecretStore,
  ) {}

  view(): ModelSettingsView {
    const stored = this.database.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(settingsKey) as string | undefined;
    const settings = stored ? (() => {
      const { apiKey: _key, ...rest } = parseProviderSettings(JSON.parse(stored));
      return rest;
    })() : null;
    return {
      settings,
      hasApiKey: this.secrets.get(apiKeySecret) !== null,
      secretsPersistent: this.secrets.persistent,
      presets: [
        ...providerPresets.map((preset) => ({
          id: preset.id,
          kind: 'endpoint' as const,
          label: preset.label,
          baseUrl: preset.defaults.baseUrl,
          exampleModel: preset.exampleModel,
          requiresApiKey: preset.requiresApiKey,
          note: preset.note,
        })),
        // The model the workbench runs itself: chosen in the model manager, no URL.
        { ...localModelPreset, kind: 'local' as const, baseUrl: '', exampleModel: '', requiresApiKey: false },
      ],
    };
  }

  save(settings: Omit<ProviderSettings, 'apiKey'>, apiKey: string | undefined): ModelSettingsView {
    const { apiKey: _ignored, ...clean } = parseProviderSettings(settings);
    this.database
      .prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
      .run(settingsKey, JSON.stringify(clean));
    if (apiKey === '') this.secrets.delete(apiKeySecret);
    else if (apiKey !== undefined) this.secrets.set(apiKeySecret, apiKey);
    return this.view();
  }

  /** The full settings for a provider, key included; null until the analyst configures a model. */
  resolved(): ProviderSettings | null {
    const { settings } = this.view();
    if (!settings) return null;
    const apiKey = this.secrets.get(apiKeySecret);
    return { ...settings, ...(apiKey ? { apiKey } : {}) };
  }

  /** Settings being tried out in the form, with the stored key unless a new one was typed. */
  withKey(settings: Omit<ProviderSettings, 'apiKey'>, apiKey: string | undefined): ProviderSettings {
    const key = apiKey === undefined ? this.secrets.get(apiKeySecret) : apiKey;
    return { ...parseProviderSettings(settings), ...(key ? { apiKey: key } : {}) };
  }
}
