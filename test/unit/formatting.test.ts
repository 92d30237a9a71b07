import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { formatTable } from '../../src-main/cli/format-table';
import { parseConnectionUri } from '../../src-main/connectors/connection-uri';
import { toCsv, toTsv } from '../../src-renderer/grid/csv';

const awkward = {
  columns: [
    { name: 'name', type: 'TEXT' },
    { name: 'value', type: 'REAL' },
  ],
  rows: [
    ['plain', 1.5],
    ['comma, inside', -2],
    ['quote " inside', null],
    ['line\nbreak', 1e21],
  ],
};

describe('CSV and TSV export', () => {
  it('round-trips awkward values through a CSV parser', () => {
    const csv = toCsv(awkward);
    expect(csv.split('\r\n')[0]).toBe('name,value');
    expect(csv.endsWith('1e+21\r\n')).toBe(true);
    const parsed = Papa.parse<string[]>(csv.slice(0, -2), { newline: '\r\n' }).data;
    expect(parsed.slice(1)).toEqual([
      ['plain', '1.5'],
      ['comma, inside', '-2'],
      ['quote " inside', ''],
      ['line\nbreak', '1e+21'],
    ]);
  });

  it('keeps a last row of one empty cell (every line ends with CRLF)', () => {
    expect(toCsv({ columns: [{ name: 'x', type: '' }], rows: [[null], [null]] })).toBe('x\r\n\r\n\r\n');
    expect(toCsv({ columns: [{ name: 'x', type: '' }], rows: [] })).toBe('x\r\n');
  });

  it('writes tab-separated text for the clipboard', () => {
    expect(toTsv({ columns: awkward.columns, rows: [['a', 1]] })).toBe('name\tvalue\na\t1\n');
  });

  it('keeps a last row of one empty cell on the clipboard too (every line ends with LF)', () => {
    expect(toTsv({ columns: [{ name: 'x', type: '' }], rows: [[null], [null]] })).toBe('x\n\n\n');
    expect(toTsv({ columns: [{ name: 'x', type: '' }], rows: [[null]] })).not.toBe(toTsv({ columns: [{ name: 'x', type: '' }], rows: [] }));
  });
});

describe('CLI table', () => {
  it('aligns columns, right-aligns numbers and shows NULL', () => {
    expect(formatTable({ columns: awkward.columns, rows: [['north', 10.5], ['south-east', null]] }).split('\n')).toEqual([
      'name        value',
      '----------  -----',
      'north        10.5',
      'south-east   NULL',
    ]);
  });
});

describe('connection URIs', () => {
  it('reads sqlite: URIs with relative and absolute paths', () => {
    expect(parseConnectionUri('sqlite:/data/a.db')).toEqual({ engine: 'sqlite', path: '/data/a.db' });
    expect(parseConnectionUri('sqlite:///data/a.db')).toEqual({ engine: 'sqlite', path: '/data/a.db' });
    expect(parseConnectionUri('sqlite:rel.db')).toEqual({ engine: 'sqlite', path: `${process.cwd()}/rel.db` });
  });

  it('says what is wrong with a bad URI', () => {
    expect(() => parseConnectionUri('sqlite:')).toThrow('sqlite: URI has no file path');
    expect(() => parseConnectionUri('/just/a/path.db')).toThrow('Not a connection URI');
    expect(() => parseConnectionUri('oracle://x')).toThrow('Unsupported connection scheme "oracle:"');
  });
});
