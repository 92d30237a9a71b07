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
