import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { expect } from 'vitest';

import type { Connector } from '../../src-main/connectors/connector';
import { WorkbenchError } from '../../src-main/contract/errors';
import type { Attempt } from './attack-generator';

export interface AttackTally {
  engine: string;
  attempts: number;
  refused: number;
  /** Attempts that ran: each is a failure unless the data check shows nothing changed. */
  executed: Attempt[];
  /** Refusals by error code, e.g. { 'read-only': 380, syntax: 22 }. */
  codes: Record<string, number>;
}

/**
 * Runs the attempts one after another on one connection (the way a model's queries arrive)
 * and counts what was refused and what ran. A short timeout bounds every attempt.
 */
export async function runAttempts(engine: string, connector: Connector, attempts: Attempt[]): Promise<AttackTally> {
  const tally: AttackTally = { engine, attempts: attempts.length, refused: 0, executed: [], codes: {} };
  for (const attempt of attempts) {
    try {
      await connector.query(attempt.text, { maxRows: 5, timeoutMs: 10_000 });
      tally.executed.push(attempt);
    } catch (error) {
      if (!(error instanceof WorkbenchError)) throw new Error(`${attempt.name}: not a WorkbenchError: ${String(error)}`);
      tally.refused += 1;
      tally.codes[error.code] = (tally.codes[error.code] ?? 0) + 1;
    }
  }
  return tally;
}

/**
 * Prints `security ENGINE: N attempts, R refused, E executed, DATA` and asserts the figures.
 * `harmless` names disguises after which the engine itself reads the write as a comment and
 * runs only the read around it (e.g. SQLite ends `--` comments at a newline, not a carriage
 * return); such attempts may run, and the data check still has to show nothing changed.
 */
export function reportTally(tally: AttackTally, dataVerdict: string, harmless: Record<string, string> = {}, minimumAttempts = 300): void {
  const codes = Object.entries(tally.codes)
    .sort(([, a], [, b]) => b - a)
    .map(([code, count]) => `${code} ${count}`)
    .join(', ');
  const isHarmless = (attempt: Attempt): boolean => Object.keys(harmless).some((disguise) => attempt.name.endsWith(` / ${disguise}`));
  const harmlessRuns = tally.executed.filter(isHarmless);
  const reasons = [...new Set(harmlessRuns.map((attempt) => Object.entries(harmless).find(([disguise]) => attempt.name.endsWith(` / ${disguise}`))?.[1]))];
  console.log(
    `security ${tally.engine}: ${tally.attempts} attempts, ${tally.refused} refused, ${tally.executed.length - harmlessRuns.length} executed` +
      `${harmlessRuns.length > 0 ? ` (+${harmlessRuns.length} ran only a read: ${reasons.join('; ')})` : ''}, ${dataVerdict} (refusals: ${codes})`,
  );
  expect(tally.attempts).toBeGreaterThanOrEqual(minimumAttempts);
  expect(tally.executed.filter((attempt) => !isHarmless(attempt)).map((attempt) => attempt.name)).toEqual([]);
  expect(tally.refused + harmlessRuns.length).toBe(tally.attempts);
}

/** A digest of every file under `path` (names and bytes), for "nothing was written". */
export function digestPath(path: string): string {
  const hash = createHash('sha256');
  const walk = (current: string, relative: string): void => {
    if (!existsSync(current)) return;
    if (statSync(current).isDirectory()) {
      for (const name of readdirSync(current).sort()) walk(join(current, name), `${relative}/${name}`);
      return;
    }
    hash.update(relative).update('\0').update(readFileSync(current)).update('\0');
  };
  walk(path, '');
  return hash.digest('hex');
}

/** Entries of a scratch directory that write attempts aim at; it must stay empty. */
export function entriesOf(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}
