import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { openDuckdbConnector } from '../../src-main/connectors/duckdb';
import { openLadybugConnector } from '../../src-main/connectors/ladybug';
import { openSqliteConnector } from '../../src-main/connectors/sqlite/sqlite-connector';
import type { Connector } from '../../src-main/connectors/connector';
import { writeDuckdbFixture, writeLadybugFixture, writeSqliteFixture } from '../integration/connectors/fixture-loaders';
import { generateAttempts, type DialectFamily } from './attack-generator';
import { digestPath, entriesOf, reportTally, runAttempts } from './attack-runner';

/**
 * Generated write and escape attempts against every file engine: each must be refused, and
 * the database (and the folder around it) must be byte-identical afterwards, with nothing
 * created where the attempts aim. All attempts of an engine share one connection.
 */
const root = mkdtempSync(join(tmpdir(), 'dwb-security-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function scratchDir(name: string): string {
  const dir = join(root, `${name}-scratch`);
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o777);
  return dir;
}

async function attack(options: {
  engine: string;
  family: DialectFamily;
  writes: Record<string, string>;
  watched: string;
  scratch: string;
  open: () => Promise<Connector> | Connector;
  stillReads: string;
  harmless?: Record<string, string>;
}): Promise<void> {
  const before = digestPath(options.watched);
  const connector = await options.open();
  let tally;
  try {
    tally = await runAttempts(options.engine, connector, generateAttempts(options.family, options.writes));
    // The connection still answers reads after hundreds of refusals.
    expect((await connector.query(options.stillReads, { maxRows: 5, timeoutMs: 10_000 })).rowCount).toBeGreaterThan(0);
  } finally {
    await connector.close();
  }
  const unchanged = digestPath(options.watched) === before;
  const created = entriesOf(options.scratch);
  reportTally(tally, `${unchanged ? 'file unchanged' : 'FILE CHANGED'}, ${created.length} files created`, options.harmless);
  expect(unchanged).toBe(true);
  expect(created).toEqual([]);
}

describe('security: SQLite', () => {
  it('refuses every generated write and escape; the file stays byte-identical', async () => {
    const dir = join(root, 'sqlite');
    mkdirSync(dir);
    const path = join(dir, 'trades.sqlite');
    writeSqliteFixture(path);
    const scratch = scratchDir('sqlite');
    await attack({
      engine: 'sqlite',
      family: 'sqlite',
      watched: dir,
      scratch,
      open: () => openSqliteConnector({ path }),
      stillReads: 'SELECT * FROM nodes',
      harmless: { '-- CR comment with a SELECT after a newline': 'SQLite ends -- comments at a newline, so the write is comment text' },
      writes: {
        INSERT: "INSERT INTO nodes VALUES (99, 'Evil', 'x')",
        UPDATE: "UPDATE nodes SET name = 'Evil'",
        DELETE: 'DELETE FROM trades',
        'DROP TABLE': 'DROP TABLE trades',
        'CREATE TABLE': 'CREATE TABLE evil (a)',
        'ALTER TABLE': 'ALTER TABLE nodes ADD COLUMN evil TEXT',
        'ATTACH new file': `ATTACH DATABASE '${join(scratch, 'evil.sqlite')}' AS evil`,
        'VACUUM INTO': `VACUUM INTO '${join(scratch, 'copy.sqlite')}'`,
        'PRAGMA locking_mode': 'PRAGMA locking_mode = EXCLUSIVE',
        'PRAGMA journal_mode': 'PRAGMA journal_mode = DELETE',
        'PRAGMA user_version': 'PRAGMA user_version = 7',
        'INSERT … RETURNING': "INSERT INTO nodes VALUES (98, 'Evil', 'x') RETURNING *",
      },
    });
  }, 300_000);
});

