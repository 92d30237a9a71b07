import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';

import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';

import type { ConnectionTarget } from '../../../src-main/contract/connections';
import { testConnection } from '../../../src-main/connectors/test-connection';
import { useTempDirs } from '../../support/temp';

/**
 * A path that is not the kind of file its connection expects: one sentence saying what the file
 * is and, where its first bytes tell, which kind of connection it fits, with a code that says
 * the request was wrong rather than that something was not found.
 */

const tempDir = useTempDirs();
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function sqliteFile(dir: string): string {
  const path = join(dir, 'data.sqlite');
  const database = new Database(path);
  database.exec('CREATE TABLE t (a INTEGER)');
  database.close();
  return path;
}

async function duckdbFile(dir: string): Promise<string> {
  const path = join(dir, 'data.duckdb');
  const writer = await DuckDBInstance.create(path);
  const connection = await writer.connect();
  await connection.run('CREATE TABLE t (a INTEGER)');
  connection.closeSync();
  writer.closeSync();
  return path;
}

function csvFile(dir: string): string {
  const path = join(dir, 'data.csv');
  writeFileSync(path, 'a,b\n1,2\n');
  return path;
}

async function failed(target: ConnectionTarget): Promise<{ code?: string; message: string }> {
  const report = await testConnection(target, null);
  expect(report.ok, report.message).toBe(false);
  return { code: report.code, message: report.message };
}

describe('a path that is not a regular file', () => {
  it('says it is a device, a named pipe or a socket, not a folder', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const socket = join(dir, 'socket');
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socket, resolve));

    expect(await failed({ engine: 'sqlite', path: '/dev/zero' })).toEqual({
      code: 'invalid-request',
      message: '/dev/zero is a device, not a regular file: expected a SQLite file',
    });
    expect(await failed({ engine: 'sqlite', path: fifo })).toEqual({
      code: 'invalid-request',
      message: `${fifo} is a named pipe, not a regular file: expected a SQLite file`,
    });
    expect(await failed({ engine: 'duckdb', format: 'csv', path: socket })).toEqual({
      code: 'invalid-request',
      message: `${socket} is a socket, not a regular file: expected a CSV file`,
    });
    expect(await failed({ engine: 'sqlite', path: dir })).toEqual({ code: 'invalid-request', message: `${dir} is a folder, not a SQLite file` });
  });
});

describe('a file of another kind', () => {
  it('given as SQLite: a text file or a DuckDB file is not a SQLite database file', async () => {
    const dir = tempDir();
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'just some text\n'.repeat(50));
    expect(await failed({ engine: 'sqlite', path: text })).toEqual({
      code: 'invalid-request',
      message: `${text} is not a SQLite database file; it looks like a text file: a CSV file can be added as CSV`,
    });
    const duckdb = await duckdbFile(dir);
    expect(await failed({ engine: 'sqlite', path: duckdb })).toEqual({
      code: 'invalid-request',
      message: `${duckdb} is not a SQLite database file; this is a DuckDB file: add it as DuckDB`,
    });
  });

  it('given as DuckDB: a SQLite file or a CSV file is not a DuckDB database file', async () => {
    const dir = tempDir();
    const sqlite = sqliteFile(dir);
    expect(await failed({ engine: 'duckdb', format: 'duckdb', path: sqlite })).toEqual({
      code: 'invalid-request',
      message: `${sqlite} is not a DuckDB database file; it looks like a SQLite file: add it as SQLite`,
    });
    const csv = csvFile(dir);
    expect(await failed({ engine: 'duckdb', format: 'duckdb', path: csv })).toEqual({
      code: 'invalid-request',
      message: `${csv} is not a DuckDB database file; it looks like a text file: a CSV file can be added as CSV`,
    });
  });

  it('given as CSV: a binary file could not be read as CSV, in one line; a SQLite file says so', async () => {
    const dir = tempDir();
    const binary = join(dir, 'blob.bin');
    writeFileSync(binary, Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919) % 256)));
    const unreadable = await failed({ engine: 'duckdb', format: 'csv', path: binary });
    expect(unreadable.code).toBe('connection-failed');
    expect(unreadable.message).toMatch(new RegExp(`^${binary.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} could not be read as CSV: \\S`));
    expect(unreadable.message).not.toContain('\n');
    expect(unreadable.message).not.toContain('read_csv');
    const sqlite = sqliteFile(dir);
    expect(await failed({ engine: 'duckdb', format: 'csv', path: sqlite })).toEqual({
      code: 'invalid-request',
      message: `${sqlite} is not a CSV file; it looks like a SQLite file: add it as SQLite`,
    });
  });

  it('given as LadybugDB: a SQLite file says which kind of connection it fits', async () => {
    const sqlite = sqliteFile(tempDir());
    expect(await failed({ engine: 'kuzu', path: sqlite })).toEqual({
      code: 'invalid-request',
      message: `${sqlite} is not a LadybugDB database; it looks like a SQLite file: add it as SQLite`,
    });
  });
});
