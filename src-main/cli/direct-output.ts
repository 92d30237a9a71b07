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
  const write = directByteWriter(fd);
  return (text) => {
    const bytes = Buffer.from(text, 'utf8');
    return write(bytes, bytes.length);
  };
}

/** Writes the first `length` bytes to `fd` as directTextWriter writes text: whole, waiting on a full pipe, false once the reader has gone. */
function directByteWriter(fd: number): (bytes: Uint8Array, length: number) => boolean {
  let closed = false;
  return (bytes, length) => {
    if (closed) return false;
    let offset = 0;
    while (offset < length) {
      try {
        offset += writeSync(fd, bytes, offset, length - offset);
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

/** Text gathered as UTF-8 in one reused buffer and written to a descriptor when it is full or flushed. */
export interface BufferedTextWriter {
  /** Adds text (written out first if the buffer cannot take it); false once the reader has gone. */
  add(text: string): boolean;
  /** Writes out what the buffer holds; false once the reader has gone. */
  flush(): boolean;
}

/**
 * A BufferedTextWriter of `capacity` bytes over `fd`. Streamed rows are encoded into the same
 * bytes again and again instead of a new string and Buffer per batch: a batch kept whole until
 * it was written outlived young-generation collections, which then grew the heap (issue 29).
 */
export function bufferedTextWriter(fd: number, capacity = 64 * 1024): BufferedTextWriter {
  const write = directByteWriter(fd);
  const buffer = Buffer.allocUnsafe(capacity);
  let used = 0;
  const flush = (): boolean => {
    const length = used;
    used = 0;
    return length === 0 || write(buffer, length);
  };
  return {
    add(text) {
      // A UTF-16 code unit takes at most 3 bytes of UTF-8 (a surrogate pair: 4 for 2 units).
      if (used + text.length * 3 > capacity && !flush()) return false;
      if (text.length * 3 > capacity) {
        const bytes = Buffer.from(text, 'utf8');
        return write(bytes, bytes.length);
      }
      used += buffer.write(text, used, 'utf8');
      return true;
    },
    flush,
  };
}

/** The CLI's stdout and stderr lines: direct writes where the streams are synchronous anyway. */
export function processLineWriters(): { stdout(line: string): void; stderr(line: string): void; stdoutFd?: number } {
  if (process.platform === 'win32') {
    return { stdout: (line) => void process.stdout.write(`${line}\n`), stderr: (line) => void process.stderr.write(`${line}\n`) };
  }
  return { stdout: directLineWriter(1), stderr: directLineWriter(2), stdoutFd: 1 };
}
