import { describe, expect, it } from 'vitest';

import { parseConnectionUriWithPassword } from '../../../src-main/connectors/connection-uri';
import { connectionTargetSchema } from '../../../src-main/contract/connections';

/** CLI connection URIs: every kind, passwords kept apart. (The form and Cypher completion are covered end to end.) */

describe('connection URIs of the CLI', () => {
  it('reads every kind, keeping passwords out of the target', () => {
    expect(parseConnectionUriWithPassword('duckdb:/data/a.duckdb')).toEqual({ target: { engine: 'duckdb', format: 'duckdb', path: '/data/a.duckdb' }, password: null });
    expect(parseConnectionUriWithPassword('csv:/data/t.csv').target).toEqual({ engine: 'duckdb', format: 'csv', path: '/data/t.csv' });
    expect(parseConnectionUriWithPassword('parquet:///data/t.parquet').target).toEqual({ engine: 'duckdb', format: 'parquet', path: '/data/t.parquet' });
    expect(parseConnectionUriWithPassword('kuzu:/data/g.kuzu').target).toEqual({ engine: 'kuzu', path: '/data/g.kuzu' });
    expect(parseConnectionUriWithPassword('ladybug:/data/g.lbug').target).toEqual({ engine: 'kuzu', path: '/data/g.lbug' });
    expect(parseConnectionUriWithPassword('postgres://ann:s%40cret@db:5433/sales?sslmode=require')).toEqual({
      target: { engine: 'postgres', url: 'postgres://ann@db:5433/sales?sslmode=require' },
      password: 's@cret',
    });
    expect(parseConnectionUriWithPassword('mariadb://root:pw@127.0.0.1/x')).toEqual({ target: { engine: 'mysql', url: 'mariadb://root@127.0.0.1/x' }, password: 'pw' });
    expect(parseConnectionUriWithPassword('neo4j+s://neo:pw@graph.example:7687/movies')).toEqual({
      target: { engine: 'neo4j', url: 'neo4j+s://graph.example:7687', username: 'neo', database: 'movies' },
      password: 'pw',
    });
    expect(parseConnectionUriWithPassword('bolt://127.0.0.1:7687').target).toEqual({ engine: 'neo4j', url: 'bolt://127.0.0.1:7687' });
    expect(parseConnectionUriWithPassword('trino://ann@lake.example:8443/hive/sales?ssl=true')).toEqual({
      target: { engine: 'trino', url: 'trino://ann@lake.example:8443/hive/sales?ssl=true' },
      password: null,
    });
    expect(parseConnectionUriWithPassword('trino://ann@127.0.0.1:8080/memory').target).toEqual({ engine: 'trino', url: 'trino://ann@127.0.0.1:8080/memory' });
  });

  it('refuses a Trino URI without its user or catalog, saying what is missing, and a saved target with a password', () => {
    expect(() => parseConnectionUriWithPassword('trino://lake.example:8080/hive')).toThrow(/names no user/);
    expect(() => parseConnectionUriWithPassword('trino://ann@lake.example:8080')).toThrow(/names no catalog/);
    expect(() => parseConnectionUriWithPassword('trino://ann@lake.example/hive/sales/extra')).toThrow(/more than CATALOG\/SCHEMA/);
    // In-process (a password file's secret written in by cli/secret-args.ts) the password is taken apart.
    expect(parseConnectionUriWithPassword('trino://ann:p%40w@lake.example:8443/hive?ssl=true')).toEqual({ target: { engine: 'trino', url: 'trino://ann@lake.example:8443/hive?ssl=true' }, password: 'p@w' });
    expect(() => parseConnectionUriWithPassword('trino://ann@lake.example/hive?ssl=maybe')).toThrow(/ssl=maybe/);
    expect(connectionTargetSchema.safeParse({ engine: 'trino', url: 'trino://lake.example/hive' }).success).toBe(false);
    expect(connectionTargetSchema.safeParse({ engine: 'trino', url: 'trino://ann:pw@lake.example/hive' }).success).toBe(false);
  });

  it('gives targets the contract accepts as they are', () => {
    for (const uri of ['postgres://ann:pw@db/sales', 'mysql://u:p@h:3306/d', 'neo4j://u:p@h:7687', 'csv:/t.csv', 'trino://ann@h:8080/hive/sales']) {
      expect(connectionTargetSchema.safeParse(parseConnectionUriWithPassword(uri).target).success, uri).toBe(true);
    }
  });
});
