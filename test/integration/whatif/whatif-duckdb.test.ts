import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWhatIf, type WhatIfInput } from '../../../src-main/whatif';
import { fileHash } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

/** A DuckDB file with four stores in two regions (the same data as the SQLite fixture). */
async function storesDuckdb(directory: string): Promise<string> {
  const path = join(directory, 'stores.duckdb');
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE store (id INTEGER PRIMARY KEY, region VARCHAR NOT NULL, revenue DOUBLE NOT NULL);
    INSERT INTO store VALUES (1, 'north', 10.5), (2, 'north', 20), (3, 'south', 7.25), (4, 'south', 1000);
    CREATE TABLE price (code VARCHAR, amount DECIMAL(10, 2)); INSERT INTO price VALUES ('007', 12.50), ('7', 1.00);`);
  connection.closeSync();
  instance.closeSync();
  return path;
}

const duckdb = (source: string, input: Omit<WhatIfInput, 'source' | 'kind'>): Promise<Awaited<ReturnType<typeof runWhatIf>>> =>
  runWhatIf({ source, kind: { engine: 'duckdb', format: 'duckdb' }, ...input });

describe('the what-if sandbox on DuckDB data', () => {
  it('ranks candidates on a copy of a DuckDB file, binding $candidate, and leaves the file byte-identical', async () => {
    const path = await storesDuckdb(tempDir());
    const before = fileHash(path);
    const result = await duckdb(path, {
      candidates: [1, 2, 3, 4],
      change: 'UPDATE store SET revenue = revenue * 2 WHERE id = $candidate',
      objective: "SELECT sum(revenue) FROM store WHERE region = 'north'",
    });
    // Doubling store 2 adds 20 to the north, store 1 adds 10.5; south stores add nothing there.
    expect(result.rows.map((row) => [row.candidate, row.delta, row.rank, row.changedRows])).toEqual([
      [2, 20, 1, 1],
      [1, 10.5, 2, 1],
      [3, 0, 3, 1],
      [4, 0, 3, 1],
    ]);
    expect(result.sourceDigestAfter).toBe(result.sourceDigestBefore);
    expect(fileHash(path)).toBe(before);
  });

  it('reads DECIMAL and HUGEINT objectives as numbers, and binds text candidates as text', async () => {
    const path = await storesDuckdb(tempDir());
    const result = await duckdb(path, {
      candidates: ['007', '7'],
      change: 'UPDATE price SET amount = amount + 1 WHERE code = $candidate',
      objective: "SELECT sum(amount) FROM price WHERE code = '007'",
    });
    expect(result.best).toBe('007');
    expect(result.rows[0]).toMatchObject({ candidate: '007', before: 12.5, after: 13.5, delta: 1 });
    const counted = await duckdb(path, { candidates: [1], change: 'DELETE FROM store WHERE id = $candidate', objective: 'SELECT count(*) FROM store', direction: 'minimize' });
    expect(counted.rows[0]).toMatchObject({ before: 4, after: 3 });
  });

  it('refuses statements that could reach other files or are not one change, before any candidate', async () => {
    const directory = tempDir();
    const path = await storesDuckdb(directory);
    const before = fileHash(path);
    const outside = join(directory, 'leak.csv');
    const objective = 'SELECT sum(revenue) FROM store';
    const refused = async (change: string, expected: RegExp, objectiveText = objective): Promise<void> => {
      await expect(duckdb(path, { candidates: [1], change, objective: objectiveText })).rejects.toThrow(expected);
    };
    await refused(`COPY (SELECT $candidate) TO '${outside}'`, /one INSERT, UPDATE or DELETE/);
    await refused(`ATTACH '${join(directory, 'other.duckdb')}' AS other`, /one INSERT, UPDATE or DELETE/);
    await refused('SELECT * FROM store WHERE id = $candidate', /one INSERT, UPDATE or DELETE/);
    await refused('UPDATE store SET revenue = 0', /must use the \$candidate parameter/);
    await refused('UPDATE store SET revenue = 0 WHERE id = $candidate; DELETE FROM store', /single SQL statement/);
    await refused('UPDATE store SET revenue = 0 WHERE id = $candidate', /read-only query/, `INSERT INTO store VALUES (9, 'x', 1)`);
    // External access is off in the sandbox: the objective cannot read another file either.
    writeFileSync(outside, 'a\n1\n');
    await expect(duckdb(path, { candidates: [1], change: 'UPDATE store SET revenue = 0 WHERE id = $candidate', objective: `SELECT count(*) FROM read_csv('${outside}')` })).rejects.toThrow(
      /DuckDB/,
    );
    expect(existsSync(join(directory, 'other.duckdb'))).toBe(false);
    expect(fileHash(path)).toBe(before);
  });

  it('runs on a CSV file as one table named after it, leaving the file as it was', async () => {
    const path = join(tempDir(), 'stores.csv');
    writeFileSync(path, 'id,region,revenue\n1,north,10.5\n2,north,20\n3,south,7.25\n4,south,1000\n');
    const before = fileHash(path);
    const result = await runWhatIf({
      source: path,
      kind: { engine: 'duckdb', format: 'csv' },
      candidates: [1, 2, 3, 4],
      change: 'UPDATE stores SET revenue = revenue + 100 WHERE id = $candidate',
      objective: "SELECT sum(revenue) FROM stores WHERE region = 'south'",
    });
    expect(result.tied).toEqual([3, 4]);
    expect(result.rows.map((row) => row.delta)).toEqual([100, 100, 0, 0]);
    expect(fileHash(path)).toBe(before);
  });
});
