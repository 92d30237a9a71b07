import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Uid/gid a server process runs as; undefined fields mean "stay as the current user". */
export interface RunAs {
  uid?: number;
  gid?: number;
}

/**
 * PostgreSQL and MariaDB refuse to run as root. When the tests run as root (CI containers),
 * the server runs as the service account its Debian package created (postgres, mysql), or as
 * `nobody` if that account is missing; as any other user the server simply runs as that user.
 */
export function runAsServiceAccount(account: string): RunAs {
  if (process.getuid?.() !== 0) return {};
  for (const candidate of [account, 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', candidate], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      const gid = Number(execFileSync('id', ['-g', candidate], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      if (Number.isInteger(uid) && Number.isInteger(gid) && uid !== 0) return { uid, gid };
    } catch {
      // No such account: try the next one.
    }
  }
  throw new Error(`Neither ${account} nor nobody exists to run the server as a non-root user`);
}

/**
 * A fresh temp directory the server account owns, so the server can write its data there.
 * For another account it lives under /tmp: root's own TMPDIR may not be traversable by it.
 */
export function makeServerDataDir(prefix: string, runAs: RunAs): string {
  const base = runAs.uid === undefined ? tmpdir() : '/tmp';
  const dir = mkdtempSync(join(base, prefix));
  if (runAs.uid !== undefined && runAs.gid !== undefined) chownSync(dir, runAs.uid, runAs.gid);
  return dir;
}

export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
