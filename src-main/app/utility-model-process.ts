import { join } from 'node:path';
import { utilityProcess } from 'electron';
import type { FromModelProcess, ModelProcess, ToModelProcess } from '../llm/local/protocol';

/**
 * The desktop app's model process: an Electron utility process (Chromium's sandboxed-service
 * machinery, no renderer), so a crash or an out-of-memory in llama.cpp never takes the app down.
 * The bundled `model-process.js` sits next to this bundle.
 */
export function launchUtilityModelProcess(): ModelProcess {
  const child = utilityProcess.fork(join(__dirname, 'model-process.js'), [], { serviceName: 'Decision Workbench model', stdio: ['ignore', 'ignore', 'inherit'] });
  let exited = false;
  child.once('exit', () => (exited = true));
  return {
    get pid() {
      return child.pid;
    },
    send(message: ToModelProcess) {
      if (!exited) child.postMessage(message);
    },
    onMessage(listener) {
      child.on('message', (message: unknown) => listener(message as FromModelProcess));
    },
    onExit(listener) {
      child.once('exit', (code) => listener(`exit code ${code}`));
    },
    kill() {
      if (!exited) child.kill();
    },
  };
}
