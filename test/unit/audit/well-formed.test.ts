import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseStrictJson } from '../../../src-main/audit/strict-json';
import { wellFormed } from '../../../src-main/audit/well-formed';

describe('well-formed strings before hashing', () => {
  it('replaces lone surrogates in values and keys, keeps pairs, and returns the same value when nothing changes', () => {
    const value = { decision: 'krakow \ud83d', nested: [{ ['k\udc00']: 'a\udfffb' }, 'ok 😀'], count: 3, none: null };
    expect(wellFormed(value)).toEqual({ decision: 'krakow \ufffd', nested: [{ ['k\ufffd']: 'a\ufffdb' }, 'ok 😀'], count: 3, none: null });
    const clean = { decision: 'krakow 😀', rows: [[1, 'a'], [2, null]] };
    expect(wellFormed(clean)).toBe(clean);
    expect(value.decision).toBe('krakow \ud83d');
  });

  it('makes anything JSON.stringify writes readable by the strict bundle reader', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.string({ unit: 'binary' }), (value, text) => {
        const tree = { value, text, [text]: 1 };
        const cleaned = wellFormed(tree) as Record<string, unknown>;
        const written = JSON.stringify(cleaned);
        // A "__proto__" key is refused for another reason (strict-json.test.ts).
        if (written.includes('"__proto__"')) return;
        expect(() => parseStrictJson(written)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });
});
