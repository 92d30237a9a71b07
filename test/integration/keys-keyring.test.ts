/**
 * Issue 17: the analyst's signing key of the CLI and browser mode lives in the OS secret store
 * where there is one. On Linux that is the Secret Service; this suite starts a keyring of its
 * own (test/support/private-keyring.ts) and runs the built CLI against it: the key is made in
 * the keyring, no key file is written, and reports signed with it verify as the analyst's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runDwb } from '../support/cli';
import { startPrivateKeyring, whyKeyringUnavailable, type PrivateKeyring } from '../support/private-keyring';
import { makeRunDirectory } from './reports/run-fixture';
import { useSuiteTempDir, useTempDirs } from '../support/temp';
import { describeOrNotRun } from '../servers/not-run';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
let keyring: PrivateKeyring | null = null;
let runDir = '';

beforeAll(async () => {
  if (whyKeyringUnavailable() !== null) return;
  keyring = await startPrivateKeyring(join(suiteDir(), 'keyring-home'));
  // A real run to report on (its own config folder holds another analyst's file key, unused here).
  ({ runDir } = await makeRunDirectory(join(suiteDir())));
}, 120_000);
afterAll(async () => {
  await keyring?.stop();
});

describeOrNotRun('the signing key in the system keyring (Secret Service)', whyKeyringUnavailable(), () => {
  it('is made in the keyring, never as a file, and signs reports that verify as the analyst’s', async () => {
    const config = tempDir();
    const env = { ...keyring?.env, DWB_CONFIG_DIR: config, DWB_KEYRING: 'auto' };
    const created = await runDwb(['keys', 'create', '--name', 'Kim Keyring'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).toMatch(/^created a signing key for Kim Keyring \(SHA256:[A-Za-z0-9+/]{43}\); private key in the system keyring \(Secret Service\)$/);
    expect(existsSync(join(config, 'keys', 'analyst-key.pem'))).toBe(false);
    const stored = spawnSync('secret-tool', ['lookup', 'application', 'decision-workbench', 'scope', 'analyst', 'key', 'analyst-signing-key'], { env: { ...process.env, ...keyring?.env }, encoding: 'utf8' });
    expect(stored.status).toBe(0);
    expect(JSON.parse(stored.stdout)).toMatchObject({ name: 'Kim Keyring', privateKeyPem: expect.stringMatching(/^-----BEGIN PRIVATE KEY-----/) });

    const shown = await runDwb(['keys', 'show'], { env });
    expect(shown.stdout.trim()).toMatch(/^Kim Keyring \(SHA256:\S+\); private key in the system keyring \(Secret Service\)$/);
    expect((await runDwb(['keys', 'create', '--name', 'Kim Keyring'], { env })).stderr).toContain('already has a signing key');

    const bundle = join(tempDir(), 'bundle.json');
    const report = await runDwb(['report', '--run', runDir, '--format', 'json', '--out', bundle, '--signed-by', 'Kim Keyring'], { env });
    expect(report.code, report.stderr).toBe(0);
    expect(readFileSync(bundle, 'utf8')).not.toContain(JSON.parse(stored.stdout).privateKeyPem.split('\n')[1]);
    const verified = await runDwb(['verify', bundle], { env });
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout).toMatch(/^verified\nsigned by Kim Keyring \(SHA256:\S+\): the seal\nsigned by Kim Keyring \(SHA256:\S+\): sign-off/);
  });

  it('falls back to the 0600 file without a session bus, and keeps using a key file that exists', async () => {
    const config = tempDir();
    const noBus = { DWB_CONFIG_DIR: config, DWB_KEYRING: 'auto', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };
    const created = await runDwb(['keys', 'create', '--name', 'Fay File'], { env: noBus });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).toBe(`created a signing key for Fay File (${/\((SHA256:\S+)\)/.exec(created.stdout)?.[1] ?? ''}); private key in ${join(config, 'keys', 'analyst-key.pem')}`);
    // With the keyring back, the existing file key is still the one used (never moved silently).
    const shown = await runDwb(['keys', 'show'], { env: { ...keyring?.env, DWB_CONFIG_DIR: config, DWB_KEYRING: 'auto' } });
    expect(shown.stdout.trim()).toMatch(new RegExp(`^Fay File \\(SHA256:\\S+\\); private key in ${join(config, 'keys', 'analyst-key.pem').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`));
  });
});
