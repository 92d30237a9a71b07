/**
 * The SQL loader on DuckDB: DQA relational dumps written into a DuckDB file (row by row, in
 * file order) and read back through the DuckDB connector must give the dump parser's data in
 * table order (DuckDB: rowid), including the dump whose column is spelled has_has_merchant.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDuckdbConnector } from '../../../src-main/connectors/duckdb';
import { loadBuildingFromConnector, loadLocatingFromConnector } from '../../../src-main/dqa/from-connector';
import { loadBuildingDump, loadLocatingDump } from '../../../src-main/dqa/load';
import { parseSqlDump, type DumpColumn } from '../../../src-main/dqa/sql-dump';
import { dqaRoot } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

const duckdbTypes: Record<DumpColumn['type'], string> = { TEXT: 'VARCHAR', INTEGER: 'BIGINT', REAL: 'DOUBLE', BOOLEAN: 'BOOLEAN' };
const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** Writes a relational dump into a new DuckDB file; the repaired column names are kept as parsed. */
async function duckdbFromDump(text: string, path: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    for (const table of parseSqlDump(text)) {
      await connection.run(`CREATE TABLE ${quote(table.name)} (${table.columns.map((c) => `${quote(c.name)} ${duckdbTypes[c.type]}`).join(', ')})`);
      const insert = await connection.prepare(`INSERT INTO ${quote(table.name)} VALUES (${table.columns.map(() => '?').join(', ')})`);
      for (const row of table.rows) {
        insert.bind(row.map((value) => value));
        await insert.run();
      }
    }
    await connection.run('CHECKPOINT');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('DQA relational dumps in DuckDB, read through the connector', () => {
  it.each([
    ['locating', 'locating-1445-a6e04daf.sql'],
    ['building', 'USA1836.sql'],
  ])('%s: %s', async (scenario, file) => {
    const text = readFileSync(join(dqaRoot(), scenario, 'db', file), 'utf8');
    const path = join(tempDir(), 'dump.duckdb');
    await duckdbFromDump(text, path);
    const connector = await openDuckdbConnector({ path });
    try {
      if (scenario === 'locating') {
        const loaded = await loadLocatingFromConnector(connector, file);
        expect(loaded.ordering).toEqual(['country by rowid', 'trade_node by rowid', 'flow by rowid', 'node_country by rowid']);
        expect(loaded.data).toEqual(loadLocatingDump(text, 'relational', file));
      } else {
        const loaded = await loadBuildingFromConnector(connector, file);
        expect(loaded.data).toEqual(loadBuildingDump(text, 'relational', file));
      }
    } finally {
      await connector.close();
    }
  }, 120_000);
});
