import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';

import { WorkbenchError } from '../../contract/errors';
import { nonRegularKind } from '../../native/bounded-read';

export { nonRegularKind };

/**
 * Refuses a path that exists but is not a regular file, saying what it is: a database engine
 * given a device reads it forever or misreads it, and a named pipe blocks its reader.
 * A missing path passes (the caller says what is missing in its own words).
 */
export function requireRegularFile(path: string, expected: string): void {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined || stats.isFile()) return;
  const kind = nonRegularKind(stats);
  const what = kind === 'a folder' ? `${path} is a folder, not ${expected}` : `${path} is ${kind}, not a regular file: expected ${expected}`;
  throw new WorkbenchError('invalid-request', what);
}

/** What a file's first bytes say it is, for telling the user which kind of connection to add instead. */
export type SniffedKind = 'sqlite' | 'duckdb' | 'parquet' | 'text' | 'unknown';

const sqliteMagic = Buffer.from('SQLite format 3\0', 'latin1');
/** DuckDB's main header: an 8-byte checksum, then the magic bytes "DUCK". */
const duckdbMagic = Buffer.from('DUCK', 'latin1');
const parquetMagic = Buffer.from('PAR1', 'latin1');
const sniffBytes = 512;

/** Reads at most the first 512 bytes of a regular file; anything else (or unreadable) is 'unknown'. */
export function sniffFileKind(path: string): SniffedKind {
  let head: Buffer;
  try {
    // Only a regular file is opened: opening a named pipe would block until a writer comes.
    // O_NONBLOCK keeps a pipe swapped in after the stat from blocking the open; fstat refuses it.
    if (!statSync(path).isFile()) return 'unknown';
    const descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      if (!fstatSync(descriptor).isFile()) return 'unknown';
      head = Buffer.alloc(sniffBytes);
      head = head.subarray(0, readSync(descriptor, head, 0, sniffBytes, 0));
    } finally {
      closeSync(descriptor);
    }
  } catch {
    return 'unknown';
  }
  if (head.subarray(0, 16).equals(sqliteMagic)) return 'sqlite';
  if (head.subarray(8, 12).equals(duckdbMagic)) return 'duckdb';
  if (head.subarray(0, 4).equals(parquetMagic)) return 'parquet';
  if (head.length > 0 && looksLikeText(head)) return 'text';
  return 'unknown';
}

/** No NUL and no control characters other than tab, newline, carriage return and form feed. */
function looksLikeText(bytes: Buffer): boolean {
  return bytes.every((byte) => byte >= 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x0c);
}

/** "…: add it as DuckDB": the kind of connection a sniffed file fits, or '' when none is known. */
export function addItAs(kind: SniffedKind): string {
  switch (kind) {
    case 'sqlite':
      return 'it looks like a SQLite file: add it as SQLite';
    case 'duckdb':
      return 'this is a DuckDB file: add it as DuckDB';
    case 'parquet':
      return 'it looks like a Parquet file: add it as Parquet';
    case 'text':
      return 'it looks like a text file: a CSV file can be added as CSV';
    case 'unknown':
      return '';
  }
}
