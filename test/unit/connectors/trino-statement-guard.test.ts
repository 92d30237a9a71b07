import { describe, expect, it } from 'vitest';

import { bindTrinoParameters } from '../../../src-main/connectors/trino/bind-parameters';
import { toTrinoCell } from '../../../src-main/connectors/trino/cell-values';
import { parseExactJson } from '../../../src-main/connectors/trino/exact-json';
import { checkTrinoStatement } from '../../../src-main/connectors/trino/statement-guard';
import { WorkbenchError } from '../../../src-main/contract/errors';

function refusal(text: string): WorkbenchError | null {
  try {
    checkTrinoStatement(text);
    return null;
  } catch (error) {
    return error as WorkbenchError;
  }
}

describe('Trino statement check', () => {
  it('lets one read through and marks queries for the plan check', () => {
    expect(checkTrinoStatement('SELECT 1;').text).toBe('SELECT 1');
    expect(checkTrinoStatement('  -- note\n(SELECT 1) UNION ALL (SELECT 2)').planned).toBe(true);
    expect(checkTrinoStatement('SHOW TABLES').planned).toBe(false);
    expect(checkTrinoStatement('DESCRIBE nodes').planned).toBe(false);
    expect(checkTrinoStatement('EXPLAIN SELECT 1').planned).toBe(false);
    expect(checkTrinoStatement('EXPLAIN (TYPE IO, FORMAT JSON) WITH a AS (SELECT 1) SELECT * FROM a').planned).toBe(false);
    // A ; inside a string, identifier or comment does not split the statement.
    expect(checkTrinoStatement(`SELECT ';' AS "a;b" /* ; */`).text).toBe(`SELECT ';' AS "a;b" /* ; */`);
  });

  it('refuses writes, several statements and EXPLAIN ANALYZE with code read-only', () => {
    for (const text of ['INSERT INTO t VALUES 1', 'select 1; drop table t', '/* x */ DROP TABLE t', '-- a\rDELETE FROM t', 'EXPLAIN ANALYZE INSERT INTO t VALUES 1', 'EXPLAIN INSERT INTO t VALUES 1', 'EXPLAIN (TYPE IO) DELETE FROM t', 'EXPLAIN EXPLAIN ANALYZE DELETE FROM t', 'CALL system.flush()', 'use lake.x', 'EXECUTE IMMEDIATE \'DELETE FROM t\'']) {
      expect(refusal(text)?.code, text).toBe('read-only');
    }
  });

  it('leaves words that start no statement to Trino for its own syntax error', () => {
    expect(refusal('SELEC 1')).toBeNull();
    expect(refusal('')?.code).toBe('syntax');
  });

  it('binds named parameters as typed literals Trino binds, quotes doubled', () => {
    const statement = checkTrinoStatement("SELECT name FROM nodes WHERE region = $region AND id > $id AND note <> '$region'");
    expect(bindTrinoParameters(statement, { region: "north' OR '1'='1", id: 2 })).toBe(
      "EXECUTE IMMEDIATE 'SELECT name FROM nodes WHERE region = ? AND id > ? AND note <> ''$region''' USING 'north'' OR ''1''=''1', 2",
    );
    expect(() => bindTrinoParameters(statement, { region: 'x' })).toThrow(/no value given for parameter \$id/);
  });
});

describe('Trino values', () => {
  it('keeps every digit of a BIGINT past 2^53 and leaves strings alone', () => {
    expect(parseExactJson('{"data":[[9223372036854775807,-9007199254740993,42,1.5e300,"12345678901234567890"]]}')).toEqual({
      data: [['9223372036854775807', '-9007199254740993', 42, 1.5e300, '12345678901234567890']],
    });
    expect(toTrinoCell('9223372036854775807', 'bigint')).toBe('9223372036854775807');
    expect(toTrinoCell('42', 'bigint')).toBe(42);
    expect(toTrinoCell('AP8=', 'varbinary')).toBe('0x00ff');
    expect(toTrinoCell([1, { a: 2 }], 'array(row(a integer))')).toBe('[1,{"a":2}]');
  });
});