const duckdbWrites = (target: string, scratch: string): Record<string, string> => ({
  INSERT: "INSERT INTO nodes VALUES (99, 'Evil', 'x')",
  UPDATE: "UPDATE nodes SET name = 'Evil'",
  DELETE: 'DELETE FROM nodes',
  'DROP TABLE': 'DROP TABLE nodes',
  'CREATE TABLE': 'CREATE TABLE evil AS SELECT 1',
  'COPY TO the watched file': `COPY (SELECT 42 AS x) TO '${target}' (USE_TMP_FILE false)`,
  'COPY TO a new file': `COPY (SELECT 42 AS x) TO '${join(scratch, 'out.csv')}'`,
  'EXPORT DATABASE': `EXPORT DATABASE '${join(scratch, 'export')}'`,
  ATTACH: `ATTACH '${join(scratch, 'evil.duckdb')}' AS evil`,
  'SET external access': 'SET enable_external_access = true',
  CHECKPOINT: 'FORCE CHECKPOINT',
  'query() of a COPY to the watched file': `SELECT * FROM query('COPY (SELECT 42 AS x) TO ''${target}'' (USE_TMP_FILE false)')`,
});

describe.each([
  { kind: 'database file', engine: 'duckdb', source: 'trades.duckdb', open: (path: string) => openDuckdbConnector({ path }) },
  { kind: 'CSV file', engine: 'duckdb csv', source: 'nodes.csv', open: (csv: string) => openDuckdbConnector({ csv }) },
  { kind: 'Parquet file', engine: 'duckdb parquet', source: 'nodes.parquet', open: (parquet: string) => openDuckdbConnector({ parquet }) },
])('security: DuckDB ($kind)', ({ engine, source, open }) => {
  it('refuses every generated write and escape; the file stays byte-identical', async () => {
    const dir = join(root, engine.replace(/\W+/g, '-'));
    mkdirSync(dir);
    await writeDuckdbFixture(join(dir, 'trades.duckdb'), { csv: join(dir, 'nodes.csv'), parquet: join(dir, 'nodes.parquet') });
    const target = join(dir, source);
    const scratch = scratchDir(engine.replace(/\W+/g, '-'));
    await attack({ engine, family: 'duckdb', watched: dir, scratch, open: () => open(target), stillReads: 'SELECT * FROM nodes', writes: duckdbWrites(target, scratch) });
  }, 300_000);
});

describe('security: Kùzu', () => {
  it('refuses every generated write and escape; the database stays byte-identical', async () => {
    const dir = join(root, 'kuzu');
    mkdirSync(dir);
    const path = join(dir, 'trades.kuzu');
    writeLadybugFixture(path);
    const scratch = scratchDir('kuzu');
    await attack({
      engine: 'kuzu',
      family: 'cypher',
      watched: dir,
      scratch,
      open: () => openLadybugConnector({ path, bufferPoolBytes: 64 * 1024 * 1024 }),
      stillReads: 'MATCH (n:Node) RETURN n.name',
      writes: {
        CREATE: "CREATE (:Node {id: 99, name: 'Evil', region: 'x'})",
        SET: "MATCH (n:Node) SET n.name = 'Evil'",
        DELETE: 'MATCH (n:Node) DETACH DELETE n',
        MERGE: 'MERGE (n:Node {id: 98})',
        'DROP TABLE': 'DROP TABLE TRADES',
        'COPY TO the database file': `COPY (MATCH (n:Node) RETURN n.name) TO '${path}'`,
        'COPY TO a new file': `COPY (MATCH (n:Node) RETURN n.name) TO '${join(scratch, 'out.csv')}'`,
        'EXPORT DATABASE': `EXPORT DATABASE '${join(scratch, 'export')}'`,
        'CREATE NODE TABLE': 'CREATE NODE TABLE Evil(id INT64 PRIMARY KEY)',
        'CALL configuration': 'CALL threads = 1',
        'LOAD FROM a file': "LOAD FROM '/etc/hostname' (file_format = 'csv') RETURN *",
        'CREATE relationship': 'MATCH (a:Node {id: 1}), (b:Node {id: 2}) CREATE (a)-[:TRADES {id: 99}]->(b)',
        ATTACH: `ATTACH '${join(scratch, 'other.kuzu')}' AS other (dbtype kuzu)`,
      },
    });
  }, 300_000);
});
