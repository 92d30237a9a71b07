/**
 * `dwb dqa solve` without `--target`: each dump a question names is read and parsed in memory
 * once per run (questions share dumps) and simulated straight from the parsed rows, with no
 * database round-trip. Nothing here loads a database driver; reading through an engine is
 * `scenario-databases.ts` (`--target`, and the connector tests).
 */
import { existsSync, readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { WorkbenchError } from '../contract/errors';
import { loadBuildingDump, loadLocatingDump } from './load';
import { prepareScenario, type LoadedScenario } from './prepared-scenario';
import type { DatabaseOptions, DbKind, LoadedDatabase, ScenarioDatabases } from './scenario-databases';

/** Memoizes one load per key, so questions sharing a dump share its promise. */
export function cachedLoader(load: (dump: string) => Promise<LoadedDatabase>, keyOf: (dump: string) => string): (dump: string) => Promise<LoadedDatabase> {
  const cache = new Map<string, Promise<LoadedDatabase>>();
  return (dump) => {
    const key = keyOf(dump);
    let pending = cache.get(key);
    if (pending === undefined) {
      pending = load(dump);
      cache.set(key, pending);
    }
    return pending;
  };
}

export function dumpPathOf(baseDir: string, dump: string, db: DbKind): string {
  const path = resolve(baseDir, dump);
  if (!existsSync(path)) throw new WorkbenchError('not-found', `dump ${dump} not found at ${path}`);
  const expected = db === 'rdb' ? '.sql' : '.cql';
  if (extname(path).toLowerCase() !== expected) throw new WorkbenchError('invalid-request', `${dump}: a --db ${db} dump must be a ${expected} file`);
  return path;
}

/** Checks every dump up front, so a bad path fails before any work (and with one message). */
export function requireDumpFiles(baseDir: string, dumps: readonly string[], db: DbKind): void {
  for (const dump of new Set(dumps)) dumpPathOf(baseDir, dump, db);
}

/** Parses one dump file into the scenario's prepared, indexed form. */
export function parseDumpFile(path: string, dump: string, options: Pick<DatabaseOptions, 'scenario' | 'db'>): LoadedScenario {
  const text = readFileSync(path, 'utf8');
  const kind = options.db === 'rdb' ? 'relational' : 'graph';
  const prepared = options.scenario === 'locating' ? prepareScenario('locating', loadLocatingDump(text, kind, dump)) : prepareScenario('building', loadBuildingDump(text, kind, dump));
  return { prepared, ordering: ['file order of the dump'], warnings: [] };
}

export function parsedDumpDatabases(options: DatabaseOptions): ScenarioDatabases {
  const { db, baseDir } = options;
  const progress = options.progress ?? ((): void => undefined);
  const kind = db === 'rdb' ? 'relational' : 'graph';
  const loadOne = async (dump: string): Promise<LoadedDatabase> => {
    const path = dumpPathOf(baseDir, dump, db);
    const started = performance.now();
    progress(`parsing ${dump}`);
    const loaded = parseDumpFile(path, dump, options);
    return { ...loaded, via: `${kind} dump parsed in memory (${dump})`, loadMs: performance.now() - started };
  };
  return { load: cachedLoader(loadOne, (dump) => resolve(baseDir, dump)), close: async () => undefined };
}
