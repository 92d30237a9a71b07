import { afterAll, beforeAll, expect, it } from 'vitest';

import { openTrinoConnector } from '../../../src-main/connectors/trino';
import type { Connector } from '../../../src-main/connectors/connector';
import type { SchemaInfo } from '../../../src-main/contract';
import { sqlCompletions, type SqlCompletion } from '../../../src-renderer/editor/sql-completion';
import { startTrino, whyTrinoUnavailable, type TrinoTestServer } from '../../servers';
import { describeOrNotRun } from '../../servers/not-run';
import { runTrinoSql } from '../../servers/trino-admin';
import { loadTrinoFixture } from './trino-fixture';

/**
 * The query editor's SQL completion on a real Trino 476, from the schema the read-only connector
 * reads: the catalogs, schemas, tables and columns it offers are the server's, part by part
 * along a dotted name, and every name it completes is one Trino accepts as written.
 */

const unavailable = whyTrinoUnavailable();
let server: TrinoTestServer | null = null;
let reader: Connector | null = null;
let schema: Extract<SchemaInfo, { kind: 'relational' }> = { kind: 'relational', tables: [] };

beforeAll(async () => {
  if (unavailable !== null) return;
  server = await startTrino();
  if (server === null) throw new Error('Trino vanished between the check and the start');
  await loadTrinoFixture(server.adminUri);
  // A schema of the connection's catalog whose name SQL reads only in quotes, as `dwb dqa import` makes them.
  await runTrinoSql(server.adminUri, ['CREATE SCHEMA memory."building-usa1836"', 'CREATE TABLE memory."building-usa1836".goods (goods_name varchar, code bigint)']);
  reader = await openTrinoConnector({ url: `${server.uri}/wb` });
  const read = await reader.schema();
  if (read.kind !== 'relational') throw new Error('expected a relational schema');
  schema = read;
}, 240_000);

afterAll(async () => {
  await reader?.close();
  await server?.stop();
}, 60_000);

const complete = (before: string, text = before): SqlCompletion[] => sqlCompletions(schema, { before, text });
const summary = (items: SqlCompletion[]): string[] => items.map((item) => `${item.kind}:${item.label}=${item.insertText}`);

/** Trino's own column names and types of a table, read with DESCRIBE through the reader. */
async function describeTable(name: string): Promise<string[]> {
  const result = await reader?.query(`DESCRIBE ${name}`, { maxRows: 100, timeoutMs: 20_000 });
  return (result?.rows ?? []).map((row) => `column:${String(row[0])}=${String(row[1])}`);
}

describeOrNotRun('SQL completion on Trino', unavailable, () => {
  it('offers the catalogs, schemas, tables and views the reader sees at the start of a name', () => {
    const offered = summary(complete('SELECT * FROM ')).filter((item) => !item.startsWith('column:'));
    // In the order the schema lists them; compared as a set.
    expect(offered.sort()).toEqual([
      'table:nodes=nodes',
      'view:north_nodes=north_nodes',
      'table:trades=trades',
      'schema:building-usa1836="building-usa1836"',
      'table:building-usa1836.goods="building-usa1836".goods',
      'catalog:lake=lake',
      'table:lake.sales.orders=lake.sales.orders',
    ].sort());
  });

  it('goes down a catalog to its schemas, a schema to its tables, and a table to its columns with Trino’s types', async () => {
    expect(summary(complete('SELECT * FROM lake.'))).toEqual(['schema:sales=sales']);
    expect(summary(complete('SELECT * FROM lake.sales.'))).toEqual(['table:orders=orders']);
    expect(summary(complete('SELECT * FROM "building-usa1836".'))).toEqual(['table:goods=goods']);
    const columns = complete('SELECT lake.sales.orders.').map((item) => `${item.kind}:${item.label}=${item.detail}`);
    expect(columns).toEqual(await describeTable('lake.sales.orders'));
    expect(columns).toEqual(['column:id=integer', 'column:region=varchar(5)', 'column:amount=decimal(4,2)']);
  });

  it('completes the columns of an alias of a table in another catalog, and of one in the connection’s schema', async () => {
    const text = 'SELECT n.name, o. FROM nodes n JOIN lake.sales.orders o ON o.id = n.id';
    expect(complete('SELECT n.name, o.', text).map((item) => `${item.kind}:${item.label}=${item.detail}`)).toEqual(await describeTable('lake.sales.orders'));
    expect(complete('SELECT n.', text).map((item) => `${item.kind}:${item.label}=${item.detail}`)).toEqual(await describeTable('nodes'));
  });

  it('offers every column of every table when no qualifier is typed, each with its table', () => {
    const columns = complete('SELECT ').filter((item) => item.kind === 'column');
    expect(columns.map((item) => item.detail)).toEqual(expect.arrayContaining(['trades · decimal(10,2)', 'lake.sales.orders · decimal(4,2)', 'building-usa1836.goods · bigint']));
  });

  it('completes every table part by part into a name Trino accepts, and each of its columns after an alias', async () => {
    for (const table of schema.tables) {
      // Walk the dotted name as a user would: take the part offered, type a dot, take the next.
      let typed = '';
      for (const part of table.name.split('.')) {
        const offered = complete(`SELECT * FROM ${typed}`).find((item) => item.label === part && item.kind !== 'column');
        expect(offered, `${part} offered after "${typed}"`).toBeDefined();
        typed += offered?.insertText ?? '';
        if (typed.split('.').length < table.name.split('.').length) typed += '.';
      }
      const text = `SELECT t. FROM ${typed} t`;
      const columns = complete('SELECT t.', text);
      expect(columns.map((item) => item.label)).toEqual(table.columns.map((column) => column.name));
      const selected = columns.map((item) => `t.${item.insertText}`).join(', ');
      const result = await reader?.query(`SELECT ${selected} FROM ${typed} t LIMIT 1`, { maxRows: 1, timeoutMs: 20_000 });
      expect(result?.columns.map((column) => column.name)).toEqual(table.columns.map((column) => column.name));
    }
  }, 120_000);
});
