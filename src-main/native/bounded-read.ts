import { isUtf8 } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * How much is read from one file the user names before it is refused: enough for any bundle,
 * run log, dump or question set this project writes or reads (a string cannot hold much more
 * than 512 MB anyway), and far more than any secret or key file needs.
 */
export const readLimits = {
  text: 256 * 1024 * 1024,
  secret: 64 * 1024,
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
  } finally {
    closeSync(descriptor);
  }
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
