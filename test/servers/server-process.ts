import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createInterface } from 'node:readline';

import type { RunAs } from './unprivileged-user';

/** The last lines a server printed, kept so a failed start can say why. */
export class OutputTail {
  private readonly lines: string[] = [];
  constructor(private readonly limit = 60) {}

  add(chunk: string): void {
    for (const line of chunk.split('\n')) {
      if (line.trim() === '') continue;
      this.lines.push(line);
      if (this.lines.length > this.limit) this.lines.shift();
    }
  }

  toString(): string {
    return this.lines.join('\n');
  }
}

export interface SpawnedServer {
  readonly child: ChildProcess;
  readonly output: OutputTail;
  /** Settles when the process has exited, with its exit code or signal. */
  readonly exited: Promise<string>;
}

/** Starts a long-running server process and records its output and exit. */
export function spawnServer(command: string, args: string[], runAs: RunAs, options: SpawnOptions = {}): SpawnedServer {
  const child = spawn(command, args, { ...options, uid: runAs.uid, gid: runAs.gid, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = new OutputTail();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => output.add(chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => output.add(chunk));
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ?? `exit code ${String(code)}`));
    child.once('error', (error) => resolve(`spawn error: ${error.message}`));
  });
  return { child, output, exited };
}

/** Runs a setup command to completion (initdb, install-db) and fails with its output. */
export async function runToCompletion(command: string, args: string[], runAs: RunAs, options: SpawnOptions = {}): Promise<void> {
  const { output, exited } = spawnServer(command, args, runAs, options);
  const outcome = await exited;
  if (outcome !== 'exit code 0') throw new Error(`${command} failed (${outcome}):\n${output.toString()}`);
}

/**
 * Polls `probe` until it succeeds, the process dies, or the deadline passes. Probing the real
 * protocol (a client connection) is the only readiness signal that cannot lie.
 */
export async function waitUntilReady(server: SpawnedServer, probe: () => Promise<void>, deadlineMs: number, name: string): Promise<void> {
  const started = Date.now();
  let exitedWith: string | null = null;
  void server.exited.then((outcome) => {
    exitedWith = outcome;
  });
  let lastError = '';
  while (Date.now() - started < deadlineMs) {
    if (exitedWith !== null) throw new Error(`${name} exited during start-up (${exitedWith}):\n${server.output.toString()}`);
    try {
      await probe();
      return;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`${name} not ready after ${deadlineMs} ms (${lastError}):\n${server.output.toString()}`);
}

/** Sends a polite signal, then SIGKILL if the server ignores it past the grace period. */
export async function stopServer(server: SpawnedServer, signal: NodeJS.Signals, graceMs = 15_000): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill(signal);
  const timer = setTimeout(() => server.child.kill('SIGKILL'), graceMs);
  await server.exited;
  clearTimeout(timer);
}

/**
 * Waits for the launcher's ready line on stdout (`pattern`'s first group is returned: the
 * address it serves), failing with everything the server printed if it exits or is not ready
 * by `deadlineMs`.
 */
export function waitForReadyLine(server: SpawnedServer, pattern: RegExp, deadlineMs: number, name: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const stdout = server.child.stdout;
    if (stdout === null) {
      reject(new Error(`${name} launcher has no stdout`));
      return;
    }
    const lines = createInterface({ input: stdout });
    const timer = setTimeout(() => fail(`${name} not ready after ${deadlineMs} ms`), deadlineMs);
    function fail(reason: string): void {
      clearTimeout(timer);
      lines.close();
      reject(new Error(`${reason}:\n${server.output.toString()}`));
    }
    lines.on('line', (line) => {
      const match = pattern.exec(line);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      lines.close();
      resolvePromise(match[1]);
    });
    void server.exited.then((outcome) => fail(`${name} exited during start-up (${outcome})`));
  });
}
