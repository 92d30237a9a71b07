import fc from 'fast-check';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { CellValue } from '../../../src-main/contract/data';
import { delimitedField, delimitedLines, numberText, type DelimitedTextOptions } from '../../../src-main/contract/delimited-text';

/**
 * The CSV/TSV writer of `dwb query` and of CSV exports against papaparse's `unparse`, which it
 * replaced for speed (and which the renderer's small exports still use): every line the same
 * bytes for any names, cells, delimiter, line end and formula guard.
 */
function byPapaparse(names: string[], rows: CellValue[][], options: DelimitedTextOptions & { header: boolean }): string {
  const lines = options.header ? [names, ...rows] : rows;
  // Line by line: papaparse joins lines without a final line end, so a last line that is empty
  // (one null cell) would vanish from a joined text.
  return lines
    .map((cells) => Papa.unparse([cells], { delimiter: options.delimiter, newline: options.newline, ...(options.formulaStart ? { escapeFormulae: options.formulaStart } : {}) }) + options.newline)
    .join('');
}

const tricky = fc.constantFrom('"', ',', '\t', '\r', '\n', '\uFEFF', ' ', '=', '+', '-', '@', 'a', 'é', '€', "'", '\\', '0');
const text = fc.array(tricky, { maxLength: 8 }).map((characters) => characters.join(''));
const cell: fc.Arbitrary<CellValue> = fc.oneof(
  text,
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.constantFrom(-0, Number.MAX_SAFE_INTEGER, 1e21, 5e-324),
  fc.boolean(),
  fc.constant(null),
);
const options = fc.record({
  delimiter: fc.constantFrom(',' as const, '\t' as const),
  newline: fc.constantFrom('\n' as const, '\r\n' as const),
  header: fc.boolean(),
  formulaStart: fc.option(fc.constant(/^[=+\-@\t\r]/), { nil: undefined }),
});

describe('delimited text', () => {
  it('writes the bytes papaparse writes, for any names, cells and options', () => {
    const table = fc.integer({ min: 1, max: 4 }).chain((width) =>
      fc.record({ names: fc.array(text, { minLength: width, maxLength: width }), rows: fc.array(fc.array(cell, { minLength: width, maxLength: width }), { maxLength: 6 }) }),
    );
    fc.assert(
      fc.property(table, options, ({ names, rows }, chosen) => {
        const { formulaStart, ...rest } = chosen;
        const settings = formulaStart ? { ...rest, formulaStart } : rest;
        expect(delimitedLines(names, rows, settings)).toBe(byPapaparse(names, rows, settings));
      }),
      { numRuns: 3000 },
    );
  });

  it('quotes only what must be quoted', () => {
    const csv: DelimitedTextOptions = { delimiter: ',', newline: '\n' };
    expect(delimitedField('plain', csv)).toBe('plain');
    expect(delimitedField('a,b', csv)).toBe('"a,b"');
    expect(delimitedField('say "hi"', csv)).toBe('"say ""hi"""');
    expect(delimitedField('two\nlines', csv)).toBe('"two\nlines"');
    expect(delimitedField(' padded', csv)).toBe('" padded"');
    expect(delimitedField('a\tb', csv)).toBe('a\tb');
    expect(delimitedField('a\tb', { ...csv, delimiter: '\t' })).toBe('"a\tb"');
    expect(delimitedField(null, csv)).toBe('');
    expect(delimitedField(-0, csv)).toBe('0');
    expect(delimitedField(true, csv)).toBe('true');
    expect(delimitedField('=1+1', { ...csv, formulaStart: /^[=+\-@\t\r]/ })).toBe(`"'=1+1"`);
    expect(delimitedField(-1, { ...csv, formulaStart: /^[=+\-@\t\r]/ })).toBe('-1');
  });

  it("writes a number as String() writes it, for any number (made without V8's number-to-string cache)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer(), fc.constantFrom(-0, 2 ** 53, -(2 ** 31), 1e21, 1e-7, 5e-324)), (value) => {
        expect(numberText(value)).toBe(String(value));
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps a line for every row, an empty one included', () => {
    // papaparse's joined text, as `dwb query` used it, lost a last row whose one cell was null.
    expect(delimitedLines(['x'], [[null], [null]], { delimiter: ',', newline: '\n', header: true })).toBe('x\n\n\n');
    expect(delimitedLines([''], [], { delimiter: ',', newline: '\n', header: true })).toBe('\n');
  });
});
