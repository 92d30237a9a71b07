/**
 * The source database is only ever read as bytes: hashed before and after a run, and copied
 * into a scratch folder where the experiments happen. No engine ever opens the source, so
 * nothing (not even a -shm file or a checkpoint) can change it.
 */
import { createHash } from 'node:crypto';
import { copyFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { WorkbenchError, fileErrorCode, fileErrorReason } from '../contract/errors';
import { nonRegularKind, openRegularFile } from '../native/bounded-read';

const CHUNK_BYTES = 1 << 20;

/**
 * Hashes a file a connection names, off the main thread and only as a regular file: the
 * source, or a companion beside it, replaced by a named pipe must not block the server.
 */
async function hashFileInto(hash: ReturnType<typeof createHash>, path: string): Promise<void> {
  let opened;
  try {
    opened = await openRegularFile(path, Number.MAX_SAFE_INTEGER);
  } catch (error) {
    throw new WorkbenchError(fileErrorCode(error), `what-if source ${path} cannot be read: ${fileErrorReason(error)}`);
  }
  const { handle } = opened;
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
}

/** Fails clearly when the source is missing or not a regular file. */
export async function requireSourceFile(path: string): Promise<void> {
  let stats;
  try {
    stats = await stat(path);
  } catch (error) {
    throw new WorkbenchError('not-found', `what-if source ${path} cannot be read: ${fileErrorReason(error)}`);
  }
  if (!stats.isFile()) throw new WorkbenchError('invalid-request', `what-if source ${path} is not a file`);
}

/** The companion files there now (a -wal, a -journal), each a regular file; one that is something else is refused. */
async function presentCompanions(path: string, companions: readonly string[]): Promise<string[]> {
  const present: string[] = [];
  for (const suffix of companions) {
    let stats;
    try {
      stats = await stat(`${path}${suffix}`);
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') continue;
      throw new WorkbenchError(fileErrorCode(error), `what-if source ${path}${suffix} cannot be read: ${fileErrorReason(error)}`);
    }
    if (!stats.isFile()) throw new WorkbenchError('invalid-request', `what-if source ${path}${suffix} is ${nonRegularKind(stats)}, not a regular file`);
    present.push(suffix);
  }
  return present;
}

/** sha256 over the database file and, in order, any companion file (each prefixed by its suffix). */
export async function digestSource(path: string, companions: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  await hashFileInto(hash, path);
  for (const suffix of await presentCompanions(path, companions)) {
    hash.update(`\u0000${suffix}\u0000`);
    await hashFileInto(hash, `${path}${suffix}`);
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Copies the database and its companions into `directory` (off the main thread); returns the copy's path. */
export async function copySource(path: string, directory: string, companions: readonly string[]): Promise<string> {
  const copy = join(directory, basename(path));
  await requireSourceFile(path);
  await copyFile(path, copy);
  for (const suffix of await presentCompanions(path, companions)) await copyFile(`${path}${suffix}`, `${copy}${suffix}`);
  return copy;
}
