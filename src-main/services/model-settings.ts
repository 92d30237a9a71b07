import { urlHasCredentials, type ModelSettingsView, type ProviderSettings } from '../contract/model';
import { localModelPreset, providerPresets } from '../llm/presets';
import { parseProviderSettings } from '../llm/settings';
import type { SecretStore } from '../secrets/secret-store';
import type { AppDatabase } from '../workspace/app-database';

const settingsKey = 'model-settings';
const apiKeySecret = 'model-api-key';

/**
 * The model endpoint of the workspace: settings in the database, the API key in the secret store.
 * A base URL never holds credentials (the contract refuses them); one stored by an older version
 * is cleaned when the workspace opens.
 */
export class ModelSettingsStore {
  constructor(
    private readonly database: AppDatabase,
    private readonly secrets: SecretStore,
  ) {
    this.moveUrlCredentialsToSecrets();
  }

  /**
   * Older versions stored `http://user:secret@host/v1` as typed. The credential moves into the
   * secret store as the API key (unless a key is already there) and the settings keep the bare
   * URL; the old row is overwritten with zeros and the write-ahead log emptied, so the secret
   * leaves the file.
   */
  private moveUrlCredentialsToSecrets(): void {
    const stored = this.database.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(settingsKey) as string | undefined;
    if (stored === undefined) return;
    let settings: Record<string, unknown>;
    try {
      settings = JSON.parse(stored) as Record<string, unknown>;
    } catch {
      return;
    }
    if (typeof settings.baseUrl !== 'string' || !urlHasCredentials(settings.baseUrl)) return;
    const url = new URL(settings.baseUrl);
    const credential = decodeURIComponent(url.password || url.username);
    url.username = '';
    url.password = '';
    if (this.secrets.get(apiKeySecret) === null) this.secrets.set(apiKeySecret, credential);
    const secureDelete = this.database.pragma('secure_delete', { simple: true }) as number;
    this.database.pragma('secure_delete = ON');
    try {
      this.database.prepare('UPDATE settings SET value = ? WHERE key = ?').run(JSON.stringify({ ...settings, baseUrl: url.toString() }), settingsKey);
    } finally {
      this.database.pragma(`secure_delete = ${secureDelete}`);
    }
    this.database.pragma('wal_checkpoint(TRUNCATE)');
  }

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
