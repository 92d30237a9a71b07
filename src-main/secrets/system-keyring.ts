import { spawnSync } from 'node:child_process';
import { WorkbenchError } from '../contract/errors';
import type { SecretStore } from './secret-store';

/**
 * The desktop's own secret store — the freedesktop Secret Service (GNOME Keyring, KWallet,
 * KeePassXC) — reached through libsecret's `secret-tool`, for the CLI and browser mode, which
 * have no Electron safeStorage. A secret goes to `secret-tool` on stdin and comes back on its
 * stdout, never on a command line. Each item is found by three attributes: the application, a
 * scope (what the secrets belong to) and the key.
 *
 * `systemKeyring` returns null where there is none to use (no `secret-tool`, no D-Bus session,
 * no Secret Service answering, another OS) or where `DWB_KEYRING=off`, and callers fall back
 * to what they did before (a 0600 file for the signing key). The tests set `DWB_KEYRING=off`
 * so that they never touch a developer's keyring; one suite starts a keyring of its own.
 */
export const keyringEnv = 'DWB_KEYRING';

const application = 'decision-workbench';
/** A Secret Service that has to ask the user to unlock it may wait on a prompt: never forever. */
const callTimeoutMs = 15_000;

type Environment = Readonly<Record<string, string | undefined>>;

function secretTool(args: string[], env: Environment, input?: string): { status: number | null; stdout: string; stderr: string; missing: boolean } {
  const result = spawnSync('secret-tool', args, { input: input ?? '', encoding: 'utf8', env: { ...process.env, ...env }, timeout: callTimeoutMs });
  const missing = (result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  return { status: result.status, stdout: result.stdout ?? '', stderr: (result.stderr ?? '').trim(), missing };
}

function failure(action: string, stderr: string, status: number | null): WorkbenchError {
  const why = stderr !== '' ? stderr : status === null ? `no answer within ${callTimeoutMs / 1000} s (is the keyring waiting to be unlocked?)` : `exit code ${status}`;
  return new WorkbenchError('connection-failed', `The system keyring could not ${action}: ${why}`);
}

/** The system keyring's items of one scope, as a SecretStore; null when there is no keyring to use. */
export function systemKeyring(scope: string, env: Environment = process.env): SecretStore | null {
  if (process.platform !== 'linux' || env[keyringEnv] === 'off') return null;
  const attributes = (key: string): string[] => ['application', application, 'scope', scope, 'key', key];
  // A lookup of an item that does not exist: exit 1 and nothing on stderr when a Secret Service
  // answered; a message ("Cannot autolaunch D-Bus…", "…was not provided by any .service files") when none did.
  const probe = secretTool(['lookup', ...attributes('availability probe')], env);
  if (probe.missing || !(probe.status === 0 || (probe.status === 1 && probe.stderr === ''))) return null;
  return {
    persistent: true,
    get: (key) => {
      const found = secretTool(['lookup', ...attributes(key)], env);
      if (found.status === 0) return found.stdout;
      if (found.status === 1 && found.stderr === '') return null;
      throw failure(`read ${key}`, found.stderr, found.status);
    },
    set: (key, value) => {
      const stored = secretTool(['store', `--label=Decision Workbench: ${key} (${scope})`, ...attributes(key)], env, value);
      if (stored.status !== 0) throw failure(`store ${key}`, stored.stderr, stored.status);
    },
    delete: (key) => {
      const cleared = secretTool(['clear', ...attributes(key)], env);
      if (cleared.status !== 0 && cleared.stderr !== '') throw failure(`delete ${key}`, cleared.stderr, cleared.status);
    },
  };
}
