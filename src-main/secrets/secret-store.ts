import type { AppDatabase } from '../workspace/app-database';

/**
 * Where API keys and database passwords live. Never in plain text on disk: the desktop app
 * encrypts them with the operating system's key store (Electron safeStorage); browser mode,
 * which has no such store, keeps them in memory for the life of the server only.
 */
export interface SecretStore {
  /** True when secrets survive a restart (encrypted on disk). */
  readonly persistent: boolean;
  get(key: string): string | null;
  set(key: string, value: string): void;
  delete(key: string): void;
}

export function memorySecretStore(): SecretStore {
  const values = new Map<string, string>();
  return {
    persistent: false,
    get: (key) => values.get(key) ?? null,
    set: (key, value) => void values.set(key, value),
    delete: (key) => void values.delete(key),
  };
}

/** An encryptor such as Electron's safeStorage. */
export interface Encryptor {
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

/** Secrets encrypted by the OS key store and kept, as ciphertext only, in the workspace database. */
export function encryptedSecretStore(database: AppDatabase, encryptor: Encryptor): SecretStore {
  return {
    persistent: true,
    get: (key) => {
      const row = database.prepare('SELECT value FROM secrets WHERE key = ?').get(key) as { value: Buffer } | undefined;
      return row ? encryptor.decryptString(row.value) : null;
    },
    set: (key, value) => {
      database.prepare('INSERT INTO secrets (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, encryptor.encryptString(value));
    },
    delete: (key) => void database.prepare('DELETE FROM secrets WHERE key = ?').run(key),
  };
}
