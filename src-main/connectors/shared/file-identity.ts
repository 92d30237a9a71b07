import { statSync } from 'node:fs';

import { fileErrorReason, WorkbenchError } from '../../contract/errors';

/**
 * Which file a path names right now. An open database handle keeps the file it opened, so a
 * file replaced at the same path (a new file moved over it, a rewrite by a tool that writes a
 * temporary file and renames it) or deleted would go on answering with the old data. Comparing
 * the identity taken when the handle was opened with the path's identity now tells them apart.
 * `contentStamp` adds size and modification time, for a connector that read a copy of the file
 * (a CSV or Parquet file copied into DuckDB) and is stale after any change, even in place.
 */
export interface FileIdentity {
  device: bigint;
  inode: bigint;
  /** Size and modification time in nanoseconds, when asked for; '' otherwise. */
  contentStamp: string;
}

/** The identity of the file at `path` now, or null when nothing is there. */
export function fileIdentity(path: string, options: { withContentStamp?: boolean } = {}): FileIdentity | null {
  let stats;
  try {
    stats = statSync(path, { bigint: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new WorkbenchError('connection-failed', `Cannot look at the database file ${path}: ${fileErrorReason(error)}`, { cause: error });
  }
  return {
    device: stats.dev,
    inode: stats.ino,
    contentStamp: options.withContentStamp === true ? `${stats.size}:${stats.mtimeNs}` : '',
  };
}

export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.device === b.device && a.inode === b.inode && a.contentStamp === b.contentStamp;
}

/** The error for a database whose file was deleted after the connection opened it. */
export function databaseFileGone(path: string, what = 'database file'): WorkbenchError {
  return new WorkbenchError('not-found', `The ${what} ${path} no longer exists`);
}
