import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBounded, readBoundedText, readRegularBounded, readRegularBoundedText, readRegularFile, readRegularHead, readRegularText } from '../../../src-main/native/bounded-read';
import { useTempDirs } from '../../support/temp';

/** What `code` a read failed with, and its message. */
function failure(read: () => unknown): { code: unknown; message: string } {
  try {
    read();
  } catch (error) {
    return { code: (error as { code?: unknown }).code, message: (error as Error).message };
  }
  throw new Error('the read did not fail');
}

describe('reading a file the user named, bounded', () => {
  const tempDir = useTempDirs();

  it('reads a regular file whole, empty and UTF-8 ones included', () => {
    const dir = tempDir();
    const text = 'name,value\nKraków,1.5\n'.repeat(5000);
    writeFileSync(join(dir, 'data.csv'), text);
    writeFileSync(join(dir, 'empty'), '');
    expect(readBoundedText(join(dir, 'data.csv'))).toBe(text);
    expect(readBounded(join(dir, 'empty'), 10).length).toBe(0);
    expect(readBounded(join(dir, 'data.csv'), Buffer.byteLength(text)).length).toBe(Buffer.byteLength(text));
  });

  it('refuses text that is not UTF-8 rather than decoding it into replacement characters', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'latin1.txt'), Buffer.from('Krak\xf3w', 'latin1'));
    writeFileSync(join(dir, 'utf16.txt'), Buffer.from('\ufeffquestion', 'utf16le'));
    writeFileSync(join(dir, 'bom.txt'), '\ufeffKraków');
    expect(failure(() => readBoundedText(join(dir, 'latin1.txt')))).toEqual({ code: 'EILSEQ', message: 'it is not UTF-8 text: save it as UTF-8 and try again' });
    expect(failure(() => readBoundedText(join(dir, 'utf16.txt'))).code).toBe('EILSEQ');
    expect(readBoundedText(join(dir, 'bom.txt'))).toBe('\ufeffKraków');
    expect(readBounded(join(dir, 'latin1.txt'), 100).length).toBe(6);
  });

  it('refuses a regular file one byte over the limit, saying the limit', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'big'), Buffer.alloc(64 * 1024 + 1, 'a'));
    expect(failure(() => readBounded(join(dir, 'big'), 64 * 1024))).toEqual({ code: 'EFBIG', message: 'it holds more than 64 KB, the most read from such a file' });
  });

  it('refuses a device that never ends instead of reading it until memory runs out', () => {
    expect(failure(() => readBounded('/dev/zero', 1024 * 1024)).code).toBe('EFBIG');
  });

  it('says a folder is a folder, and a missing file is missing, as readFileSync does', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    expect(failure(() => readBounded(join(dir, 'sub'), 10)).code).toBe('EISDIR');
    expect(failure(() => readBounded(join(dir, 'none'), 10)).code).toBe('ENOENT');
  });

  it('reads a named pipe like a file (a process substitution such as <(pass show db) is one)', async () => {
    const fifo = join(tempDir(), 'secret.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const writer = spawn('sh', ['-c', `printf 'hunter2\\n' > "${fifo}"`]);
    const ended = new Promise((resolve) => writer.on('exit', resolve));
    expect(readBoundedText(fifo, 1024)).toBe('hunter2\n');
    await expect(ended).resolves.toBe(0);
  });

  it('refuses a pipe that writes past the limit', async () => {
    const fifo = join(tempDir(), 'endless.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const writer = spawn('sh', ['-c', `head -c 300000 /dev/zero > "${fifo}"`]);
    const ended = new Promise((resolve) => writer.on('exit', resolve));
    expect(failure(() => readBounded(fifo, 100_000)).code).toBe('EFBIG');
    // The reader closed its end early: the writer ends (by SIGPIPE) rather than hanging.
    await ended;
  });
});

/** What `code` an asynchronous read failed with, and its message. */
async function asyncFailure(read: () => Promise<unknown>): Promise<{ code: unknown; message: string }> {
  try {
    await read();
  } catch (error) {
    return { code: (error as { code?: unknown }).code, message: (error as Error).message };
  }
  throw new Error('the read did not fail');
}

