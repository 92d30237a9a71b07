import { isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';

/**
 * How much is read from one file the user names before it is refused: enough for any bundle,
 * run log, dump or question set this project writes or reads (a string cannot hold much more
 * than 512 MB anyway), and far more than any secret or key file needs.
 */
export const readLimits = {
  text: 256 * 1024 * 1024,
  secret: 64 * 1024,
  /**
   * A file a request to the server names (an action library, a playbook version, a question
   * set): each is far smaller, and its text is decoded and parsed on the server's main thread,
   * where 256 MB would stall every other client for seconds.
   */
  request: 32 * 1024 * 1024,
} as const;

const chunkBytes = 64 * 1024;

function tooLarge(maxBytes: number): Error {
  const shown = maxBytes >= 1024 * 1024 ? `${maxBytes / (1024 * 1024)} MB` : `${maxBytes / 1024} KB`;
  return Object.assign(new Error(`it holds more than ${shown}, the most read from such a file`), { code: 'EFBIG' });
}

/**
 * The bytes of a file the user named, read to its end but never past `maxBytes`. readFileSync
 * would read a device that never ends (`/dev/zero`) until memory runs out and a huge file whole;
 * both are refused here with the limit instead. A named pipe or a process substitution
 * (`--password-file <(pass show db)`) is read like a file. Throws as readFileSync does (`code`
 * ENOENT, EISDIR, EACCES, …), and with `code` EFBIG past the limit.
 */
export function readBounded(path: string, maxBytes: number): Buffer {
  const descriptor = openSync(path, 'r');
  try {
    const stats = fstatSync(descriptor);
    if (stats.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: 'EISDIR' });
    return readDescriptor(descriptor, stats, maxBytes);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * `readBounded` for a path that a file names rather than the user (the dumps a questions file
 * lists): only a regular file is read. It is opened non-blocking, so a named pipe with no writer
 * is refused at once (ENOTREG) instead of blocking the thread, as is a device or a socket.
 */
export function readRegularBounded(path: string, maxBytes: number): Buffer {
  const descriptor = openSync(path, nonBlockingRead);
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) throw notRegularFile(stats);
    return readDescriptor(descriptor, stats, maxBytes);
  } finally {
    closeSync(descriptor);
  }
}

/** `readRegularBounded` as UTF-8 text, refused with EILSEQ when it is not UTF-8. */
export function readRegularBoundedText(path: string, maxBytes: number = readLimits.text): string {
  return utf8Text(readRegularBounded(path, maxBytes));
}

function readDescriptor(descriptor: number, stats: Stats, maxBytes: number): Buffer {
  // A regular file says its size: refuse it before reading a byte, and read it in one go.
  if (stats.isFile() && stats.size > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(stats.isFile() ? Math.max(stats.size - total, 0) + 1 : chunkBytes);
    const read = readSync(descriptor, chunk, 0, chunk.length, null);
    if (read === 0) break;
    total += read;
    if (total > maxBytes) throw tooLarge(maxBytes);
    chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read));
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}

/**
 * `readBounded` as UTF-8 text. Bytes that are not UTF-8 (a Latin-1 or UTF-16 file) are refused
 * with `code` EILSEQ rather than decoded into replacement characters that would silently change
 * a question, a name in a dump or a key.
 */
export function readBoundedText(path: string, maxBytes: number = readLimits.text): string {
  return utf8Text(readBounded(path, maxBytes));
}

/** Bytes read from a file as UTF-8 text, refused as `readBoundedText` refuses them when they are not UTF-8. */
export function utf8Text(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw Object.assign(new Error('it is not UTF-8 text: save it as UTF-8 and try again'), { code: 'EILSEQ' });
  return bytes.toString('utf8');
}

/** What a path that is not a regular file is, in words ("a folder", "a named pipe", …). */
export function nonRegularKind(stats: Pick<Stats, 'isDirectory' | 'isCharacterDevice' | 'isBlockDevice' | 'isFIFO' | 'isSocket'>): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The error for a path that is not a regular file: EISDIR for a folder (as readFileSync says), else ENOTREG naming what it is. */
function notRegularFile(stats: Stats): Error {
  if (stats.isDirectory()) return Object.assign(new Error('it is a folder, not a file'), { code: 'EISDIR' });
  return Object.assign(new Error(`it is ${nonRegularKind(stats)}, not a regular file`), { code: 'ENOTREG' });
}

/**
 * Open flags that never wait: O_NONBLOCK makes opening a named pipe with no writer return at
 * once (a plain open would block until a writer comes), and O_NOCTTY keeps a terminal device
 * from becoming the process's controlling terminal. Both are 0 where the platform lacks them.
 */
const nonBlockingRead = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * A regular file a client (or a file a client named) names, opened for reading without ever
 * waiting on it and without touching the server's main thread: the stat, the open and the
 * fstat run in libuv's thread pool. Anything but a regular file is refused before it is read
 * (a named pipe, a device such as /dev/zero, a socket, a folder): the path is looked at first,
 * so a device is not even opened, and the descriptor is checked again, so a pipe swapped in
 * between is still refused. A file larger than `maxBytes` is refused by its size.
 * The caller closes the handle.
 */
export async function openRegularFile(path: string, maxBytes: number): Promise<{ handle: FileHandle; size: number }> {
  const named = await stat(path);
  if (!named.isFile()) throw notRegularFile(named);
  const handle = await open(path, nonBlockingRead);
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw notRegularFile(opened);
    if (opened.size > maxBytes) throw tooLarge(maxBytes);
    return { handle, size: opened.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** How much one read of `readRegularFile` asks for: small enough that the main thread runs between reads. */
const asyncChunkBytes = 1024 * 1024;

/**
 * The bytes of a regular file a request names, read off the main thread (see `openRegularFile`)
 * and never past `maxBytes`, even if the file grows while it is read. Throws with `code`
 * ENOENT, ENOTDIR, EACCES, ELOOP, … as the system says, EISDIR for a folder, ENOTREG for a
 * pipe, device or socket, and EFBIG past the limit. The CLI, whose own user may give a process
 * substitution, reads with `readBounded` instead.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer> {
  const { handle, size } = await openRegularFile(path, maxBytes);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(size - total, 0) + 1, asyncChunkBytes));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(maxBytes);
      chunks.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

/** `readRegularFile` as UTF-8 text, refused with EILSEQ when it is not UTF-8 (as `readBoundedText`). */
export async function readRegularText(path: string, maxBytes: number = readLimits.request): Promise<string> {
  return utf8Text(await readRegularFile(path, maxBytes));
}

/**
 * The first `bytes` bytes of a regular file a request names (a file's magic number), read the
 * way `readRegularFile` reads: never from a pipe or device, never on the main thread.
 */
export async function readRegularHead(path: string, bytes: number): Promise<{ head: Buffer; size: number }> {
  const { handle, size } = await openRegularFile(path, Number.MAX_SAFE_INTEGER);
  try {
    const head = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(head, 0, bytes, 0);
    return { head: head.subarray(0, bytesRead), size };
  } finally {
    await handle.close();
  }
}
