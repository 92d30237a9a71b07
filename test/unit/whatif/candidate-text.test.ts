import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidateText, parseCandidateText } from '../../../src-main/contract/whatif';

describe('candidates as the analyst types them', () => {
  it('splits on commas on one line and on lines otherwise, dropping blanks', () => {
    expect(parseCandidateText(' 3, 7 ,12,, ')).toEqual([3, 7, 12]);
    expect(parseCandidateText('Smith, John\nDoe, Jane\n\n')).toEqual(['Smith, John', 'Doe, Jane']);
    expect(parseCandidateText('')).toEqual([]);
  });

  it('reads numbers as numbers, but codes with a leading zero as text', () => {
    expect(parseCandidateText('1.5, -2, 1e3, .5, 0, 0.25')).toEqual([1.5, -2, 1000, 0.5, 0, 0.25]);
    expect(parseCandidateText('007, 0123, krakow, 12abc')).toEqual(['007', '0123', 'krakow', '12abc']);
  });

  it('shows a list so that reading it back gives the same list', () => {
    const candidate = fc.oneof(
      fc.integer({ min: -1e6, max: 1e6 }),
      fc.stringMatching(/^[a-z_][a-z0-9_ ,]{0,12}[a-z0-9_]$/),
    );
    fc.assert(
      fc.property(fc.uniqueArray(candidate, { minLength: 1, maxLength: 12 }), (list) => {
        expect(parseCandidateText(candidateText(list))).toEqual(list);
      }),
    );
  });
});
