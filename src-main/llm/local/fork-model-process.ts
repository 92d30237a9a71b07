import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FromModelProcess, ModelProcess, ToModelProcess } from './protocol';

/**
 * Forks the model process as a Node child process: the bundled `model-process.js` next to the
 * bundle when the app is built, or the TypeScript source through tsx under the tests.
 */
export function forkModelProcess(): ModelProcess {
  const bundled = join(__dirname, 'model-process.js');
  const stdio: ['ignore', 'ignore', 'inherit', 'ipc'] = ['ignore', 'ignore', 'inherit', 'ipc'];
  const child = existsSync(bundled)
    ? fork(bundled, [], { stdio, serialization: 'advanced' })
    : fork(join(__dirname, 'model-process.ts'), [], { stdio, serialization: 'advanced', execArgv: ['--import', 'tsx'] });
  return {
    get pid() {
      return child.pid;
    },
    send(message: ToModelProcess) {
      if (child.connected) child.send(message);
    },
    onMessage(listener) {
      child.on('message', (message) => listener(message as FromModelProcess));
    },
    onExit(listener) {
      child.once('exit', (code, signal) => listener(signal ? `signal ${signal}` : `exit code ${code ?? 'unknown'}`));
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
