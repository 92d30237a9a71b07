import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';

import type { ConnectionTarget } from '../../../src-main/contract/connections';
import type { SchemaInfo } from '../../../src-main/contract/data';
import type { Connector } from '../../../src-main/connectors/connector';
import { openConnector } from '../../../src-main/connectors/open-connector';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { fixedEnvironment } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';
import { runLadybugStatements } from './fixture-loaders';

/**
 * A database file replaced at its path (a new file moved over it) or deleted while a connection
 * is open: the connection must read the file now at the path, or say it is gone, never go on
 * answering from the file it opened first.
 */

const tempDir = useTempDirs();
const open: Connector[] = [];
const workbenches: Workbench[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connector) => connector.close()));
  await Promise.all(workbenches.splice(0).map((workbench) => workbench.close()));
});

async function connect(target: ConnectionTarget): Promise<Connector> {
  const connector = await openConnector(target);
  open.push(connector);
  return connector;
}

const limits = { maxRows: 10, timeoutMs: 20_000 };

function writeSqlite(path: string, rows: number): void {
  const database = new Database(path);
  database.exec('CREATE TABLE big (id INTEGER PRIMARY KEY)');
  database.prepare('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO big SELECT i FROM n').run(rows);
  database.close();
}

async function writeDuckdb(path: string, rows: number): Promise<void> {
  const writer = await DuckDBInstance.create(path);
  const connection = await writer.connect();
  await connection.run(`CREATE TABLE big AS SELECT range AS id FROM range(${rows})`);
  connection.closeSync();
  writer.closeSync();
}

function writeCsv(path: string, rows: number): void {
  writeFileSync(path, ['id', ...Array.from({ length: rows }, (_, index) => String(index + 1))].join('\n') + '\n');
}

function writeKuzu(path: string, rows: number): void {
  runLadybugStatements(path, [
    'CREATE NODE TABLE Big(id INT64 PRIMARY KEY)',
    `UNWIND range(1, ${rows}) AS i CREATE (:Big {id: i})`,
    // Into the database file itself: a write-ahead log left beside it would not move with it.
    'CHECKPOINT',
  ]);
}

/** Writes a new file beside `path` and moves it over `path`, as `mv new old` would. */
async function replaceWith(path: string, write: (path: string) => void | Promise<void>): Promise<void> {
  const fresh = `${path}.new`;
  await write(fresh);
  renameSync(fresh, path);
}

function rowCountOf(schema: SchemaInfo): number | null {
  if (schema.kind === 'relational') return schema.tables.find((table) => table.name === 'big')?.rowCount ?? null;
  return schema.labels.find((label) => label.name === 'Big')?.count ?? null;
}

async function count(connector: Connector, text: string): Promise<unknown> {
  return (await connector.query(text, limits)).rows[0]?.[0];
}

const relational = 'SELECT count(*) FROM big';

describe('a database file replaced or deleted under an open connection', () => {
  it('SQLite: reads the new file after a rename over the path, and says so when the file is deleted', async () => {
    const path = join(tempDir(), 'big.sqlite');
    writeSqlite(path, 1000);
    const connector = await connect({ engine: 'sqlite', path });
    expect(await count(connector, relational)).toBe(1000);
    expect(rowCountOf(await connector.schema())).toBe(1000);

    await replaceWith(path, (fresh) => writeSqlite(fresh, 1));
    expect(await count(connector, relational)).toBe(1);
    expect(rowCountOf(await connector.schema())).toBe(1);

    rmSync(path);
    const gone = { code: 'not-found', message: `The database file ${path} no longer exists` };
    await expect(connector.query(relational, limits)).rejects.toMatchObject(gone);
    await expect(connector.schema()).rejects.toMatchObject(gone);

    writeSqlite(path, 7);
    expect(await count(connector, relational)).toBe(7);
  });

  it('DuckDB: reads the new file after a rename over the path, and says so when the file is deleted', async () => {
    const path = join(tempDir(), 'big.duckdb');
    await writeDuckdb(path, 1000);
    const connector = await connect({ engine: 'duckdb', format: 'duckdb', path });
    expect(await count(connector, relational)).toBe(1000);

    await replaceWith(path, (fresh) => writeDuckdb(fresh, 1));
    expect(await count(connector, relational)).toBe(1);
    expect(rowCountOf(await connector.schema())).toBe(1);

    rmSync(path);
    await expect(connector.query(relational, limits)).rejects.toMatchObject({ code: 'not-found', message: `The database file ${path} no longer exists` });
  });

  it('CSV: reads the file again after it is replaced or rewritten in place, and says so when it is deleted', async () => {
    const path = join(tempDir(), 'big.csv');
    writeCsv(path, 1000);
    const connector = await connect({ engine: 'duckdb', format: 'csv', path });
    expect(await count(connector, relational)).toBe(1000);

    await replaceWith(path, (fresh) => writeCsv(fresh, 1));
    expect(await count(connector, relational)).toBe(1);

    // The connector reads a copy of a CSV file, which any edit makes stale, even one in place.
    writeCsv(path, 3);
    expect(await count(connector, relational)).toBe(3);

    rmSync(path);
    await expect(connector.query(relational, limits)).rejects.toMatchObject({ code: 'not-found', message: `The file ${path} no longer exists` });
  });

  it('LadybugDB: reads the new database after a rename over the path, and says so when it is deleted', async () => {
    const path = join(tempDir(), 'big.kuzu');
    writeKuzu(path, 20);
    const connector = await connect({ engine: 'kuzu', path });
    const cypher = 'MATCH (b:Big) RETURN count(b)';
    expect(await count(connector, cypher)).toBe(20);

    await replaceWith(path, (fresh) => writeKuzu(fresh, 1));
    expect(await count(connector, cypher)).toBe(1);
    expect(rowCountOf(await connector.schema())).toBe(1);

    rmSync(path);
    await expect(connector.query(cypher, limits)).rejects.toMatchObject({ code: 'not-found', message: `The database file ${path} no longer exists` });
  }, 60_000);

  it('a saved SQLite connection: cells and the schema tree follow the file at the path', async () => {
    const path = join(tempDir(), 'big.sqlite');
    writeSqlite(path, 1000);
    const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' }, environment: fixedEnvironment(), installDemo: false });
    workbenches.push(workbench);
    const connection = await workbench.invoke('connections/add', { name: 'Big', target: { engine: 'sqlite', path } });
    const run = () => workbench.invoke('query/run', { requestId: `r-${Math.random()}`, connectionId: connection.id, text: relational, settings: limits });
    const schemaRows = async () => rowCountOf((await workbench.invoke('connections/schema', { id: connection.id })).schema);
    expect((await run()).rows).toEqual([[1000]]);
    expect(await schemaRows()).toBe(1000);

    await replaceWith(path, (fresh) => writeSqlite(fresh, 1));
    expect((await run()).rows).toEqual([[1]]);
    expect(await schemaRows()).toBe(1);

    rmSync(path);
    await expect(run()).rejects.toMatchObject({ code: 'not-found', message: `The database file ${path} no longer exists` });
    await expect(schemaRows()).rejects.toMatchObject({ code: 'not-found' });
    expect(await workbench.invoke('connections/test', { target: connection.target })).toMatchObject({ ok: false, code: 'not-found' });
  });
});
