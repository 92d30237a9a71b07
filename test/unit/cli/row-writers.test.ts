import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CellValue, ResultColumn } from '../../../src-main/contract/data';
import { delimitedLines } from '../../../src-main/contract/delimited-text';
import { rowLineEncoder, rowWriter, streamFormats, type StreamFormat } from '../../../src-main/cli/row-writers';
import { sqliteCell } from '../../../src-main/connectors/sqlite/sqlite-read';

/**
 * The row writer as it was before rows were encoded line by line where they are read (issue
 * 29): an object per JSON line, stringified whole; delimited text through delimitedLines. The
 * new encoders must give the same bytes for every input.
 */
function formerRowWriter(format: StreamFormat): (columns: ResultColumn[], rows: CellValue[][]) => string {
  let headerWritten = false;
  return (columns, rows) => {
    const names = columns.map((column) => column.name);
    if (format === 'jsonl') return rows.map((row) => `${JSON.stringify(Object.fromEntries(names.map((name, index) => [name, row[index] ?? null])))}\n`).join('');
    const header = !headerWritten;
    headerWritten = true;
    if (rows.length === 0 && !header) return '';
    return delimitedLines(names, rows, { delimiter: format === 'csv' ? ',' : '\t', newline: '\n', header });
  };
}

const trickyText = fc
  .array(fc.constantFrom('"', ',', '\t', '\r', '\n', '\uFEFF', ' ', '\\', 'a', 'é', '€', '😀', '\u2028', '\u0000', '0'), { maxLength: 8 })
  .map((characters) => characters.join(''));
// Names as a result can have them: repeated, integer-like (a JavaScript object puts those first), __proto__.
const name = fc.oneof(trickyText, fc.constantFrom('id', 'id', '1', '0', '10', '-1', '01', '__proto__', 'constructor', ''));
const cell: fc.Arbitrary<CellValue> = fc.oneof(
  trickyText,
  fc.string(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(-0, Number.MAX_SAFE_INTEGER, 1e21, 5e-324, 'Infinity', '-Infinity', 'NaN', '9007199254740993', '0x00ff'),
  fc.constant(null),
);
/** Rows of the given width, now and then a short one (a missing cell is null). */
const rowsOf = (width: number): fc.Arbitrary<CellValue[][]> => fc.array(fc.array(cell, { minLength: Math.max(0, width - 1), maxLength: width }), { maxLength: 6 });

describe('row writers (dwb query --format csv|tsv|jsonl)', () => {
  it('write the bytes the former writer wrote, batch after batch, for any names and cells', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...streamFormats),
        fc.array(name, { minLength: 1, maxLength: 5 }).chain((names) => fc.tuple(fc.constant(names), fc.array(rowsOf(names.length), { maxLength: 4 }))),
        (format, [names, batches]) => {
          const columns = names.map((columnName) => ({ name: columnName, type: '' }));
          const now = rowWriter(format);
          const before = formerRowWriter(format);
          for (const rows of [...batches, []]) expect(now(columns, rows)).toBe(before(columns, rows));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('encode SQLite values as they come from the engine into the lines of their cells', () => {
    // What better-sqlite3 hands over in raw, safe-integer mode, converted cell by cell by the encoder.
    const raw = fc.oneof(
      fc.constant(null),
      trickyText,
      fc.double(),
      fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.constantFrom(2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 9007199254740991n),
      fc.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes)),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...streamFormats),
        fc.array(name, { minLength: 1, maxLength: 4 }).chain((names) => fc.tuple(fc.constant(names), fc.array(fc.array(raw, { minLength: names.length, maxLength: names.length }), { maxLength: 5 }))),
        (format, [names, rows]) => {
          const encoder = rowLineEncoder(format, names, sqliteCell);
          const columns = names.map((columnName) => ({ name: columnName, type: '' }));
          const expected = formerRowWriter(format)(columns, rows.map((row) => row.map(sqliteCell)));
          expect(encoder.header + rows.map((row) => encoder.line(row)).join('')).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('spell out the tricky cells the same way in every format', () => {
    const encoder = (format: StreamFormat) => rowLineEncoder(format, ['n', 'b', 'inf', 'big', 's'], sqliteCell);
    const row = [null, Buffer.from([0, 255]), Number.NEGATIVE_INFINITY, 2n ** 63n - 1n, 'a "q",\r\nb €'];
    expect(encoder('csv').line(row)).toBe(',0x00ff,-Infinity,9223372036854775807,"a ""q"",\r\nb €"\n');
    expect(encoder('tsv').line(row)).toBe('\t0x00ff\t-Infinity\t9223372036854775807\t"a ""q"",\r\nb €"\n');
    expect(encoder('jsonl').line(row)).toBe('{"n":null,"b":"0x00ff","inf":"-Infinity","big":"9223372036854775807","s":"a \\"q\\",\\r\\nb €"}\n');
  });
});
