import type { FileHandle } from 'node:fs/promises';

/**
 * How much of a GGUF file its header may make us read, and for how long. A real header
 * (metadata and vocabulary of a 256k-token model) is under 20 MiB and read in well under a
 * second; anything past these bounds is a hostile or broken file, refused rather than walked.
 */
export interface GgufReadLimits {
  /** Bytes from the start of the file the metadata must end within. */
  headerBytes: number;
  /** Wall-clock budget of one header read. */
  budgetMs: number;
  /** The clock the budget is measured with (injected by tests). */
  now(): number;
}

export const defaultGgufReadLimits: GgufReadLimits = {
  headerBytes: 64 * 1024 * 1024,
  budgetMs: 10_000,
  now: () => performance.now(),
};

/** Why a header cannot be read; the caller adds the file's name. */
export class GgufFormatError extends Error {}

const chunkBytes = 1024 * 1024;

/**
 * Reads a file front to back through one buffer of about 1 MiB, so memory does not depend on
 * what the file claims. Every read is checked against the end of the file and the header
 * budget first, which is what turns "2^60 elements" or a cut-off file into a sentence instead
 * of an allocation or a read past the end. `has`/`take*` are synchronous so the hot loops
 * (a vocabulary of 150k strings) need no await per element; `need` fills the buffer.
 */
export class GgufByteReader {
  private buffer: Buffer = Buffer.alloc(0);
  /** File offset of `buffer[0]`. */
  private bufferStart = 0;
  /** File offset of the next byte to read. */
  position = 0;
  private readonly deadline: number;

  constructor(
    private readonly handle: FileHandle,
    readonly fileSize: number,
    private readonly limits: GgufReadLimits,
  ) {
    this.deadline = limits.now() + limits.budgetMs;
  }

  /** Bytes between the read position and the end of the file. */
  get remaining(): number {
    return this.fileSize - this.position;
  }

  /** True when `count` bytes from the position are in the buffer already. */
  has(count: number): boolean {
    return this.position >= this.bufferStart && this.position + count <= this.bufferStart + this.buffer.length;
  }

  /** Makes `count` bytes from the position available, or says why the file cannot give them. */
  async need(count: number, what: string): Promise<void> {
    this.assertWithin(count, what);
    if (this.has(count)) return;
    this.checkBudget();
    const length = Math.min(Math.max(count, chunkBytes), this.fileSize - this.position);
    const buffer = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.handle.read(buffer, filled, length - filled, this.position + filled);
      // The file shrank since its size was read: it ends here.
      if (bytesRead === 0) throw new GgufFormatError(`the file ends inside the header (at byte ${this.position + filled}, reading ${what})`);
      filled += bytesRead;
    }
    this.buffer = buffer;
    this.bufferStart = this.position;
  }

  /** Moves past `count` bytes without reading them (a skipped value never enters memory). */
  skip(count: number, what: string): void {
    this.assertWithin(count, what);
    this.position += count;
  }

  takeUint8(): number {
    const value = this.buffer.readUInt8(this.position - this.bufferStart);
    this.position += 1;
    return value;
  }

  takeUint32(): number {
    const value = this.buffer.readUInt32LE(this.position - this.bufferStart);
    this.position += 4;
    return value;
  }

  takeUint64(): bigint {
    const value = this.buffer.readBigUInt64LE(this.position - this.bufferStart);
    this.position += 8;
    return value;
  }

  takeBytes(count: number): Buffer {
    const start = this.position - this.bufferStart;
    this.position += count;
    return this.buffer.subarray(start, start + count);
  }

  /** A view of the next `count` buffered bytes, for fixed-size values (read by the caller). */
  peek(count: number): Buffer {
    const start = this.position - this.bufferStart;
    return this.buffer.subarray(start, start + count);
  }

  /** Refuses a header that has run past its time budget; called per chunk and in long loops. */
  checkBudget(): void {
    if (this.limits.now() > this.deadline) {
      throw new GgufFormatError(`reading the header took longer than ${this.limits.budgetMs / 1000} s (at byte ${this.position} of ${this.fileSize}); no real model's header takes that long`);
    }
  }

  private assertWithin(count: number, what: string): void {
    if (this.position + count > this.fileSize) throw new GgufFormatError(`the file ends inside the header (at byte ${this.fileSize}, reading ${what} at byte ${this.position})`);
    if (this.position + count > this.limits.headerBytes) {
      throw new GgufFormatError(`the header runs past ${formatMiB(this.limits.headerBytes)} (reading ${what} at byte ${this.position}); no real model's header is that large`);
    }
  }
}

function formatMiB(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MiB` : `${bytes} bytes`;
}
