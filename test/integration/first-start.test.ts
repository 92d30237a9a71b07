import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../support/temp';

const run = promisify(execFile);
const root = resolve(__dirname, '..', '..');
const electronPackage = join(root, 'node_modules', 'electron');
const ensureRuntime = join(root, 'scripts', 'ensure-electron-runtime.mjs');

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function outcome(file: string, args: string[], env: NodeJS.ProcessEnv, cwd = root): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env: { ...process.env, ...env }, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** A copy of the installed electron package with no runtime in it (as on an offline machine). */
function electronWithoutRuntime(dir: string): string {
  const copy = join(dir, 'electron');
  cpSync(electronPackage, copy, { recursive: true, filter: (path) => !path.startsWith(join(electronPackage, 'dist')) && !path.endsWith('path.txt') });
  return copy;
}

describe('npm start before it builds anything', () => {
  const tempDir = useTempDirs();

  it('says in one line that the Electron runtime is missing and what to do, when it cannot be downloaded', async () => {
    const copy = electronWithoutRuntime(tempDir());
    // A mirror on a port nothing listens on: the download fails at once, here and on a machine with network.
    const result = await outcome(process.execPath, [ensureRuntime], {
      DWB_ELECTRON_PACKAGE_DIR: copy,
      ELECTRON_MIRROR: 'http://127.0.0.1:9/',
      electron_config_cache: join(copy, 'cache'),
      NODE_PATH: join(root, 'node_modules'),
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^Downloading Electron [\d.]+'s runtime/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^npm start: Electron's runtime is not installed and could not be downloaded \(.+\)\./);
    expect(lines[1]).toContain('node node_modules/electron/install.js');
    expect(lines[1]).toContain('npx dwb serve');
    expect(existsSync(join(copy, 'path.txt'))).toBe(false);
  }, 120_000);

  it('goes on at once when the runtime is there', async () => {
    const copy = electronWithoutRuntime(tempDir());
    mkdirSync(join(copy, 'dist'));
    writeFileSync(join(copy, 'dist', 'electron'), '');
    writeFileSync(join(copy, 'path.txt'), 'electron');
    const result = await outcome(process.execPath, [ensureRuntime], { DWB_ELECTRON_PACKAGE_DIR: copy, ELECTRON_MIRROR: 'http://127.0.0.1:9/' });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe('npx dwb in an installed clone', () => {
  const tempDir = useTempDirs();

  it('runs the checkout’s own CLI, with nothing to install first', async () => {
    await outcome(process.execPath, [join(root, 'scripts', 'link-own-bin.mjs')], {});
    // An empty npm cache, and --no: were dwb not found locally, npx would have to install the
    // checkout into its cache (a copy and a full rebuild) and, told not to, refuses.
    const result = await outcome('npx', ['--no', '--', 'dwb', '--help'], { npm_config_cache: tempDir(), npm_config_offline: 'true', npm_config_update_notifier: 'false' });
    expect(result.stderr).not.toMatch(/canceled|missing packages/);
    expect(result.stdout).toContain('Decision Workbench command line');
    expect(result.code).toBe(0);
  }, 120_000);
});
