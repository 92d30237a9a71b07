import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadAgriculture } from '../../src-main/dellma-data/agriculture';
import { repoRoot } from './fixtures';

/** The USDA 2021 figures as `fruit_2021` in `<directory>/agriculture.sqlite`: one row per commodity, numbers and units apart. */
export function agricultureDatabase(directory: string): string {
  const { stats2021 } = loadAgriculture(join(repoRoot, 'fixtures', 'dellma', 'agriculture'));
  const path = join(directory, 'agriculture.sqlite');
  const database = new Database(path);
  database.exec('CREATE TABLE fruit_2021 (commodity TEXT, yield_per_acre REAL, yield_unit TEXT, price REAL, price_unit TEXT)');
  const insert = database.prepare('INSERT INTO fruit_2021 VALUES (?, ?, ?, ?, ?)');
  for (const row of stats2021.rows) insert.run(row.commodity, row.yield.value, row.yield.unit, row.price.value, row.price.unit);
  database.close();
  return path;
}
