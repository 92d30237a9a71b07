import { describe, expect, it } from 'vitest';
import { columnNumberFormat, formatCellNumber } from '../../../src-renderer/grid/format-cell';

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
});
