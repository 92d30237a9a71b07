import { describe, expect, it } from 'vitest';
import { columnFractionDigits, columnNumberFormat, formatCellNumber, shownFractionDigits } from '../../../src-renderer/grid/format-cell';

const grouped = (value: number, digits: number) => new Intl.NumberFormat(undefined, { maximumFractionDigits: digits }).format(value);

describe('numbers in the grid', () => {
  it('groups ordinary numbers and rounds fractions to fit their size', () => {
    expect(formatCellNumber(1234567)).toBe(grouped(1234567, 0));
    expect(formatCellNumber(1234567.891)).toBe(grouped(1234567.89, 2));
    expect(formatCellNumber(616.1300000000001)).toBe(grouped(616.13, 2));
    expect(formatCellNumber(0.5)).toBe(grouped(0.5, 6));
    expect(formatCellNumber(0)).toBe('0');
  });

  it('writes huge numbers with an exponent instead of hundreds of grouped digits', () => {
    expect(formatCellNumber(1e308)).toBe('1e+308');
    expect(formatCellNumber(-1.5e25)).toBe('-1.5e+25');
    expect(formatCellNumber(123456789e20)).toBe('1.23457e+28');
    expect(formatCellNumber(1e20)).toBe(grouped(1e20, 0));
  });

  it('keeps six significant digits of tiny numbers without padding zeros', () => {
    expect(formatCellNumber(0.000012345678)).toBe('0.0000123457');
    expect(formatCellNumber(0.000001234)).toBe('0.000001234');
    expect(formatCellNumber(1e-300)).toBe('1e-300');
    expect(formatCellNumber(-1e-7)).toBe('-1e-7');
    expect(formatCellNumber(5e-324)).toBe('4.94066e-324');
  });

  it('shows non-finite values as their names', () => {
    expect([Infinity, -Infinity, Number.NaN].map(formatCellNumber)).toEqual(['Infinity', '-Infinity', 'NaN']);
  });

  it('keeps label columns (ids, years) as plain digits', () => {
    expect(columnNumberFormat('building_id')(1458)).toBe('1458');
    expect(columnNumberFormat('year')(2024)).toBe('2024');
    expect(columnNumberFormat('total')(2024)).toBe(grouped(2024, 0));
  });

  it('counts the fraction digits a value shows; exponents, tiny values and names take no part', () => {
    expect([42, 12.5, 616.1300000000001, 1234567.891, 0.5, 0.1234567].map(shownFractionDigits)).toEqual([0, 1, 2, 2, 1, 6]);
    expect([1e25, 0.000012345678, Infinity, Number.NaN].map(shownFractionDigits)).toEqual([null, null, null, null]);
    expect(columnFractionDigits([12.5, 616.13, 3, null, 'text', 1e-9])).toBe(2);
    expect(columnFractionDigits([1, 2, 3])).toBe(0);
  });

  it('writes every number of a column with the same fraction digits, so right-aligned decimal points line up', () => {
    const amounts = [12.5, 616.13, 3, 1234.5];
    const format = columnNumberFormat('amount', amounts);
    const twoPlaces = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    expect(amounts.map(format)).toEqual(amounts.map((value) => twoPlaces.format(value)));
    expect(format(3)).toMatch(/^3.00$/);
    // A value the column sample did not hold is rounded to the column's digits; tiny and huge ones keep their own form.
    expect(format(2.345)).toBe(twoPlaces.format(2.345));
    expect(format(0.000012345678)).toBe('0.0000123457');
    expect(format(1e300)).toBe('1e+300');
    // Whole numbers alone stay whole, and label columns keep plain digits.
    expect([7, 1200].map(columnNumberFormat('n', [7, 1200]))).toEqual(['7', grouped(1200, 0)]);
    expect(columnNumberFormat('building_id', [1458, 2.5])(1458)).toBe('1458');
  });
});
