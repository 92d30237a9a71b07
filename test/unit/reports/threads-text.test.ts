import { expect, it } from 'vitest';
import { threadsText } from '../../../src-main/reports/report-format';

it("a local model's thread choice reads as the count and how it was chosen, with the rates auto measured", () => {
  expect(threadsText({ count: 1, auto: true, measured: { 1: 28.1, 2: 7.4 } })).toBe('1 (auto: 1 → 28.1, 2 → 7.4 tokens/s)');
  expect(threadsText({ count: 2, auto: false, measured: {} })).toBe('2 (set explicitly)');
});
