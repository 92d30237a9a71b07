/**
 * The fast dump scanners (sql-scan.ts, cypher-scan.ts) against the strict token parsers:
 * identical results on every dev dump, never accepting what the strict parser rejects (checked
 * on thousands of damaged copies), and the strict parser's precise errors for malformed dumps.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCypherDump } from '../../../src-main/dqa/cypher-dump';
import { readCypherDump, scanCypherDump } from '../../../src-main/dqa/cypher-scan';
import { dqaRoot } from '../../../src-main/dqa/dataset';
import { DumpParseError } from '../../../src-main/dqa/dump-lexer';
import { parseSqlDump } from '../../../src-main/dqa/sql-dump';
import { readSqlDump, scanSqlDump } from '../../../src-main/dqa/sql-scan';

interface DevDump {
  name: string;
  text: string;
  kind: 'sql' | 'cql';
}

function devDumps(): DevDump[] {
  const dumps: DevDump[] = [];
  for (const scenario of ['building', 'locating']) {
    const folder = join(dqaRoot(), scenario, 'db');
    for (const name of readdirSync(folder).sort()) {
      const kind = name.endsWith('.sql') ? 'sql' : name.endsWith('.cql') ? 'cql' : null;
      if (kind !== null) dumps.push({ name: `${scenario}/db/${name}`, text: readFileSync(join(folder, name), 'utf8'), kind });
    }
  }
  return dumps;
}

const dumps = devDumps();

/** What the strict parser makes of a text: its result, or its error message. */
function strict(text: string, kind: 'sql' | 'cql'): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: kind === 'sql' ? parseSqlDump(text, 'dump') : parseCypherDump(text, 'dump') };
  } catch (error) {
    if (!(error instanceof DumpParseError)) throw error;
    return { ok: false, message: error.message };
  }
}

describe('fast scanners on every dev dump', () => {
  it('finds dev dumps of both kinds', () => {
    expect(dumps.filter((d) => d.kind === 'sql').length).toBeGreaterThanOrEqual(14);
    expect(dumps.filter((d) => d.kind === 'cql').length).toBeGreaterThanOrEqual(14);
  });

  it.each(dumps.map((d) => [d.name, d] as const))('%s: read by the fast path, identical to the strict parser', (_name, dump) => {
    const fast = dump.kind === 'sql' ? scanSqlDump(dump.text, dump.name) : scanCypherDump(dump.text);
    const slow = dump.kind === 'sql' ? parseSqlDump(dump.text, dump.name) : parseCypherDump(dump.text, dump.name);
    expect(fast).not.toBeNull();
    expect(fast).toStrictEqual(slow);
    // Byte for byte, key order and number spelling included.
    expect(JSON.stringify(fast)).toBe(JSON.stringify(slow));
  });
});

