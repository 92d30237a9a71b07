import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { fixedEnvironment } from '../../support/fixtures';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { startPostgres, whyPostgresUnavailable, type TestServer } from '../../servers';
import { describeOrNotRun } from '../../servers/not-run';
import { tradeNodes, trades } from './fixture-data';
import { loadPostgresFixture, writeFileFixtures } from './fixture-loaders';

/** The `connections/*` requests of the workbench: every kind, passwords in the secret store only. */

const tempDir = useTempDirs();
const suiteDir = useSuiteTempDir();
const opened: Workbench[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((workbench) => workbench.close()));
});

function open(directory = tempDir()): Workbench {
  const workbench = openWorkbench({ workspaceDir: directory, platform: { transport: 'websocket' }, environment: fixedEnvironment(), installDemo: false });
  opened.push(workbench);
  return workbench;
}

const files = { sqlite: '', duckdb: '', csv: '', kuzu: '' };
let postgres: TestServer | null = null;

beforeAll(async () => {
  Object.assign(files, await writeFileFixtures(suiteDir()));
  if (whyPostgresUnavailable() === null) {
    postgres = await startPostgres();
    if (postgres !== null) await loadPostgresFixture(postgres.uri);
  }
}, 180_000);

afterAll(async () => {
  await postgres?.stop();
}, 60_000);

describe('file connections', () => {
  it('adds, tests and browses every file kind', async () => {
    const workbench = open();
    const targets = [
      { engine: 'sqlite' as const, path: files.sqlite },
      { engine: 'duckdb' as const, path: files.duckdb },
      { engine: 'duckdb' as const, format: 'csv' as const, path: files.csv },
      { engine: 'kuzu' as const, path: files.kuzu },
    ];
    for (const target of targets) {
      const report = await workbench.invoke('connections/test', { target });
      expect(report.ok, report.message).toBe(true);
      const connection = await workbench.invoke('connections/add', { name: `${target.engine} ${target.path}`, target });
      expect(connection.hasPassword).toBe(false);
      const { schema } = await workbench.invoke('connections/schema', { id: connection.id });
      if (schema.kind === 'graph') {
        expect(schema.labels.find((label) => label.name === 'Node')?.count).toBe(tradeNodes.length);
        expect(schema.relationshipTypes.find((type) => type.name === 'TRADES')?.endpoints).toEqual(['Node->Node']);
      } else {
        expect(schema.tables.find((table) => table.name === 'nodes')?.rowCount).toBe(tradeNodes.length);
      }
    }
    const list = await workbench.invoke('connections/list', {});
    expect(list.map((connection) => connection.engine).sort()).toEqual(['duckdb', 'duckdb', 'kuzu', 'sqlite']);
    expect(list.find((connection) => connection.target.engine === 'duckdb' && connection.target.format === 'duckdb')).toBeDefined();
  });

  it('reports counts when a test succeeds', async () => {
    const workbench = open();
    const relational = await workbench.invoke('connections/test', { target: { engine: 'sqlite', path: files.sqlite } });
    expect(relational).toMatchObject({ ok: true, counts: { tables: 2, rows: tradeNodes.length + trades.length } });
    expect(relational.message).toBe(`Connected: 2 tables, ${tradeNodes.length + trades.length} rows`);
    const graph = await workbench.invoke('connections/test', { target: { engine: 'kuzu', path: files.kuzu } });
    expect(graph).toMatchObject({ ok: true, counts: { labels: 1, nodes: tradeNodes.length, relationshipTypes: 1, relationships: trades.length } });
  });

  it('says plainly what is wrong with a path, when testing and when adding', async () => {
    const workbench = open();
    const missing = await workbench.invoke('connections/test', { target: { engine: 'kuzu', path: '/nonexistent/x.kuzu' } });
    expect(missing).toMatchObject({ ok: false, code: 'not-found', message: 'No LadybugDB database at /nonexistent/x.kuzu' });
    const folder = tempDir();
    mkdirSync(join(folder, 'sub'));
    await expect(workbench.invoke('connections/add', { name: 'x', target: { engine: 'duckdb', path: join(folder, 'sub') } })).rejects.toMatchObject({
      code: 'invalid-request',
      message: `${join(folder, 'sub')} is a folder, not a DuckDB database file`,
    });
    await expect(workbench.invoke('connections/add', { name: 'x', target: { engine: 'duckdb', format: 'csv', path: '/nonexistent.csv' } })).rejects.toMatchObject({
      code: 'not-found',
    });
  });

  it('refuses a server URL that carries a password or a wrong scheme', async () => {
    const workbench = open();
    await expect(workbench.call('connections/add', { name: 'x', target: { engine: 'postgres', url: 'postgres://u:secret@h/db' } })).rejects.toThrow(
      /the URL holds a password/,
    );
    await expect(workbench.call('connections/add', { name: 'x', target: { engine: 'mysql', url: 'postgres://u@h/db' } })).rejects.toThrow(
      /expected a URL such as mysql:/,
    );
    await expect(workbench.call('connections/add', { name: 'x', target: { engine: 'neo4j', url: 'neo4j://u@h:7687' } })).rejects.toThrow(
      /user name in its own field/,
    );
  });

  it('edits and removes a connection; the next query uses the new target', async () => {
    const workbench = open();
    const connection = await workbench.invoke('connections/add', { name: 'Trades', target: { engine: 'sqlite', path: files.sqlite } });
    const run = (text: string) => workbench.invoke('query/run', { requestId: `r-${Math.random()}`, connectionId: connection.id, text, settings: { maxRows: 10, timeoutMs: 10_000 } });
    expect((await run('SELECT count(*) FROM nodes')).rows).toEqual([[tradeNodes.length]]);
    const edited = await workbench.invoke('connections/update', { id: connection.id, name: 'Trades (DuckDB)', target: { engine: 'duckdb', path: files.duckdb } });
    expect(edited).toMatchObject({ name: 'Trades (DuckDB)', engine: 'duckdb' });
    const result = await run('SELECT count(*) AS n FROM nodes');
    expect(result.columns[0]?.type).toBe('BIGINT');
    await workbench.invoke('connections/remove', { id: connection.id });
    expect(await workbench.invoke('connections/list', {})).toEqual([]);
  });

  it('says secrets are kept in memory only in browser mode', async () => {
    expect(await open().invoke('connections/secrets-info', {})).toEqual({ persistent: false });
  });
});

