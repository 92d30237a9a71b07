import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { parseSqlDump } from '../../src-main/dqa/sql-dump';
import { writeSqliteDatabase } from '../../src-main/dqa/sqlite-import';
import type { Environment } from '../../src-main/workspace/clock';

export const repoRoot = resolve(__dirname, '..', '..');

/** The shared DQA folder (tests may read it; the app never does). */
export function dqaRoot(): string {
  return process.env['DQA_DIR'] ?? resolve(repoRoot, '..', 'shared', 'dqa');
}

/** A SQLite file converted from a DQA relational dump, e.g. `locating/db/locating-1445-15b6e0aa.sql`. */
export function sqliteFromDqaDump(relativeDump: string, directory: string): string {
  const dumpPath = join(dqaRoot(), relativeDump);
  const target = join(directory, `${relativeDump.split('/').pop()?.replace(/\.sql$/, '')}.sqlite`);
  writeSqliteDatabase(parseSqlDump(readFileSync(dumpPath, 'utf8'), dumpPath), target);
  return target;
}

/** A small SQLite file written with better-sqlite3 directly: two related tables. */
export function tinySqlite(directory: string): string {
  const path = join(directory, 'tiny.sqlite');
  const database = new Database(path);
  database.exec(`
    CREATE TABLE region (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE store (id INTEGER PRIMARY KEY, region_id INTEGER REFERENCES region(id), revenue REAL, note TEXT);
    INSERT INTO region VALUES (1, 'north'), (2, 'south');
    INSERT INTO store VALUES (1, 1, 10.5, 'a'), (2, 1, 20, NULL), (3, 2, 7.25, 'c'), (4, 2, 1e3, 'd');
    CREATE VIEW revenue_by_region AS SELECT r.name, sum(s.revenue) AS revenue FROM store s JOIN region r ON r.id = s.region_id GROUP BY r.name;
  `);
  database.close();
  return path;
}

export function fileHash(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Deterministic ids and clock, so stored notebooks compare exactly. */
export function fixedEnvironment(): Environment {
  let id = 0;
  let tick = 0;
  return {
    newId: () => `id-${String(++id).padStart(4, '0')}`,
    now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)).toISOString(),
  };
}

/** A query SQLite keeps busy on until stopped (an unbounded recursive count). */
export const endlessSqliteQuery = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';
