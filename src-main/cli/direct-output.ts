/**
 * Lines written straight to a file descriptor with writeSync, for the CLI's stdout and stderr.
 * Touching `process.stdout` or `process.stderr` builds a stream (and loads net, tty and stream
 * internals) — about 15 ms of CPU of a 0.35 s `dwb dqa solve` run; on Linux and macOS those
 * streams write synchronously to files, pipes and terminals anyway, so writing to the
 * descriptor directly keeps the same order and bytes. Windows keeps the streams (its pipes
 * are asynchronous there, and direct writes could overtake queued output).
 */
import { writeSync } from 'node:fs';

/** A short pause while a non-blocking pipe is full, without spinning the CPU. */
const pause = new Int32Array(new SharedArrayBuffer(4));

export function directLineWriter(fd: number): (line: string) => void {
  const write = directTextWriter(fd);
  return (line) => void write(`${line}\n`);
}

/**
 * Writes text to `fd` whole, waiting while a non-blocking pipe is full (the reader's pace is the
 * writer's: backpressure); false once the reader has gone (EPIPE), and every later write is dropped.
 */
export function directTextWriter(fd: number): (text: string) => boolean {
  let closed = false;
  return (text) => {
    if (closed) return false;
    const bytes = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += writeSync(fd, bytes, offset, bytes.length - offset);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          Atomics.wait(pause, 0, 0, 1);
          continue;
        }
        // The reader went away (`dwb … | head`): the rest of the output has nowhere to go.
        if (code === 'EPIPE') {
          closed = true;
          return false;
        }
        throw error;
      }
    }
    return true;
  };
}

/** The CLI's stdout and stderr lines: direct writes where the streams are synchronous anyway. */
export function processLineWriters(): { stdout(line: string): void; stderr(line: string): void; stdoutFd?: number } {
  if (process.platform === 'win32') {
    return { stdout: (line) => void process.stdout.write(`${line}\n`), stderr: (line) => void process.stderr.write(`${line}\n`) };
  }
  return { stdout: directLineWriter(1), stderr: directLineWriter(2), stdoutFd: 1 };
}