/** A damaged copy: one edit (delete, insert or replace a short run) somewhere in the dump. */
const edit = (length: number) =>
  fc.record({
    at: fc.integer({ min: 0, max: length }),
    remove: fc.integer({ min: 0, max: 3 }),
    insert: fc.stringMatching(/^[ ;,(){}[\]:"'`\\\-+.eE0-9a-zA-Z_#/*\n>< ]{0,3}$/),
  });

function damaged(text: string, change: { at: number; remove: number; insert: string }): string {
  return text.slice(0, change.at) + change.insert + text.slice(change.at + change.remove);
}

describe('fast scanners on damaged dumps agree with the strict parser', () => {
  // The smallest dev dump of each kind and scenario (Locating dumps carry the has_has_merchant defect); fewer runs on the larger ones.
  const bases = (['sql', 'cql'] as const).flatMap((kind) =>
    ['building/', 'locating/'].map((scenario) => {
      const base = dumps.filter((d) => d.kind === kind && d.name.startsWith(scenario)).sort((a, b) => a.text.length - b.text.length)[0] as DevDump;
      return { kind, base, runs: scenario === 'building/' ? 500 : 60 };
    }),
  );
  for (const { kind, base, runs } of bases) {
    it(`${base.name}: never accepts what the strict parser rejects, never reads it differently`, () => {
      fc.assert(
        fc.property(edit(base.text.length), (change) => {
          const text = damaged(base.text, change);
          const expected = strict(text, kind);
          const fast = kind === 'sql' ? scanSqlDump(text, 'dump') : scanCypherDump(text);
          if (!expected.ok) {
            expect(fast).toBeNull();
            const read = () => (kind === 'sql' ? readSqlDump(text, 'dump') : readCypherDump(text, 'dump'));
            expect(read).toThrow(DumpParseError);
            expect(read).toThrow(expected.message);
          } else if (fast !== null) {
            expect(fast).toStrictEqual(expected.value);
          }
        }),
        { numRuns: runs, seed: 17 },
      );
    });
  }
});

describe('numbers read in place', () => {
  it('equal Number() of their spelling, bit for bit (short ones are computed without it)', () => {
    const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
    const spelling = fc
      .tuple(fc.constantFrom('', '-', '+'), digits(1, 20), fc.option(digits(1, 26), { nil: undefined }), fc.option(fc.integer({ min: -330, max: 330 }), { nil: undefined }))
      .map(([sign, whole, fraction, exponent]) => `${sign}${whole}${fraction === undefined ? '' : `.${fraction}`}${exponent === undefined ? '' : `e${exponent}`}`);
    fc.assert(
      fc.property(spelling, (number) => {
        const sql = `CREATE TABLE t(x DOUBLE, s VARCHAR(40)); INSERT INTO t VALUES (${number}, ${number});`;
        const row = scanSqlDump(sql, 'n')?.[0]?.rows[0];
        expect(row).toBeDefined();
        const [value, text] = row as [number, string];
        const expected = Number(number.replace(/^\+/, ''));
        expect(Object.is(value, expected)).toBe(true);
        expect(text).toBe(number.replace(/^\+/, ''));
        expect(scanCypherDump(`CREATE (n:X {x: ${number}});`)?.nodes[0]?.properties['x']).toBe(expected);
      }),
      { numRuns: 3000, seed: 17 },
    );
  });
});

describe('readSqlDump', () => {
  it('reads comments, multi-row inserts, column subsets with defaults and repaired names on the fast path', () => {
    const text = `-- header
      # another comment
      CREATE TABLE t(id INT PRIMARY KEY, name VARCHAR(10) DEFAULT 'none', has_merchant BOOLEAN, x FLOAT);
      /* block */ INSERT INTO t(id, has_has_merchant) VALUES (1, TRUE), (2, 0);
      insert into T values (3, "c", false, -2.5e1) ;;
      INSERT INTO t(x, id) VALUES (+4, 4);`;
    const fast = scanSqlDump(text, 'inline');
    expect(fast).not.toBeNull();
    expect(fast).toStrictEqual(parseSqlDump(text, 'inline'));
    expect(fast?.[0]?.rows).toEqual([
      [1, 'none', true, null],
      [2, 'none', false, null],
      [3, 'c', false, -25],
      [4, 'none', null, 4],
    ]);
  });

  it('hands escapes, DROP TABLE and back-quoted names to the strict parser, with the same result', () => {
    for (const text of [
      `CREATE TABLE t(a VARCHAR(9)); INSERT INTO t VALUES ('it''s'), ("a\\"b");`,
      `CREATE TABLE t(a INT); DROP TABLE t; CREATE TABLE t(b INT); INSERT INTO t VALUES (1);`,
      'CREATE TABLE `t`(a INT); INSERT INTO `t` VALUES (1);',
    ]) {
      expect(scanSqlDump(text, 'inline')).toBeNull();
      expect(readSqlDump(text, 'inline')).toStrictEqual(parseSqlDump(text, 'inline'));
    }
  });

  it.each([
    ['an unterminated string', `CREATE TABLE t(a VARCHAR(9));\nINSERT INTO t VALUES ("abc);`, 'x.sql:2:23: unterminated string'],
    ['a duplicate primary key', `CREATE TABLE t(a INT PRIMARY KEY);\nINSERT INTO t VALUES (1);\nINSERT INTO t VALUES (1);`, 'x.sql:3:22: duplicate primary key [1] in t (first inserted on line 2)'],
    ['a value of the wrong type', `CREATE TABLE t(a INT);\nINSERT INTO t VALUES (1.5);`, 'x.sql:2:23: value 1.5 does not fit column t.a of type INT'],
    ['a row too short', `CREATE TABLE t(a INT, b INT);\nINSERT INTO t VALUES (1);`, 'x.sql:2:22: row of INSERT INTO t has 1 values, expected 2'],
    ['an unknown table', `INSERT INTO nowhere VALUES (1);`, 'x.sql:1:13: INSERT INTO unknown table nowhere'],
    ['a truncated statement', `CREATE TABLE t(a INT);\nINSERT INTO t VALUES (1`, "x.sql:2:24: expected ')' or ',' in a row of INSERT INTO t, found end of input"],
    ['a malformed number', `CREATE TABLE t(a FLOAT);\nINSERT INTO t VALUES (1e);`, 'x.sql:2:24: malformed exponent in number 1e)'],
    ['a stray character', `CREATE TABLE t(a INT);\nINSERT INTO t VALUES (1) @;`, 'x.sql:2:26: unexpected character "@"'],
  ])('%s: a DumpParseError saying where and what', (_what, text, message) => {
    expect(scanSqlDump(text, 'x.sql')).toBeNull();
    expect(() => readSqlDump(text, 'x.sql')).toThrow(DumpParseError);
    expect(() => readSqlDump(text, 'x.sql')).toThrow(message);
  });
});

describe('readCypherDump', () => {
  it('reads several labels, left arrows, relationships without properties and comments on the fast path', () => {
    const text = `// header
      CREATE (a:Goods:Thing {name: "a", code: 1});
      CREATE (b: Building {id: 2, ok: TRUE, none: null, x: - 1.5});
      MATCH (g:Goods {code: 1}), (b:Building {id: 2}) CREATE (g)<-[r:Supply {max_supply: 3}]-(b);
      /* block */ MATCH (b:Building {id: 2}), (g:Goods {name: "a"}) CREATE (b)-[:Demand]->(g)`;
    const fast = scanCypherDump(text);
    expect(fast).not.toBeNull();
    expect(fast).toStrictEqual(parseCypherDump(text, 'inline'));
    expect(fast?.relationships).toEqual([
      { type: 'Supply', from: 1, to: 0, properties: { max_supply: 3 } },
      { type: 'Demand', from: 1, to: 0, properties: {} },
    ]);
  });

  it('hands chains and escaped strings to the strict parser, with the same result', () => {
    for (const text of [`CREATE (a:X {n: 1})-[:R]->(b:Y {n: 2});`, `CREATE (a:X {n: "a\\"b"});`, `CREATE (a:X {n: 1}), (b:X {n: 2});`]) {
      expect(scanCypherDump(text)).toBeNull();
      expect(readCypherDump(text, 'inline')).toStrictEqual(parseCypherDump(text, 'inline'));
    }
  });

  it.each([
    ['a MATCH finding no node', `CREATE (a:X {n: 1});\nMATCH (a:X {n: 2}), (b:X {n: 1}) CREATE (a)-[:R]->(b);`, 'x.cql:2:7: MATCH (a:X {n: 2}) finds no node created before this line'],
    ['an ambiguous MATCH', `CREATE (a:X {n: 1});\nCREATE (a:X {n: 1});\nMATCH (a:X {n: 1}) CREATE (a)-[:R]->(a);`, 'x.cql:3:7: MATCH (a:X {n: 1}) is ambiguous: 2 nodes match'],
    ['a variable from another statement', `CREATE (a:X {n: 1});\nMATCH (b:X {n: 1}) CREATE (a)-[:R]->(b);`, 'x.cql:2:27: variable a is not bound in this statement'],
    ['an undirected relationship', `CREATE (a:X {n: 1});\nMATCH (a:X {n: 1}) CREATE (a)-[:R]-(a);`, 'x.cql:2:30: a created relationship needs a direction (-> or <-)'],
    ['an unsupported clause', `CREATE (a:X {n: 1});\nMERGE (b:X {n: 2});`, 'x.cql:2:1: unsupported Cypher clause MERGE'],
    ['an unterminated property map', `CREATE (a:X {n: 1`, "x.cql:1:18: expected '}' or ',' in the property map, found end of input"],
  ])('%s: a DumpParseError saying where and what', (_what, text, message) => {
    expect(scanCypherDump(text)).toBeNull();
    expect(() => readCypherDump(text, 'x.cql')).toThrow(DumpParseError);
    expect(() => readCypherDump(text, 'x.cql')).toThrow(message);
  });
});
