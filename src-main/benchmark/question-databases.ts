/**
 * The databases the technique runs query: each question's dump imported once into an
 * embedded engine (relational dumps into SQLite, graph dumps into LadybugDB) and cached under
 * DIR/databases, so a resumed batch reuses them. An import is written beside its final name
 * and renamed into place, so a kill mid-import never leaves a half-built database behind.
 * The simulator's view of the same database (the exact compat rules judge every decision)
 * is loaded once per dump through the same connector the model queried.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { WorkbenchError } from '../contract/errors';
import { openLadybugConnector } from '../connectors/ladybug';
import { openSqliteConnector } from '../connectors/sqlite/sqlite-connector';
import type { Connector } from '../connectors/connector';
import type { DqaScenario } from '../dqa/dataset';
import { importGraphDump, importRelationalDump, ladybugUnavailableReason } from '../dqa/dump-import';
import { loadScenarioFromConnector, type PreparedScenario } from '../dqa/prepared-scenario';
import type { DbKind } from '../dqa/scenario-databases';

export interface QuestionDatabase {
  /** What a run connects to, e.g. `sqlite:/…/databases/USA1836-1a2b3c4d.sqlite`. */
  connectionUri: string;
  prepared: PreparedScenario;
}

export interface QuestionDatabases {
  /** `dumpPath` is absolute. */
  get(dumpPath: string, scenario: DqaScenario): Promise<QuestionDatabase>;
}

/** A cache file name unique per dump path: two question files may name different dumps alike. */
function cacheName(dumpPath: string, db: DbKind): string {
  const tag = createHash('sha256').update(resolve(dumpPath)).digest('hex').slice(0, 8);
  const stem = basename(dumpPath, extname(dumpPath)).replace(/[^A-Za-z0-9._-]/g, '_');
  return `${stem}-${tag}${db === 'rdb' ? '.sqlite' : '.lbug'}`;
}

async function importInto(dumpPath: string, db: DbKind, target: string, cacheDir: string): Promise<void> {
  const staging = mkdtempSync(join(cacheDir, '.import-'));
  try {
    const built = db === 'rdb' ? importRelationalDump(dumpPath, staging, 0) : await importGraphDump(dumpPath, staging, 0);
    renameSync(built, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function withConnector<T>(connector: Connector, work: (connector: Connector) => Promise<T>): Promise<T> {
  try {
    return await work(connector);
  } finally {
    await connector.close();
  }
}

export function questionDatabases(outDir: string, db: DbKind): QuestionDatabases {
  const cacheDir = join(outDir, 'databases');
  const pending = new Map<string, Promise<QuestionDatabase>>();
  const load = async (dumpPath: string, scenario: DqaScenario): Promise<QuestionDatabase> => {
    if (db === 'gdb') {
      const missing = ladybugUnavailableReason();
      if (missing !== null) throw new WorkbenchError('unsupported', `graph questions need LadybugDB: ${missing}`);
    }
    mkdirSync(cacheDir, { recursive: true });
    const target = join(cacheDir, cacheName(dumpPath, db));
    if (!existsSync(target)) await importInto(dumpPath, db, target, cacheDir);
    const connectionUri = `${db === 'rdb' ? 'sqlite' : 'ladybug'}:${target}`;
    const connector = db === 'rdb' ? openSqliteConnector({ path: target }) : await openLadybugConnector({ path: target, bufferPoolBytes: 128 * 1024 * 1024 });
    const loaded = await withConnector(connector, (c) => loadScenarioFromConnector(c, scenario, basename(dumpPath)));
    return { connectionUri, prepared: loaded.prepared };
  };
  return {
    get: (dumpPath, scenario) => {
      const key = resolve(dumpPath);
      let promise = pending.get(key);
      if (promise === undefined) {
        promise = load(key, scenario);
        pending.set(key, promise);
      }
      return promise;
    },
  };
}
