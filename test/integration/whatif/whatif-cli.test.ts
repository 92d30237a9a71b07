/** `dwb whatif` end to end through the built CLI (bin/dwb.js). */
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDwb } from '../../support/cli';
import { fileHash } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const cli = (...args: string[]) => runDwb(args);


function storeDatabase(): string {
  const path = join(tempDir(), 'store.sqlite');
  const database = new Database(path);
  database.exec("CREATE TABLE store (id INTEGER PRIMARY KEY, region TEXT, revenue REAL); INSERT INTO store VALUES (1, 'n', 10), (2, 'n', 20), (3, 's', 30);");
  database.close();
  return path;
}

const change = 'UPDATE store SET revenue = revenue * 2 WHERE id = :candidate';
const objective = "SELECT sum(revenue) FROM store WHERE region = 'n'";

describe('dwb whatif', () => {
  it('prints the ranked table, the best and the proof that the source is unchanged', async () => {
    const path = storeDatabase();
    const hash = fileHash(path);
    const result = await cli('whatif', '--connection', `sqlite:${path}`, '--change', change, '--objective', objective, '--candidates', '1,2,3');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'rank  candidate  before  after  delta  changed rows',
      '----  ---------  ------  -----  -----  ------------',
      '   1          2      30     50     20             1',
      '   2          1      30     40     10             1',
      '   3          3      30     30      0             1',
      'best: 2 (maximize; margin 10)',
    ]);
    expect(result.stderr).toContain(`source unchanged: sha256:${hash}`);
    expect(fileHash(path)).toBe(hash);
  });

  it('takes candidates from a read-only query, minimizes and prints JSON', async () => {
    const path = storeDatabase();
    const result = await cli('whatif', '--json', '--minimize', '--connection', `sqlite:${path}`, '--change', change, '--objective', 'SELECT sum(revenue) FROM store', '--candidates-query', 'SELECT id FROM store ORDER BY id');
    expect(result.code, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout) as { best: number; tied: number[]; rows: { candidate: number; after: number }[] };
    expect(parsed.best).toBe(1);
    expect(parsed.rows.map((r) => [r.candidate, r.after])).toEqual([
      [1, 70],
      [2, 80],
      [3, 90],
    ]);
  });

  it('fails with one clear line and leaves the file as it was', async () => {
    const path = storeDatabase();
    const hash = fileHash(path);
    const bad = await cli('whatif', '--connection', `sqlite:${path}`, '--change', 'SELECT :candidate', '--objective', objective, '--candidates', '1');
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^dwb whatif: invalid-request: the change must be a statement that modifies data/);
    const both = await cli('whatif', '--connection', `sqlite:${path}`, '--change', change, '--objective', objective);
    expect(both.code).toBe(2);
    expect(both.stderr.trim()).toMatch(/^dwb whatif: invalid-request: give exactly one of --candidates and --candidates-query/);
    expect(fileHash(path)).toBe(hash);
  });

  it('runs on a Parquet file through DuckDB in the bundled worker, the file untouched', async () => {
    const directory = tempDir();
    const parquet = join(directory, 'stores.parquet');
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    await connection.run(`COPY (SELECT * FROM (VALUES (1, 'n', 10.0), (2, 'n', 20.0), (3, 's', 30.0)) AS t(id, region, revenue)) TO '${parquet}' (FORMAT parquet)`);
    connection.closeSync();
    instance.closeSync();
    const hash = fileHash(parquet);
    const result = await cli('whatif', '--json', '--connection', `parquet:${parquet}`, '--change', 'UPDATE stores SET revenue = revenue * 2 WHERE id = $candidate', '--objective', "SELECT sum(revenue) FROM stores WHERE region = 'n'", '--candidates', '1,2,3');
    expect(result.code, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout) as { best: number; isolation: string; rows: { candidate: number; delta: number }[] };
    expect(parsed.best).toBe(2);
    expect(parsed.isolation).toBe('process');
    expect(parsed.rows.map((row) => [row.candidate, row.delta])).toEqual([
      [2, 20],
      [1, 10],
      [3, 0],
    ]);
    expect(fileHash(parquet)).toBe(hash);
  });
});
