import { WorkbenchError } from '../contract/errors';

/** Output sinks, injected so commands can be tested without spawning a process. */
export interface CommandIo {
  stdout(line: string): void;
  stderr(line: string): void;
  /**
   * Writes text to stdout as is, settling once the output can take more (its backpressure);
   * rejects when the reader has gone. Streaming commands use it; without it they fall back to `stdout`.
   */
  write?(text: string): Promise<void>;
  /**
   * The descriptor behind stdout when bytes may be written to it directly (writeSync), as the
   * lines are; a command may then write its rows there itself without going through `write`.
   */
  stdoutFd?: number;
}

export { numberOption } from '../contract/written-number';

/** A positive whole number written in digits ("1e3", "0x10" and "5.0" are refused), or undefined when not given. */
export function positiveInteger(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number <= 0) throw new WorkbenchError('invalid-request', `${flag} takes a positive whole number, got "${value}"`);
  return number;
}

/** A positive whole number no larger than `max` (the documented cap), or undefined when not given. */
export function cappedPositiveInteger(value: string | undefined, flag: string, max: number): number | undefined {
  const number = positiveInteger(value, flag);
  if (number !== undefined && number > max) {
    throw new WorkbenchError('invalid-request', `${flag} is at most ${max.toLocaleString('en-US')}, got ${value ?? ''}`);
  }
  return number;
}

/** Prints the connector's warnings (e.g. a privileged login allowed by opt-in) on stderr, one per line. */
export function printConnectionWarnings(connector: { warnings?: readonly string[] }, io: CommandIo): void {
  for (const warning of connector.warnings ?? []) io.stderr(warning);
}
