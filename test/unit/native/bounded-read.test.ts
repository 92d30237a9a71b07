import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBounded, readBoundedText } from '../../../src-main/native/bounded-read';
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
