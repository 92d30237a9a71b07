import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Temporary folders that hold the copy of a CSV/Parquet file (see openFileAsTable). The copy
 * is the analyst's data, so it must not outlive the process that made it, however that
 * process ends: closing the connector deletes it, a normal exit deletes what is left, and a
 * process that was killed (kill -9, a crash, a closed terminal) cannot clean up after itself,
 * so every later open sweeps the folders whose owning process is gone. The owner's process id
 * is part of the folder's name for that reason.
 */
const prefix = 'dwb-duckdb-';
const live = new Set<string>();
let exitHookInstalled = false;

export function makeTempCopyDir(): string {
  sweepOrphanedCopies();
  const dir = mkdtempSync(join(tmpdir(), `${prefix}${process.pid}-`));
  live.add(dir);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const each of live) removeQuietly(each);
    });
  }
  return dir;
}

export function removeTempCopyDir(dir: string): void {
  live.delete(dir);
  removeQuietly(dir);
}

/** Deletes the copy folders of processes that no longer run. */
export function sweepOrphanedCopies(root = tmpdir()): void {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = new RegExp(`^${prefix}(\\d+)-`).exec(name)?.[1];
    if (owner === undefined || Number(owner) === process.pid || isRunning(Number(owner))) continue;
    removeQuietly(join(root, name));
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeQuietly(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // Another sweeper got there first, or the folder is not ours to delete: leave it.
  }
}
