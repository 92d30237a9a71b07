import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from './until';

/**
 * A Secret Service of the test's own: a private D-Bus session bus and GNOME Keyring on it,
 * with a login keyring made and unlocked at start, all under `dir` (never the developer's
 * keyring). Processes given `env` reach it through DBUS_SESSION_BUS_ADDRESS.
 */
export interface PrivateKeyring {
  env: Record<string, string>;
  stop(): Promise<void>;
}

const programs = ['dbus-daemon', 'gnome-keyring-daemon', 'secret-tool'] as const;

/** Why this machine cannot run a private keyring (a missing program), or null. */
export function whyKeyringUnavailable(): string | null {
  if (process.platform !== 'linux') return 'the Secret Service is a Linux desktop service';
  const missing = programs.filter((program) => spawnSync('sh', ['-c', `command -v ${program}`]).status !== 0);
  return missing.length === 0 ? null : `${missing.join(', ')} not installed (Debian: apt-get install dbus libsecret-tools gnome-keyring)`;
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end >= 0) resolve(text.slice(0, end).trim());
    });
    child.once('exit', (code) => reject(new Error(`dbus-daemon exited (${String(code)}) before printing its address`)));
    child.once('error', reject);
  });
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export async function startPrivateKeyring(dir: string): Promise<PrivateKeyring> {
  const runtime = join(dir, 'run');
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  const base = { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_RUNTIME_DIR: runtime };
  // A bus that starts no services of its own: D-Bus activation would start another keyring
  // daemon, without our unlocked login keyring, before ours has registered.
  const config = join(dir, 'session-bus.conf');
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=${runtime}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
`,
  );
  const bus = spawn('dbus-daemon', [`--config-file=${config}`, '--nofork', '--nopidfile', '--print-address=1'], { env: base, stdio: ['ignore', 'pipe', 'ignore'] });
  const address = await firstLine(bus);
  const env = { DBUS_SESSION_BUS_ADDRESS: address };
  const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env: { ...base, ...env }, stdio: ['pipe', 'ignore', 'ignore'] });
  // --unlock reads the login keyring's password from stdin and makes the keyring with it.
  keyring.stdin?.end('private-keyring-of-a-test');
  // Ready once the login keyring exists and takes an item (the daemon makes it from the password).
  const stop = async (): Promise<void> => {
    await stopped(keyring);
    await stopped(bus);
  };
  try {
    await until(() => {
      const probe = spawnSync('secret-tool', ['store', '--label=probe', 'probe', 'ready'], { env: { ...base, ...env }, input: 'ready', encoding: 'utf8', timeout: 5000 });
      return probe.status === 0 ? true : undefined;
    }, 20_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { env, stop };
}
