import { describe, expect, it } from 'vitest';
import { cappedPositiveInteger, numberOption, positiveInteger } from '../../../src-main/cli/command-io';

describe('numbers given as options', () => {
  it('takes whole numbers written in digits only', () => {
    expect(positiveInteger('16', '--max-rows')).toBe(16);
    expect(positiveInteger(' 7 ', '--max-rows')).toBe(7);
    expect(positiveInteger(undefined, '--max-rows')).toBeUndefined();
    for (const written of ['0', '-1', '1e3', '0x10', '5.0', '', ' ', 'Infinity', '9007199254740993', '½']) {
      expect(() => positiveInteger(written, '--max-rows'), written).toThrow(`--max-rows takes a positive whole number, got "${written}"`);
    }
    expect(() => cappedPositiveInteger('1000001', '--max-rows', 1_000_000)).toThrow('--max-rows is at most 1,000,000, got 1000001');
  });

  it('takes numbers as people write them, and refuses blank, hex and infinite ones that Number() would take', () => {
    expect(numberOption('0.25', '--tolerance')).toBe(0.25);
    expect(numberOption('-1.5e-3', '--tolerance')).toBe(-0.0015);
    expect(numberOption('.5', '--tolerance')).toBe(0.5);
    expect(numberOption('2.', '--tolerance')).toBe(2);
    for (const written of ['', '  ', '0x10', 'Infinity', '1e999', '1,5', 'NaN', '--']) {
      expect(() => numberOption(written, '--tolerance'), written).toThrow(`--tolerance takes a number, got "${written}"`);
    }
    expect(() => numberOption('3', '--temperature', 'a number from 0 to 2', (n) => n <= 2)).toThrow('--temperature takes a number from 0 to 2, got "3"');
  });
});
