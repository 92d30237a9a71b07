/**
 * Imports DQA dump files into embedded engines in a scratch folder, so they can be read back
 * through the same connectors as the analyst's own databases: relational dumps into SQLite
 * files, graph dumps into LadybugDB databases.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { writeSqliteDatabase } from './sqlite-import';
import { parseCypherDump } from './cypher-dump';
import { writeLadybugDatabase } from './ladybug-import';
import { parseSqlDump } from './sql-dump';
import { readRegularBoundedText } from '../native/bounded-read';

/** A file name for the imported copy of `dumpPath`, unique within one scratch folder. */
function targetName(dumpPath: string, index: number, extension: string): string {
  return `${index}-${basename(dumpPath).replace(/[^A-Za-z0-9._-]/g, '_')}${extension}`;
}

export function importRelationalDump(dumpPath: string, scratchDir: string, index: number): string {
  const target = join(scratchDir, targetName(dumpPath, index, '.sqlite'));
  writeSqliteDatabase(parseSqlDump(readRegularBoundedText(dumpPath), dumpPath), target);
  return target;
}

export async function importGraphDump(dumpPath: string, scratchDir: string, index: number): Promise<string> {
  const target = join(scratchDir, targetName(dumpPath, index, '.lbug'));
  await writeLadybugDatabase(parseCypherDump(readRegularBoundedText(dumpPath), dumpPath), target, dumpPath);
  return target;
}

/**
 * Whether the LadybugDB connector can start its worker process here, and if not why. From source
 * (tests, tsx) it forks its TypeScript worker; from the electron-vite bundle it needs
 * `ladybug-worker.js` beside the bundle, which exists only once the bundle has that entry.
 */
export function ladybugUnavailableReason(): string | null {
  try {
    require.resolve('@ladybugdb/core');
  } catch {
    return 'the @ladybugdb/core package is not installed';
  }
  const runningFromSource = __filename.endsWith('.ts');
  if (!runningFromSource && !existsSync(join(__dirname, 'ladybug-worker.js'))) {
    return 'this build has no LadybugDB connector worker (ladybug-worker.js is not bundled)';
  }
  return null;
}
