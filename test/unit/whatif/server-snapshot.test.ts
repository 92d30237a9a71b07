import { describe, expect, it } from 'vitest';
import type { TableInfo } from '../../../src-main/contract/data';
import { duckdbTypeFor, sandboxCatalogFor, tablesNamedIn } from '../../../src-main/whatif/server-snapshot';

const table = (name: string): TableInfo => ({ name, kind: 'table', columns: [], rowCount: null });

describe('copying server tables into the what-if sandbox', () => {
  it('copies the tables the statements name, quoted or not, qualified or not, in any case', () => {
    const tables = ['supply', 'demand', 'Goods', 'sales.orders', 'building'].map(table);
    const named = tablesNamedIn(['UPDATE "Goods" SET price = price + 1 WHERE code = $candidate', 'SELECT sum(x) FROM sales.ORDERS o JOIN `supply` s ON s.id = o.id'], tables);
    expect(named.map((entry) => entry.name)).toEqual(['supply', 'Goods', 'sales.orders']);
    expect(tablesNamedIn(['SELECT 1'], tables)).toEqual([]);
  });

  it('gives each server column the DuckDB type that computes the same', () => {
    const cases: [string, string][] = [
      ['integer', 'BIGINT'],
      ['int(11)', 'BIGINT'],
      ['smallint', 'BIGINT'],
      ['tinyint(1)', 'BIGINT'],
      ['bigint', 'BIGINT'],
      ['bigint unsigned', 'HUGEINT'],
      ['int(10) unsigned', 'HUGEINT'],
      ['bigserial', 'BIGINT'],
      ['numeric(12,2)', 'DECIMAL(12,2)'],
      ['decimal(10)', 'DECIMAL(10,0)'],
      ['numeric(60,10)', 'DOUBLE'],
      ['numeric', 'DOUBLE'],
      ['double precision', 'DOUBLE'],
      ['float', 'DOUBLE'],
      ['real', 'DOUBLE'],
      ['boolean', 'BOOLEAN'],
      ['date', 'DATE'],
      ['timestamp without time zone', 'TIMESTAMP'],
      ['timestamp with time zone', 'TIMESTAMPTZ'],
      ['datetime', 'TIMESTAMP'],
      ['varchar(30)', 'VARCHAR'],
      ['jsonb', 'VARCHAR'],
      ['interval', 'VARCHAR'],
      ['', 'VARCHAR'],
    ];
    expect(cases.map(([declared]) => [declared, duckdbTypeFor(declared)])).toEqual(cases);
  });

  it('names the copy so server-qualified table names reach it: public on PostgreSQL, the database on MySQL', () => {
    expect(sandboxCatalogFor({ engine: 'postgres', url: 'postgres://u@h/shop' })).toBe('public');
    expect(sandboxCatalogFor({ engine: 'mysql', url: 'mysql://u@h:3306/shop_2024' })).toBe('shop_2024');
    // No database, one DuckDB keeps for itself, or one that is no plain identifier: the neutral name.
    for (const url of ['mysql://u@h:3306', 'mysql://u@h/main', 'mysql://u@h/TEMP', 'mysql://u@h/my-shop', 'mysql://u@h/x%2F..%2Fy']) expect(sandboxCatalogFor({ engine: 'mysql', url }), url).toBe('sandbox');
  });
});
