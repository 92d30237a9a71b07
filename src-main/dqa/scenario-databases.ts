/**
 * Reading each question's database through a database engine, loaded once per dump
 * (questions share dumps). `dwb dqa solve` parses dump files in memory (dump-databases.ts);
 * this module is for reading through the connectors:
 * - `importingDatabases`: each dump is imported into an embedded engine in a scratch folder
 *   and read back through its connector: relational dumps into SQLite, graph dumps into LadybugDB
 *   (the connector tests use it to show both paths load the same data). When this build
 *   cannot start the LadybugDB connector, graph dumps are parsed in memory instead, and every
 *   result says so (`via`);
 * - `targetDatabases` (`--target`): a connection URI (optionally holding `{dump}`, replaced by
 *   the dump's file name without extension) names databases the analyst already loaded; they
 *   are opened read-only through the ordinary connectors.
 * Scratch folders are removed by `close()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import type { ConnectionTarget } from '../contract/connections';
import { openConnectionUri, parseConnectionUri } from '../connectors/connection-uri';
import type { Connector } from '../connectors/connector';
import { openLadybugConnector } from '../connectors/ladybug';
import { openSqliteConnector } from '../connectors/sqlite/sqlite-connector';
import { cachedLoader, dumpPathOf, parseDumpFile } from './dump-databases';
import { importGraphDump, importRelationalDump, ladybugUnavailableReason } from './dump-import';
import { loadScenarioFromConnector, type LoadedScenario } from './prepared-scenario';
import type { DatabaseOptions, LoadedDatabase, ScenarioDatabases } from './scenario-database';

export { checkDumpFiles, requireDumpFiles } from './dump-databases';
export type { DatabaseOptions, DbKind, LoadedDatabase, ScenarioDatabases } from './scenario-database';

async function withConnector<T>(connector: Connector, work: (connector: Connector) => Promise<T>): Promise<T> {
  try {
    return await work(connector);
  } finally {
    await connector.close();
  }
}

export function importingDatabases(options: DatabaseOptions): ScenarioDatabases {
  const { scenario, db, baseDir } = options;
  const progress = options.progress ?? ((): void => undefined);
  const scratch = mkdtempSync(join(tmpdir(), 'dwb-dqa-'));
  const ladybugMissing = db === 'gdb' ? ladybugUnavailableReason() : null;
  if (ladybugMissing !== null) progress(`graph dumps: LadybugDB unavailable: ${ladybugMissing}; parsing each .cql dump in memory instead of reading it through a graph engine`);
  let imported = 0;

  const parsedInMemory = (path: string, dump: string): { loaded: LoadedScenario; via: string } => ({
    loaded: parseDumpFile(path, dump, { scenario, db }),
    via: `graph dump parsed in memory (${dump})`,
  });

  const throughKuzu = async (path: string, dump: string, index: number): Promise<{ loaded: LoadedScenario; via: string }> => {
    const directory = await importGraphDump(path, scratch, index);
    const connector = await openLadybugConnector({ path: directory, bufferPoolBytes: 128 * 1024 * 1024 });
    const loaded = await withConnector(connector, (c) => loadScenarioFromConnector(c, scenario, dump));
    return { loaded, via: `ladybug (imported from ${dump})` };
  };

  const loadOne = async (dump: string): Promise<LoadedDatabase> => {
    const path = dumpPathOf(baseDir, dump, db);
    const started = performance.now();
    imported += 1;
    let outcome: { loaded: LoadedScenario; via: string };
    if (db === 'rdb') {
      progress(`loading ${dump} into SQLite`);
      const file = importRelationalDump(path, scratch, imported);
      const loaded = await withConnector(openSqliteConnector({ path: file }), (connector) => loadScenarioFromConnector(connector, scenario, dump));
      outcome = { loaded, via: `sqlite (imported from ${dump})` };
    } else if (ladybugMissing === null) {
      progress(`loading ${dump} into LadybugDB`);
      try {
        outcome = await throughKuzu(path, dump, imported);
      } catch (error) {
        // LadybugDB cannot hold everything a dump may (e.g. empty strings): say so and still decide from the dump itself.
        progress(`${dump}: reading through LadybugDB failed (${error instanceof Error ? error.message : String(error)}); parsing the dump in memory instead`);
        outcome = parsedInMemory(path, dump);
      }
    } else {
      progress(`parsing ${dump}`);
      outcome = parsedInMemory(path, dump);
    }
    return { ...outcome.loaded, via: outcome.via, loadMs: performance.now() - started };
  };

  return {
    load: cachedLoader(loadOne, (dump) => resolve(baseDir, dump)),
    close: async () => {
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

export const DUMP_PLACEHOLDER = '{dump}';

/** `--target URI`: `{dump}` becomes the dump's file name without extension (e.g. `USA1836`). */
export function targetUriFor(template: string, dump: string): string {
  const name = basename(dump, extname(dump));
  return template.replaceAll(DUMP_PLACEHOLDER, name);
}

/** A target for messages: its file or its URL, which the parser has already stripped of any password. */
function describeTarget(target: ConnectionTarget): string {
  return 'path' in target ? `${target.engine}:${target.path}` : target.url;
}

export function targetDatabases(template: string, options: DatabaseOptions): ScenarioDatabases {
  const { scenario } = options;
  const progress = options.progress ?? ((): void => undefined);
  // Validate the URI once up front so a typo fails before any work.
  parseConnectionUri(targetUriFor(template, 'check'));

  const loadOne = async (dump: string): Promise<LoadedDatabase> => {
    const uri = targetUriFor(template, dump);
    const started = performance.now();
    const target = parseConnectionUri(uri);
    const described = describeTarget(target);
    progress(`reading ${described}`);
    // The URI's password, if any, is used for this open only and never printed.
    // The dump's name also picks its elements out of a graph database holding several dumps (Neo4j Community).
    const name = basename(dump, extname(dump));
    const loaded = await withConnector(await openConnectionUri(uri), (connector) => loadScenarioFromConnector(connector, scenario, described, name));
    return { ...loaded, via: `${target.engine} (${described})`, loadMs: performance.now() - started };
  };

  return {
    // One load per dump: a target without {dump} may still hold several dumps, told apart by their tag.
    load: cachedLoader(loadOne, (dump) => `${targetUriFor(template, dump)}\n${basename(dump, extname(dump))}`),
    close: async () => undefined,
  };
}
