/** Small measuring helpers of `npm run bench:simulators` and its child processes. */
import { spawn } from 'node:child_process';

/** The middle value; for an even count the mean of the two middle ones. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The second half of a series of runs in one process: the runs after V8 has warmed up. */
export function lastHalf<T>(values: readonly T[]): T[] {
  return values.slice(Math.floor(values.length / 2));
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(3)} s`;

/** User + system CPU of this process since `start` (every thread), in ms. */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const cpu = process.cpuUsage(start);
  return (cpu.user + cpu.system) / 1000;
}

/** Ratio and verdict against issue 17's goal of 20× the straightforward implementation. */
export function againstGoal(ratio: number): string {
  return `${ratio.toFixed(1)}× (goal ≥ 20×): ${ratio >= 20 ? 'met' : 'NOT met'}`;
}

export interface NodeProcessRun {
  /** From spawn to exit: the process's start-up included. */
  wallMs: number;
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a script in a fresh `node` (this one's executable, no tsx) and collects its output. */
export function runNodeScript(script: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<NodeProcessRun> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', fail);
    child.on('close', (exitCode) => {
      done({ wallMs: performance.now() - started, exitCode, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
    });
  });
}
