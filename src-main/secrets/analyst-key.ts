import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newPrivateKeyPem, signerFromPem, type Signer } from '../audit/signing';
import { WorkbenchError } from '../contract/errors';
import type { SecretStore } from './secret-store';
import { systemKeyring } from './system-keyring';

/**
 * The analyst's Ed25519 signing key and the name registered with it. The private key never goes
 * into a report, a bundle or the workspace database in plain text:
 * - the desktop app keeps it in the OS key store (Electron safeStorage, through SecretStore);
 * - the CLI and browser mode keep it in the system keyring (the Secret Service, through
 *   system-keyring.ts) where there is one; elsewhere (no desktop session, macOS, Windows,
 *   DWB_KEYRING=off) it is a PKCS#8 PEM file readable by the user only (mode 0600) in the
 *   user's config folder, not in any workspace, like an SSH key. That file is not encrypted:
 *   whoever can read the user's files can sign as them. A key already kept in that file stays
 *   there (it is never moved behind the user's back).
 */
export interface AnalystKeyStore {
  /** Where the private key is kept, for messages. */
  readonly location: string;
  load(): Signer | null;
  /** Makes the key, registered to `name`; refuses when there already is one. */
  create(name: string): Signer;
}

/** The public half as a file others add to their trusted keys (`dwb keys export`). */
export const publicKeyFileFormat = 'decision-workbench/public-key';

export interface PublicKeyFile {
  format: typeof publicKeyFileFormat;
  version: 1;
  name: string;
  fingerprint: string;
  /** base64 DER SubjectPublicKeyInfo. */
  publicKey: string;
}

export function publicKeyFile(signer: Signer): PublicKeyFile {
  return { format: publicKeyFileFormat, version: 1, name: signer.name, fingerprint: signer.fingerprint, publicKey: signer.publicKey };
}

function checkedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 200 || /\p{Cc}/u.test(trimmed)) throw new WorkbenchError('invalid-request', 'A signing key needs the analyst’s name: 1 to 200 characters, on one line');
  return trimmed;
}

/** The key as files in `directory`: analyst-key.pem (private, 0600) and analyst-key.json (public). */
export function fileKeyStore(directory: string): AnalystKeyStore {
  const privatePath = join(directory, 'analyst-key.pem');
  const publicPath = join(directory, 'analyst-key.json');
  return {
    location: privatePath,
    load: () => {
      if (!existsSync(privatePath)) return null;
      if (process.platform !== 'win32') {
        const mode = statSync(privatePath).mode & 0o777;
        if (mode & 0o077) throw new WorkbenchError('invalid-request', `The signing key ${privatePath} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}): run chmod 600 on it`);
      }
      let info: Partial<PublicKeyFile>;
      try {
        info = JSON.parse(readFileSync(publicPath, 'utf8')) as Partial<PublicKeyFile>;
      } catch (error) {
        throw new WorkbenchError('invalid-request', `Cannot read ${publicPath}, which names the analyst of the signing key: ${error instanceof Error ? error.message : String(error)}`);
      }
      const signer = readSigner(typeof info.name === 'string' ? info.name : '', readFileSync(privatePath, 'utf8'), privatePath);
      if (info.fingerprint !== signer.fingerprint) throw new WorkbenchError('invalid-request', `${publicPath} describes key ${String(info.fingerprint)}, but ${privatePath} is key ${signer.fingerprint}`);
      return signer;
    },
    create: (name) => {
      if (existsSync(privatePath)) throw new WorkbenchError('conflict', `There already is a signing key at ${privatePath}: one key per analyst (remove it yourself to replace it)`);
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      const pem = newPrivateKeyPem();
      const signer = signerFromPem(checkedName(name), pem);
      writeFileSync(privatePath, pem, { mode: 0o600, flag: 'wx' });
      chmodSync(privatePath, 0o600); // whatever the umask was
      writeFileSync(publicPath, `${JSON.stringify(publicKeyFile(signer), null, 2)}\n`, { mode: 0o644 });
      return signer;
    },
  };
}

/** The key in a SecretStore: the OS key store of the desktop app, or the system keyring. */
export function secretKeyStore(secrets: SecretStore, location = 'the operating system’s key store'): AnalystKeyStore {
  const secretName = 'analyst-signing-key';
  return {
    location,
    load: () => {
      const stored = secrets.get(secretName);
      if (stored === null) return null;
      const { name, privateKeyPem } = JSON.parse(stored) as { name: string; privateKeyPem: string };
      return readSigner(name, privateKeyPem, 'the key store');
    },
    create: (name) => {
      if (secrets.get(secretName) !== null) throw new WorkbenchError('conflict', 'This workbench already has a signing key');
      const privateKeyPem = newPrivateKeyPem();
      const signer = signerFromPem(checkedName(name), privateKeyPem);
      secrets.set(secretName, JSON.stringify({ name: signer.name, privateKeyPem }));
      return signer;
    },
  };
}

/**
 * The signing key of the CLI and browser mode (both use the same one): the 0600 file in
 * `configDir/keys` when it exists, else the system keyring when there is one, else that file.
 * Chosen at the first use, not before: asking a locked keyring may wait on the user, and most
 * runs of `dwb serve` never sign.
 */
export function userKeyStore(configDir: string, env: Readonly<Record<string, string | undefined>> = process.env): AnalystKeyStore {
  let chosen: AnalystKeyStore | null = null;
  const choose = (): AnalystKeyStore => {
    if (chosen) return chosen;
    const file = fileKeyStore(join(configDir, 'keys'));
    const keyring = existsSync(join(configDir, 'keys', 'analyst-key.pem')) ? null : systemKeyring('analyst', env);
    chosen = keyring === null ? file : secretKeyStore(keyring, 'the system keyring (Secret Service)');
    return chosen;
  };
  return {
    get location() {
      return choose().location;
    },
    load: () => choose().load(),
    create: (name) => choose().create(name),
  };
}

function readSigner(name: string, pem: string, where: string): Signer {
  try {
    return signerFromPem(checkedName(name), pem);
  } catch (error) {
    if (error instanceof WorkbenchError) throw error;
    throw new WorkbenchError('invalid-request', `The signing key in ${where} is not a usable Ed25519 key: ${error instanceof Error ? error.message : String(error)}`);
  }
}
