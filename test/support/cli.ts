import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './fixtures';

const execute = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI (`bin/dwb.js`, made by `electron-vite build`, which `npm test` runs first)
 * as a user would, and collects its exit code and output; a failing exit is a result, not a throw.
 */
export async function runDwb(args: string[], options: { timeoutMs?: number; maxBuffer?: number; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await execute(process.execPath, [join(repoRoot, 'bin', 'dwb.js'), ...args], {
      timeout: options.timeoutMs ?? 60_000,
      ...(options.maxBuffer ? { maxBuffer: options.maxBuffer } : {}),
      // Variables given are laid over the test's own environment.
      ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * A test server's URI (or `{dump}` template) split as a user gives it to the CLI, which refuses a
 * password in argv: the URI without the password, and the environment that carries it
 * (DWB_DB_PASSWORD, empty when the URI had none).
 */
export function passwordApart(uri: string): { uri: string; env: { DWB_DB_PASSWORD: string } } {
  const match = /^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*):([^@/?#]*)@/i.exec(uri);
  if (!match) return { uri, env: { DWB_DB_PASSWORD: '' } };
  const [whole, schemeAndUser, password] = match as unknown as [string, string, string];
  return { uri: `${schemeAndUser}@${uri.slice(whole.length)}`, env: { DWB_DB_PASSWORD: decodeURIComponent(password) } };
}

/**
 * Runs an in-process command (which reads this process's environment) with `uri`'s password
 * moved to DWB_DB_PASSWORD for the call, as `passwordApart` does for a spawned CLI.
 */
export async function withPasswordApart<T>(uri: string, run: (bareUri: string) => Promise<T>): Promise<T> {
  const apart = passwordApart(uri);
  const before = process.env.DWB_DB_PASSWORD;
  process.env.DWB_DB_PASSWORD = apart.env.DWB_DB_PASSWORD;
  try {
    return await run(apart.uri);
  } finally {
    if (before === undefined) delete process.env.DWB_DB_PASSWORD;
    else process.env.DWB_DB_PASSWORD = before;
  }
}
