import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { Method, Params, Result } from '../../src-main/contract/api';
import { repoRoot } from './fixtures';

export interface ServeProcess {
  url: string;
  origin: string;
  token: string;
  child: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const readyLine = /^Workbench ready at (http:\/\/127\.0\.0\.1:(\d+))\/\?token=([\w-]+)$/;

/** Starts the real `dwb serve` (built CLI) and waits for its one ready line. */
export function startServe(workspace: string, extraArgs: string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'dwb.js'), 'serve', '--port', '0', '--workspace', workspace, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dwb serve did not get ready: ${stderr}`)), 30_000);
    child.on('exit', (code) => reject(new Error(`dwb serve exited with ${code}: ${stderr}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = readyLine.exec(stdout.split('\n')[0] ?? '');
      if (!match || !stdout.includes('\n')) return;
      clearTimeout(timer);
      resolve({
        url: `${match[1]}/?token=${match[3]}`,
        origin: match[1] as string,
        token: match[3] as string,
        child,
        stop: (signal = 'SIGTERM') =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill(signal);
          }),
      });
    });
  });
}

/** A minimal contract client over the WebSocket, as the renderer's transport speaks it. */
export async function connectSocket(server: Pick<ServeProcess, 'origin' | 'token'>, origin = server.origin) {
  const socket = new WebSocket(`${server.origin.replace('http', 'ws')}/api?token=${server.token}`, { origin });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; ok?: boolean; result?: unknown; error?: unknown };
    if (message.id === undefined) return;
    const request = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) request?.resolve(message.result);
    else request?.reject(message.error);
  });
  socket.on('close', () => {
    for (const request of pending.values()) request.reject(new Error('socket closed'));
    pending.clear();
  });
  return {
    socket,
    invoke<M extends Method>(method: M, params: Params<M>): Promise<Result<M>> {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        if (socket.readyState !== WebSocket.OPEN) return reject(new Error('socket closed'));
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        socket.send(JSON.stringify({ id, method, params }));
      });
    },
    close: () => socket.close(),
  };
}
