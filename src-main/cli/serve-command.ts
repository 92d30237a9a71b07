import { join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { parseOptions } from './parse-options';
import { WorkbenchError } from '../contract/errors';
import { startBrowserServer } from '../server/browser-server';
import { appRoot } from '../native/app-root';
import { openWorkbench } from '../services/workbench';
import { defaultWorkspaceDir } from '../workspace/paths';
import { positiveInteger, type CommandIo } from './command-io';

import { serveUsage } from './usage';

export { serveUsage };

/**
 * `dwb serve`: browser mode. Prints exactly one line on stdout — the address with its token —
 * and runs until interrupted.
 */
export async function runServeCommand(args: string[], io: CommandIo): Promise<number> {
  const { values } = parseOptions({
    args,
    options: { port: { type: 'string' }, workspace: { type: 'string' } },
  });
  const port = values.port === '0' ? 0 : positiveInteger(values.port, '--port');
  if (port !== undefined && port > 65535) throw new WorkbenchError('invalid-request', `--port must be at most 65535, got ${port}`);
  const rendererDir = join(appRoot(), 'out', 'renderer');
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new WorkbenchError('not-found', `The renderer is not built (${rendererDir}): run "npm run build" first`);
  }
  const workspaceDir = resolve(values.workspace ?? defaultWorkspaceDir());
  const workbench = openWorkbench({ workspaceDir, platform: { transport: 'websocket' } });
  let server;
  try {
    server = await startBrowserServer({ workbench, rendererDir, log: io.stderr, ...(port === undefined ? {} : { port }) });
  } catch (error) {
    await workbench.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new WorkbenchError('conflict', `Port ${port} is already in use: choose another with --port`);
    throw error;
  }
  io.stdout(`Workbench ready at ${server.url}`);
  io.stderr(`workspace: ${workspaceDir} (Ctrl+C to stop)`);
  const running = server;
  await new Promise<void>((resolveStop) => {
    const stop = (): void => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await running.close();
  await workbench.close();
  return 0;
}