describeOrNotRun('server connections with a password (PostgreSQL)', whyPostgresUnavailable(), () => {
  const split = (): { url: string; password: string } => {
    const url = new URL(postgres?.uri ?? '');
    const password = decodeURIComponent(url.password);
    url.password = '';
    return { url: url.toString(), password };
  };

  it('keeps the password in the secret store, never in the workspace file', async () => {
    const directory = tempDir();
    const workbench = open(directory);
    const { url, password } = split();
    const connection = await workbench.invoke('connections/add', { name: 'PG', target: { engine: 'postgres', url }, password });
    expect(connection.hasPassword).toBe(true);
    expect(JSON.stringify(connection)).not.toContain(password);
    const result = await workbench.invoke('query/run', { requestId: 'q', connectionId: connection.id, text: 'SELECT count(*) FROM trades', settings: { maxRows: 10, timeoutMs: 10_000 } });
    expect(result.rows).toEqual([[trades.length]]);
    await workbench.close();
    opened.splice(opened.indexOf(workbench), 1);
    for (const file of readdirSync(directory)) expect(readFileSync(join(directory, file)).includes(password), file).toBe(false);
  });

  it('tests with the typed password, or with the stored one when none is typed', async () => {
    const workbench = open();
    const { url, password } = split();
    const wrong = await workbench.invoke('connections/test', { target: { engine: 'postgres', url }, password: 'not-the-password' });
    expect(wrong).toMatchObject({ ok: false, code: 'connection-failed' });
    expect(wrong.message).toContain('password authentication failed');
    const connection = await workbench.invoke('connections/add', { name: 'PG', target: { engine: 'postgres', url }, password });
    const stored = await workbench.invoke('connections/test', { target: { engine: 'postgres', url }, id: connection.id });
    expect(stored).toMatchObject({ ok: true, counts: { tables: 2, rows: tradeNodes.length + trades.length } });
  });

  it('changes or removes the password on edit; removing the connection forgets it', async () => {
    const workbench = open();
    const { url, password } = split();
    const connection = await workbench.invoke('connections/add', { name: 'PG', target: { engine: 'postgres', url }, password: 'wrong' });
    const schema = () => workbench.invoke('connections/schema', { id: connection.id });
    await expect(schema()).rejects.toMatchObject({ code: 'connection-failed' });
    expect((await workbench.invoke('connections/update', { id: connection.id, password })).hasPassword).toBe(true);
    expect((await schema()).schema.kind).toBe('relational');
    expect((await workbench.invoke('connections/update', { id: connection.id, password: '' })).hasPassword).toBe(false);
    await expect(schema()).rejects.toMatchObject({ code: 'connection-failed' });
    await workbench.invoke('connections/update', { id: connection.id, password });
    await workbench.invoke('connections/remove', { id: connection.id });
    const again = await workbench.invoke('connections/add', { name: 'PG', target: { engine: 'postgres', url } });
    expect(again.hasPassword).toBe(false);
  });
});
