import { closeSync, constants, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { WorkbenchError } from '../../contract/errors';

/**
 * Databases written by Kùzu, which LadybugDB (the engine that continues Kùzu) cannot open: its
 * reader checks the file's magic bytes and says only "The file is not a valid Lbug database
 * file!", or "Database path cannot be a directory" for the folders Kùzu wrote before 0.11.
 * Recognising them here lets the connector say what the file is and how to convert it.
 */
export interface KuzuDatabase {
  /** Kùzu 0.11 wrote one file; earlier releases a folder holding `catalog.kz`. */
  layout: 'file' | 'folder';
  /** The storage version in a 0.11 file's header (39 for Kùzu 0.11.x), or null for a folder. */
  storageVersion: number | null;
}

/** A Kùzu 0.11 file starts with "KUZU" and a little-endian storage version; LadybugDB's with "LBUG". */
const kuzuMagic = Buffer.from('KUZU', 'latin1');

export function findKuzuDatabase(path: string): KuzuDatabase | null {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats?.isDirectory()) return existsSync(join(path, 'catalog.kz')) ? { layout: 'folder', storageVersion: null } : null;
  if (!stats?.isFile()) return null;
  const head = readHead(path, 8);
  if (head === null || head.length < 8 || !head.subarray(0, 4).equals(kuzuMagic)) return null;
  return { layout: 'file', storageVersion: head.readUInt32LE(4) };
}

/** The first bytes of a regular file (never blocking on a pipe swapped in after the stat), or null. */
function readHead(path: string, length: number): Buffer | null {
  try {
    const descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      if (!fstatSync(descriptor).isFile()) return null;
      const head = Buffer.alloc(length);
      return head.subarray(0, readSync(descriptor, head, 0, length, 0));
    } finally {
      closeSync(descriptor);
    }
  } catch {
    return null;
  }
}

/** The refusal for a Kùzu database: what it is, and the two statements that convert it. */
export function kuzuDatabaseError(path: string, found: KuzuDatabase, cause?: unknown): WorkbenchError {
  const written = found.layout === 'file' ? `Kùzu 0.11 (storage version ${found.storageVersion ?? '?'})` : 'Kùzu 0.10 or earlier (a database folder)';
  return new WorkbenchError(
    'unsupported',
    `${path} is a database written by ${written}, which LadybugDB (the embedded graph engine that continues Kùzu) cannot open. ` +
      `Convert it once: open it with that Kùzu release and run EXPORT DATABASE '<folder>', then run IMPORT DATABASE '<folder>' ` +
      `in a new LadybugDB database and connect to that one (step by step: docs/data-sources.md, "Databases written by Kùzu").`,
    { cause },
  );
}
