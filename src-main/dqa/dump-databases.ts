/**
 * `dwb dqa solve` without `--target`: each dump a question names is read and parsed in memory
 * once per run (questions share dumps) and simulated straight from the parsed rows, with no
 * database round-trip. Nothing here loads a database driver; reading through an engine is
 * `scenario-databases.ts` (`--target`, and the connector tests).
 */
import { existsSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { WorkbenchError, fileErrorCode, fileErrorReason } from '../contract/errors';
import type { BuildingData } from './building-data';
import { fileIdentity, type DumpCache } from './dump-cache';
import { dumpSourceHash, type DumpCacheKey } from './dump-cache-format';
import { loadBuildingDump, loadLocatingDump } from './load';
import type { LocatingData } from './locating-data';
import { prepareScenario, type LoadedScenario } from './prepared-scenario';
import type { DatabaseOptions, DbKind, LoadedDatabase, ScenarioDatabases } from './scenario-database';
import { nonRegularKind, readLimits, readRegularBounded, readRegularBoundedText, utf8Text } from '../native/bounded-read';

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
  requireDumpExtension(path, dump, db);
  return path;
}

function requireDumpExtension(path: string, dump: string, db: DbKind): void {
  const expected = db === 'rdb' ? '.sql' : '.cql';
  if (extname(path).toLowerCase() !== expected) throw new WorkbenchError('invalid-request', `${dump}: a --db ${db} dump must be a ${expected} file`);
}

/** Checks every dump up front, so a bad path fails before any work (and with one message). */
export function requireDumpFiles(baseDir: string, dumps: readonly string[], db: DbKind): void {
  for (const dump of new Set(dumps)) dumpPathOf(baseDir, dump, db);
}

/**
 * `requireDumpFiles` for dumps a questions file names to the server: looked at off the main
 * thread, and each must be a regular file (a named pipe there would stall the server's reader).
 */
export async function checkDumpFiles(baseDir: string, dumps: readonly string[], db: DbKind): Promise<void> {
  for (const dump of new Set(dumps)) {
    const path = resolve(baseDir, dump);
    let stats: Stats;
    try {
      stats = await stat(path);
    } catch (error) {
      throw new WorkbenchError(fileErrorCode(error), `dump ${dump} cannot be read at ${path}: ${fileErrorReason(error)}`);
    }
    if (!stats.isFile()) throw new WorkbenchError('invalid-request', `dump ${dump} at ${path} is ${nonRegularKind(stats)}, not a regular file`);
    requireDumpExtension(path, dump, db);
  }
}

function parseDumpText(text: string, dump: string, options: Pick<DatabaseOptions, 'scenario' | 'db'>): LocatingData | BuildingData {
  const kind = options.db === 'rdb' ? 'relational' : 'graph';
  return options.scenario === 'locating' ? loadLocatingDump(text, kind, dump) : loadBuildingDump(text, kind, dump);
}

function preparedFrom(data: LocatingData | BuildingData, scenario: DatabaseOptions['scenario']): LoadedScenario {
  const prepared = scenario === 'locating' ? prepareScenario('locating', data as LocatingData) : prepareScenario('building', data as BuildingData);
  return { prepared, ordering: ['file order of the dump'], warnings: [] };
}

/** Parses one dump file into the scenario's prepared, indexed form. */
export function parseDumpFile(path: string, dump: string, options: Pick<DatabaseOptions, 'scenario' | 'db'>): LoadedScenario {
  return preparedFrom(parseDumpText(readDumpText(path), dump, options), options.scenario);
}

/**
 * A dump's bytes. A questions file names its dumps, so only a regular file is read, opened so
 * that a named pipe put there cannot block the thread (the app server's main thread, in a
 * benchmark or a training); a questions file itself may still come from a pipe on the CLI.
 */
function readDumpBytes(path: string): Buffer {
  return readRegularBounded(path, readLimits.text);
}

function readDumpText(path: string): string {
  return readRegularBoundedText(path);
}

/**
 * The dump's parsed data from `cache` when it holds this file's bytes, else parsed (and then
 * stored). Either way the same data: the cache keys on the bytes' sha-256 and checks its entries.
 * The sha-256 is the one a run remembered for this exact file identity (device, inode, size,
 * modification and change times) when there is one, else the file is read and hashed.
 */
export function parsedDumpData(
  path: string,
  dump: string,
  options: Pick<DatabaseOptions, 'scenario' | 'db'>,
  cache: DumpCache,
  progress: (line: string) => void,
): LocatingData | BuildingData {
  const kind = options.db === 'rdb' ? 'relational' : 'graph';
  const identity = fileIdentity(path);
  let bytes: Buffer | null = null;
  let sourceHash = identity === null ? null : cache.knownSourceHash(identity);
  if (sourceHash === null) {
    bytes = readDumpBytes(path);
    sourceHash = dumpSourceHash(bytes);
    if (identity !== null) cache.rememberSourceHash(path, identity, sourceHash);
  }
  const cached = cache.get({ sourceHash, scenario: options.scenario, kind });
  if (cached !== null) {
    progress(`${dump} from the dump cache`);
    return cached;
  }
  progress(`parsing ${dump}`);
  // Parsed from the bytes there now, and stored under their own hash.
  if (bytes === null) {
    bytes = readDumpBytes(path);
    const fresh = dumpSourceHash(bytes);
    if (identity !== null && !fresh.equals(sourceHash)) cache.rememberSourceHash(path, identity, fresh);
    sourceHash = fresh;
  }
  const key: DumpCacheKey = { sourceHash, scenario: options.scenario, kind };
  const data = parseDumpText(utf8Text(bytes), dump, options);
  cache.put(key, data);
  return data;
}

/**
 * Dumps parsed in memory, through `cache` when one is given (`dwb dqa solve` without
 * `--no-dump-cache`). `via` is the same either way, so results do not depend on the cache.
 */
export function parsedDumpDatabases(options: DatabaseOptions, cache: DumpCache | null = null): ScenarioDatabases {
  const { db, baseDir } = options;
  const progress = options.progress ?? ((): void => undefined);
  const kind = db === 'rdb' ? 'relational' : 'graph';
  const loadOne = async (dump: string): Promise<LoadedDatabase> => {
    const path = dumpPathOf(baseDir, dump, db);
    const started = performance.now();
    let loaded: LoadedScenario;
    if (cache === null) {
      progress(`parsing ${dump}`);
      loaded = parseDumpFile(path, dump, options);
    } else {
      loaded = preparedFrom(parsedDumpData(path, dump, options, cache, progress), options.scenario);
    }
    return { ...loaded, via: `${kind} dump parsed in memory (${dump})`, loadMs: performance.now() - started };
  };
  return { load: cachedLoader(loadOne, (dump) => resolve(baseDir, dump)), close: async () => undefined };
}
