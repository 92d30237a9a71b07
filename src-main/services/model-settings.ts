import { urlHasCredentials, type ModelSettingsView, type ProviderSettings } from '../contract/model';
import { localModelPreset, providerPresets } from '../llm/presets';
import { parseProviderSettings } from '../llm/settings';
import type { SecretStore } from '../secrets/secret-store';
import type { AppDatabase } from '../workspace/app-database';

const settingsKey = 'model-settings';
const apiKeySecret = 'model-api-key';
/** Query parameters that carry a key in the APIs people paste URLs from (OpenAI proxies, Gemini, Azure). */
const keyLikeParameter = /^(api[-_]?key|key|access[-_]?token|token|auth|subscription[-_]key)$/i;

/**
 * The model endpoint of the workspace: settings in the database, the API key in the secret store.
 * A base URL never holds credentials (the contract refuses them); one stored by an older version
 * is cleaned when the workspace opens.
 */
export class ModelSettingsStore {
  /** What the clean-up on opening did, shown with the settings until the app stops; null when nothing. */
  private readonly cleanedNotice: string | null;

  constructor(
    private readonly database: AppDatabase,
    private readonly secrets: SecretStore,
  ) {
    this.cleanedNotice = this.cleanStoredBaseUrl();
  }

  /**
   * Older versions stored the base URL as typed, credentials included: `http://user:secret@host/v1`,
   * `…/v1?api_key=…`, `…#…`. The user info, the query and the fragment are removed; a password or
   * user name, or the value of a key-like parameter (api_key, key, token, …), moves into the secret
   * store as the API key unless one is there already. The old row is overwritten with zeros and the
   * write-ahead log emptied, so the secret leaves the file. Returns the note the settings show.
   */
  private cleanStoredBaseUrl(): string | null {
    const stored = this.database.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(settingsKey) as string | undefined;
    if (stored === undefined) return null;
    let settings: Record<string, unknown>;
    try {
      settings = JSON.parse(stored) as Record<string, unknown>;
    } catch {
      return null;
    }
    if (typeof settings.baseUrl !== 'string' || !urlHasCredentials(settings.baseUrl)) return null;
    const url = new URL(settings.baseUrl);
    const removed = [url.username !== '' || url.password !== '' ? 'a user name or password' : null, settings.baseUrl.includes('?') ? 'a query string' : null, settings.baseUrl.includes('#') ? 'a fragment' : null].filter(Boolean);
    const keyParameter = [...url.searchParams.keys()].find((name) => keyLikeParameter.test(name));
    const inUserInfo = url.password !== '' || url.username !== '';
    const credential = inUserInfo ? decodeURIComponent(url.password || url.username) : keyParameter ? url.searchParams.get(keyParameter) : null;
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    const cleanUrl = url.toString();
    const moved = credential !== null && credential !== '' && this.secrets.get(apiKeySecret) === null;
    if (moved) this.secrets.set(apiKeySecret, credential);
    const secureDelete = this.database.pragma('secure_delete', { simple: true }) as number;
    this.database.pragma('secure_delete = ON');
    try {
      this.database.prepare('UPDATE settings SET value = ? WHERE key = ?').run(JSON.stringify({ ...settings, baseUrl: cleanUrl }), settingsKey);
    } finally {
      this.database.pragma(`secure_delete = ${secureDelete}`);
    }
    this.database.pragma('wal_checkpoint(TRUNCATE)');
    const what = removed.join(' and ').replace(/ and (?=.* and )/, ', ');
    const where = keyParameter && !inUserInfo ? ` (its "${keyParameter}" parameter)` : '';
    return `The stored base URL held ${what}, which could be a key: removed from the workspace, the base URL is now ${cleanUrl.replace(/\/$/, '')}.${moved ? ` The credential${where} is kept as the API key in the secret store.` : ' Give the key as the API key if the server needs one.'}`;
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
      ...(this.cleanedNotice ? { notice: this.cleanedNotice } : {}),
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
