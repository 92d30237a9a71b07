import { chmodSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyFingerprint, signatureMatches } from '../../../src-main/audit/signing';
import { fileKeyStore, secretKeyStore } from '../../../src-main/secrets/analyst-key';
import { encryptedSecretStore } from '../../../src-main/secrets/secret-store';
import { openAppDatabase } from '../../../src-main/workspace/app-database';
import { useTempDirs } from '../../support/temp';
import { testEncryptor } from '../../support/test-encryptor';


describe('the analyst signing key', () => {
  const temp = useTempDirs();

  it('as files: a 0600 PKCS#8 private key and a public description, loaded back as the same signer', () => {
    const directory = join(temp(), 'keys');
    const store = fileKeyStore(directory);
    expect(store.load()).toBeNull();
    const created = store.create('  Ada Analyst ');
    expect(created.name).toBe('Ada Analyst');
    expect(created.fingerprint).toBe(keyFingerprint(created.publicKey));
    expect(statSync(join(directory, 'analyst-key.pem')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(directory, 'analyst-key.pem'), 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const loaded = store.load();
    expect(loaded && { name: loaded.name, fingerprint: loaded.fingerprint }).toEqual({ name: 'Ada Analyst', fingerprint: created.fingerprint });
    expect(signatureMatches(created.publicKey, 'a'.repeat(64), loaded?.signHash('a'.repeat(64)) ?? '')).toBe(true);
    expect(() => store.create('Ada Analyst')).toThrow(/^There already is a signing key at /);
  });

  it('refuses a private key file other users can read, and a name that is not one line', () => {
    const directory = join(temp(), 'keys');
    const store = fileKeyStore(directory);
    expect(() => store.create('Ada\nAnalyst')).toThrow('A signing key needs the analyst’s name: 1 to 200 characters, on one line');
    expect(readdirSync(temp())).toEqual([]);
    store.create('Ada Analyst');
    chmodSync(join(directory, 'analyst-key.pem'), 0o644);
    expect(() => store.load()).toThrow(`The signing key ${join(directory, 'analyst-key.pem')} can be read by other users (mode 0644): run chmod 600 on it`);
  });

  it('in the OS key store: only ciphertext reaches the workspace database', () => {
    const workspace = temp();
    const database = openAppDatabase(workspace);
    const store = secretKeyStore(encryptedSecretStore(database, testEncryptor()));
    const created = store.create('Ada Analyst');
    expect(store.load()?.fingerprint).toBe(created.fingerprint);
    const stored = database.prepare('SELECT value FROM secrets').all() as { value: Buffer }[];
    database.close();
    expect(stored).toHaveLength(1);
    expect(stored[0]?.value.toString('latin1')).not.toContain('PRIVATE KEY');
    const files = readdirSync(workspace).map((name) => readFileSync(join(workspace, name)).toString('latin1'));
    for (const bytes of files) expect(bytes).not.toContain('BEGIN PRIVATE KEY');
    expect(created.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });
});
