import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { WorkbenchError } from '../contract/errors';

/**
 * The absolute path a user meant by a file path typed into the connection form or a CLI URI.
 * Nothing passes these through a shell, so what a shell would have done is done here: a
 * leading `~/` (or a lone `~`) is the user's home folder, and a `file://` URL (what a file
 * manager copies) is the file it names, percent-escapes decoded. Anything else relative is
 * taken from the working folder, as before. `~user/` forms are not expanded.
 */
export function resolveUserPath(path: string, where: { home?: string; cwd?: string } = {}): string {
  if (/^file:/i.test(path)) {
    try {
      return fileURLToPath(path);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new WorkbenchError('invalid-request', `${path} is not a file URL of this machine: ${reason}`, { cause: error });
    }
  }
  if (path === '~' || path.startsWith('~/')) return join(where.home ?? homedir(), path.slice(1));
  return isAbsolute(path) ? path : resolve(where.cwd ?? process.cwd(), path);
}