describe('reading a file a request names: regular files only, never waiting on one', () => {
  const tempDir = useTempDirs();

  it('reads a regular file whole, its head alone, and its text as UTF-8', async () => {
    const dir = tempDir();
    const text = 'name,value\nKraków,1.5\n'.repeat(100_000);
    writeFileSync(join(dir, 'data.csv'), text);
    writeFileSync(join(dir, 'empty'), '');
    expect(await readRegularText(join(dir, 'data.csv'))).toBe(text);
    expect((await readRegularFile(join(dir, 'empty'), 10)).length).toBe(0);
    expect(await readRegularHead(join(dir, 'data.csv'), 4)).toEqual({ head: Buffer.from('name'), size: Buffer.byteLength(text) });
    writeFileSync(join(dir, 'latin1.txt'), Buffer.from('Krak\xf3w', 'latin1'));
    expect((await asyncFailure(() => readRegularText(join(dir, 'latin1.txt')))).code).toBe('EILSEQ');
  });

  it('refuses a named pipe with no writer at once, without opening it, and leaves no reader on it', async () => {
    const fifo = join(tempDir(), 'library.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(await asyncFailure(() => readRegularText(fifo))).toEqual({ code: 'ENOTREG', message: 'it is a named pipe, not a regular file' });
    expect(await asyncFailure(() => readRegularHead(fifo, 4))).toEqual({ code: 'ENOTREG', message: 'it is a named pipe, not a regular file' });
    // A non-blocking open for writing fails with ENXIO exactly when no reader has the pipe open.
    expect(() => openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)).toThrow(expect.objectContaining({ code: 'ENXIO' }));
  });

  it('refuses devices, sockets and folders by what they are, before reading a byte', async () => {
    const dir = tempDir();
    for (const device of ['/dev/zero', '/dev/urandom', '/dev/null']) {
      expect(await asyncFailure(() => readRegularFile(device, 1024)), device).toEqual({ code: 'ENOTREG', message: 'it is a device, not a regular file' });
    }
    const socketPath = join(dir, 'db.sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      expect(await asyncFailure(() => readRegularText(socketPath))).toEqual({ code: 'ENOTREG', message: 'it is a socket, not a regular file' });
    } finally {
      server.close();
    }
    mkdirSync(join(dir, 'sub'));
    expect(await asyncFailure(() => readRegularText(join(dir, 'sub')))).toEqual({ code: 'EISDIR', message: 'it is a folder, not a file' });
  });

  it('passes on the system’s reason for a path that leads nowhere', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file.json'), '{}');
    symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
    symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
    expect((await asyncFailure(() => readRegularText(join(dir, 'none.json')))).code).toBe('ENOENT');
    expect((await asyncFailure(() => readRegularText(join(dir, 'file.json', 'v001.json')))).code).toBe('ENOTDIR');
    expect((await asyncFailure(() => readRegularText(join(dir, 'loop-a')))).code).toBe('ELOOP');
  });

  it('refuses a file larger than the limit by its size, however large (a sparse 300 GB file included)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'big'), Buffer.alloc(64 * 1024 + 1, 'a'));
    expect(await asyncFailure(() => readRegularFile(join(dir, 'big'), 64 * 1024))).toEqual({ code: 'EFBIG', message: 'it holds more than 64 KB, the most read from such a file' });
    const huge = join(dir, 'huge.json');
    closeSync(openSync(huge, 'w'));
    truncateSync(huge, 300 * 1024 ** 3);
    expect(await asyncFailure(() => readRegularText(huge))).toEqual({ code: 'EFBIG', message: 'it holds more than 32 MB, the most read from such a file' });
  });
});

describe('reading a file another file names (a dump a questions file lists), on this thread', () => {
  const tempDir = useTempDirs();

  it('reads a regular file, and refuses a named pipe with no writer at once instead of blocking', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'dump.sql'), 'INSERT INTO t VALUES (1);\n');
    expect(readRegularBoundedText(join(dir, 'dump.sql'))).toBe('INSERT INTO t VALUES (1);\n');
    const fifo = join(dir, 'pipe.sql');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // readBounded would wait here for a writer that never comes.
    expect(failure(() => readRegularBounded(fifo, 1024))).toEqual({ code: 'ENOTREG', message: 'it is a named pipe, not a regular file' });
    expect(() => openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)).toThrow(expect.objectContaining({ code: 'ENXIO' }));
  });

  it('refuses devices and folders, and a regular file past the limit', () => {
    const dir = tempDir();
    expect(failure(() => readRegularBounded('/dev/zero', 1024))).toEqual({ code: 'ENOTREG', message: 'it is a device, not a regular file' });
    mkdirSync(join(dir, 'sub'));
    expect(failure(() => readRegularBounded(join(dir, 'sub'), 10)).code).toBe('EISDIR');
    writeFileSync(join(dir, 'big'), Buffer.alloc(2048, 'a'));
    expect(failure(() => readRegularBounded(join(dir, 'big'), 1024)).code).toBe('EFBIG');
    writeFileSync(join(dir, 'latin1.sql'), Buffer.from('Krak\xf3w', 'latin1'));
    expect(failure(() => readRegularBoundedText(join(dir, 'latin1.sql'))).code).toBe('EILSEQ');
  });
});
