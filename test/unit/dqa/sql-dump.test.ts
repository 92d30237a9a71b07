import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dqaRoot, readDumpText } from '../../../src-main/dqa/dataset';
import { parseSqlDump, type DumpTable } from '../../../src-main/dqa/sql-dump';

function table(tables: DumpTable[], name: string): DumpTable {
  const found = tables.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no table ${name}`);
  return found;
}

describe('parseSqlDump on inline dumps', () => {
  it('parses columns, normalized types, composite primary keys and rows', () => {
    const tables = parseSqlDump(`
      CREATE TABLE flow(    source    VARCHAR(30),    dest VARCHAR(30),    flow FLOAT,   PRIMARY KEY (source, dest));
      INSERT INTO flow(source, dest, flow) VALUES ("a", "b", 0.5);
      INSERT INTO flow(source, dest, flow) VALUES ("a", "c", 1e-3), ("b", "c", -2.5E+2);
    `);
    expect(tables).toHaveLength(1);
    const flow = table(tables, 'flow');
    expect(flow.columns).toEqual([
      { name: 'source', type: 'TEXT', declaredType: 'VARCHAR(30)' },
      { name: 'dest', type: 'TEXT', declaredType: 'VARCHAR(30)' },
      { name: 'flow', type: 'REAL', declaredType: 'FLOAT' },
    ]);
    expect(flow.primaryKey).toEqual(['source', 'dest']);
    expect(flow.rows).toEqual([
      ['a', 'b', 0.5],
      ['a', 'c', 0.001],
      ['b', 'c', -250],
    ]);
  });

  it('reads TRUE/FALSE/NULL, escapes, doubled quotes and both quote styles', () => {
    const tables = parseSqlDump(`
      -- a comment
      CREATE TABLE t(id INT NOT NULL PRIMARY KEY, name VARCHAR(80), ok BOOLEAN, x DOUBLE) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
      /* block
         comment */
      INSERT INTO t VALUES (1, "say \\"hi\\"\\n", TRUE, NULL), (2, 'it''s', FALSE, +3), (3, "a\\\\b", 1, .5);
    `);
    const t = table(tables, 't');
    expect(t.primaryKey).toEqual(['id']);
    expect(t.rows).toEqual([
      [1, 'say "hi"\n', true, null],
      [2, "it's", false, 3],
      [3, 'a\\b', true, 0.5],
    ]);
  });

  it('maps an explicit column list given in another order or as a subset (missing -> DEFAULT or NULL)', () => {
    const tables = parseSqlDump(`
      CREATE TABLE goods(goods_name VARCHAR(30), code INT, base_price FLOAT DEFAULT 20, pop_demand FLOAT, PRIMARY KEY (code));
      INSERT INTO goods(code, goods_name) VALUES (7, "grain");
      INSERT INTO goods(pop_demand, base_price, code, goods_name) VALUES (1.5, 30, 8, "fish");
    `);
    expect(table(tables, 'goods').rows).toEqual([
      ['grain', 7, 20, null],
      ['fish', 8, 30, 1.5],
    ]);
  });

  it('keeps table order and file order', () => {
    const tables = parseSqlDump(`
      CREATE TABLE b(x INT); CREATE TABLE a(x INT);
      INSERT INTO a VALUES (2); INSERT INTO b VALUES (1); INSERT INTO a VALUES (1);
    `);
    expect(tables.map((t) => t.name)).toEqual(['b', 'a']);
    expect(table(tables, 'a').rows).toEqual([[2], [1]]);
  });

  it('repairs the has_has_merchant defect as a pure rename, in CREATE TABLE and in INSERT', () => {
    const tables = parseSqlDump(`
      CREATE TABLE node_country(trade_node VARCHAR(30), country_name VARCHAR(30), has_has_merchant BOOLEAN, PRIMARY KEY (trade_node, country_name));
      INSERT INTO node_country(trade_node, country_name, has_has_merchant) VALUES ("x", "SWE", FALSE);
      INSERT INTO node_country(trade_node, country_name, has_merchant) VALUES ("y", "SWE", TRUE);
    `);
    const nodeCountry = table(tables, 'node_country');
    expect(nodeCountry.columns.map((c) => c.name)).toEqual(['trade_node', 'country_name', 'has_merchant']);
    expect(nodeCountry.rows).toEqual([
      ['x', 'SWE', false],
      ['y', 'SWE', true],
    ]);
  });

  it('rejects a table that spells has_merchant both ways', () => {
    expect(() => parseSqlDump('CREATE TABLE t(has_merchant BOOLEAN, has_has_merchant BOOLEAN);', 'x.sql')).toThrow(
      /x\.sql:1:\d+: duplicate column has_merchant/,
    );
  });

  describe('errors name the source, the line and what was expected', () => {
    const cases: [string, string, RegExp][] = [
      ['unterminated string', 'CREATE TABLE t(a VARCHAR(3));\nINSERT INTO t VALUES ("abc);', /^d\.sql:2:23: unterminated string/],
      ['unknown table', 'INSERT INTO nope VALUES (1);', /^d\.sql:1:13: INSERT INTO unknown table nope/],
      ['unknown column', 'CREATE TABLE t(a INT);\nINSERT INTO t(b) VALUES (1);', /^d\.sql:2:15: unknown column b in INSERT INTO t/],
      ['too few values', 'CREATE TABLE t(a INT, b INT);\n\nINSERT INTO t VALUES (1);', /^d\.sql:3:22: row of INSERT INTO t has 1 values, expected 2/],
      ['too many values', 'CREATE TABLE t(a INT);\nINSERT INTO t VALUES (1, 2);', /^d\.sql:2:26: too many values/],
      ['type mismatch', 'CREATE TABLE t(a FLOAT);\nINSERT INTO t VALUES ("x");', /^d\.sql:2:23: value x does not fit column t\.a of type FLOAT/],
      ['non-integer INT', 'CREATE TABLE t(a INT);\nINSERT INTO t VALUES (1.5);', /does not fit column t\.a of type INT/],
      ['unknown type', 'CREATE TABLE t(a BLOB);', /^d\.sql:1:18: unsupported column type BLOB/],
      ['missing semicolon', 'CREATE TABLE t(a INT)\nCREATE TABLE u(a INT);', /^d\.sql:2:1: expected ';' at the end of the statement, found 'CREATE'/],
      ['unsupported statement', 'UPDATE t SET a = 1;', /^d\.sql:1:1: expected CREATE TABLE, INSERT INTO or DROP TABLE, found 'UPDATE'/],
      ['duplicate primary key', 'CREATE TABLE t(a INT, PRIMARY KEY (a));\nINSERT INTO t VALUES (1);\nINSERT INTO t VALUES (1);', /^d\.sql:3:22: duplicate primary key \[1\] in t \(first inserted on line 2\)/],
      ['bad literal', 'CREATE TABLE t(a INT);\nINSERT INTO t VALUES (abc);', /^d\.sql:2:23: expected a value \(string, number, TRUE, FALSE or NULL\)/],
      ['malformed number', 'CREATE TABLE t(a FLOAT);\nINSERT INTO t VALUES (1e);', /^d\.sql:2:24: malformed exponent/],
      ['junk after the column list', 'CREATE TABLE t(a INT) garbage;', /^d\.sql:1:23: expected ';' at the end of the statement, found 'garbage'/],
      ['table created twice', 'CREATE TABLE t(a INT);\nCREATE TABLE t(a INT);', /table t is created twice/],
    ];
    for (const [title, text, pattern] of cases) {
      it(title, () => {
        expect(() => parseSqlDump(text, 'd.sql')).toThrow(pattern);
      });
    }
  });
});

describe('parseSqlDump on every relational dump of the DQA data', () => {
  const root = dqaRoot();
  const expectedTables = {
    locating: ['country', 'trade_node', 'flow', 'node_country'],
    building: ['goods', 'building', 'supply', 'demand'],
  } as const;
  for (const scenario of ['locating', 'building'] as const) {
    const files = readdirSync(join(root, scenario, 'db')).filter((name) => name.endsWith('.sql'));
    it(`finds ${scenario} dumps`, () => {
      expect(files.length).toBeGreaterThan(0);
    });
    for (const file of files) {
      it(`${scenario}/${file}`, () => {
        const tables = parseSqlDump(readDumpText(root, scenario, `db/${file}`), file);
        expect(tables.map((t) => t.name)).toEqual(expectedTables[scenario]);
        for (const t of tables) {
          expect(t.rows.length).toBeGreaterThan(0);
          for (const row of t.rows) expect(row).toHaveLength(t.columns.length);
        }
        if (scenario === 'locating') {
          expect(table(tables, 'node_country').columns.map((c) => c.name)).toContain('has_merchant');
          expect(table(tables, 'trade_node').rows).toHaveLength(80);
        } else {
          expect(table(tables, 'goods').rows).toHaveLength(52);
        }
      });
    }
  }
});
