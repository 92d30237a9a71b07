import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bufferedTextWriter, directLineWriter } from '../../../src-main/cli/direct-output';

const writerScript = resolve(__dirname, 'fixtures', 'direct-output-writer.ts');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs the writer child with piped stdio; `onStdout` may end the reading side early. */
function runWriter(count: number, onStdout: (chunk: Buffer, stop: () => void) => void, mode: 'lines' | 'buffered' = 'lines'): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writerScript, String(count), mode], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdout.on('data', (chunk: Buffer) => onStdout(chunk, () => child.stdout.destroy()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stderr: Buffer.concat(stderr).toString('utf8') }));
  });
}

/** 20,000 lines through a real pipe, far more than its buffer holds: every byte arrives, in order, and the process ends normally. */
async function expectEveryLineThroughPipe(mode: 'lines' | 'buffered'): Promise<void> {
  const count = 20_000;
  const chunks: Buffer[] = [];
  const { code, stderr } = await runWriter(count, (chunk) => chunks.push(chunk), mode);
  expect(code).toBe(0);
  expect(stderr).toBe('finished\n');
  const lines = Buffer.concat(chunks).toString('utf8').split('\n');
  expect(lines).toHaveLength(count + 1);
  expect(lines[0]).toBe(`line 0 ${'é€'.repeat(20)}`);
  expect(lines[count - 1]).toBe(`line ${count - 1} ${'é€'.repeat(20)}`);
  expect(lines[count]).toBe('');
}

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dwb-direct-'));
  dirs.push(dir);
  return join(dir, 'out.txt');
}

describe('directLineWriter', () => {
  it('writes each line and its newline, multi-byte characters intact, to a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dwb-direct-'));
    dirs.push(dir);
    const path = join(dir, 'out.txt');
    const fd = openSync(path, 'w');
    const write = directLineWriter(fd);
    const long = 'x'.repeat(300_000);
    write('première ligne €');
    write(long);
    write('');
    closeSync(fd);
    expect(readFileSync(path, 'utf8')).toBe(`première ligne €\n${long}\n\n`);
  });

  it('delivers every byte through a pipe far larger than the pipe buffer, in order', () => expectEveryLineThroughPipe('lines'), 30_000);

  it('stops writing quietly when the reader goes away, and the process finishes normally', async () => {
    let received = 0;
    const { code, stderr } = await runWriter(200_000, (chunk, stop) => {
      received += chunk.length;
      stop();
    });
    expect(received).toBeGreaterThan(0);
    expect(code).toBe(0);
    expect(stderr).toBe('finished\n');
  }, 30_000);
});

describe('bufferedTextWriter', () => {
  it('writes the UTF-8 bytes of every text in order, whatever the buffer size and however the texts fall across it', () => {
    const path = tempFile();
    // Texts with multi-byte characters, lone surrogates among them, some larger than the buffer.
    const texts = fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('', 'é€😀'.repeat(30), '\uD800x', 'x\uDC00')), { maxLength: 20 });
    fc.assert(
      fc.property(texts, fc.integer({ min: 3, max: 64 }), (parts, capacity) => {
        const fd = openSync(path, 'w');
        try {
          const out = bufferedTextWriter(fd, capacity);
          for (const text of parts) expect(out.add(text)).toBe(true);
          expect(out.flush()).toBe(true);
        } finally {
          closeSync(fd);
        }
        // Each text is encoded on its own, as writing it alone would encode it.
        expect(readFileSync(path)).toEqual(Buffer.concat(parts.map((text) => Buffer.from(text, 'utf8'))));
      }),
      { numRuns: 300 },
    );
  });

  it('holds what it was given until it is flushed or full', () => {
    const fd = openSync(tempFile(), 'w');
    try {
      const out = bufferedTextWriter(fd, 16);
      out.add('a,b\n');
      out.add('é\n');
      out.add('xyz');
      expect(fstatSync(fd).size).toBe(0);
      // Room is counted at 3 bytes a UTF-16 unit: 10 bytes held and 4 units more could overflow 16.
      out.add('abcd');
      expect(fstatSync(fd).size).toBe(10);
      out.flush();
      expect(fstatSync(fd).size).toBe(14);
    } finally {
      closeSync(fd);
    }
  });

  it('delivers every byte through a pipe far larger than the pipe buffer, in order', () => expectEveryLineThroughPipe('buffered'), 30_000);

  it('says the reader has gone, and the process finishes normally', async () => {
    const { code, stderr } = await runWriter(200_000, (_chunk, stop) => stop(), 'buffered');
    expect(code).toBe(0);
    expect(stderr).toBe('reader gone\nfinished\n');
  }, 30_000);
});
