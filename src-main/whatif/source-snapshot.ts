/**
 * The source database is only ever read as bytes: hashed before and after a run, and copied
 * into a scratch folder where the experiments happen. No engine ever opens the source, so
 * nothing (not even a -shm file or a checkpoint) can change it.
 */
import { closeSync, copyFileSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { WorkbenchError, fileErrorReason } from '../contract/errors';

const CHUNK_BYTES = 1 << 20;

function hashFileInto(hash: ReturnType<typeof createHash>, path: string): void {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
}

/** Fails clearly when the source is missing or not a regular file. */
export function requireSourceFile(path: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (error) {
    throw new WorkbenchError('not-found', `what-if source ${path} cannot be read: ${fileErrorReason(error)}`);
  }
  if (!isFile) throw new WorkbenchError('invalid-request', `what-if source ${path} is not a file`);
}

/** sha256 over the database file and, in order, any companion file (each prefixed by its suffix). */
export function digestSource(path: string, companions: readonly string[]): string {
  const hash = createHash('sha256');
  hashFileInto(hash, path);
  for (const suffix of companions) {
    if (!existsSync(`${path}${suffix}`)) continue;
    hash.update(`\u0000${suffix}\u0000`);
    hashFileInto(hash, `${path}${suffix}`);
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Copies the database and its companions into `directory`; returns the copy's path. */
export function copySource(path: string, directory: string, companions: readonly string[]): string {
  const copy = join(directory, basename(path));
  copyFileSync(path, copy);
  for (const suffix of companions) {
    if (existsSync(`${path}${suffix}`)) copyFileSync(`${path}${suffix}`, `${copy}${suffix}`);
  }
  return copy;
}
