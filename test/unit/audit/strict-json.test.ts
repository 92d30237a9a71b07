import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StrictJsonError, parseStrictJson } from '../../../src-main/audit/strict-json';

function refusal(text: string): StrictJsonError {
  try {
    parseStrictJson(text);
  } catch (error) {
    if (error instanceof StrictJsonError) return error;
    throw error;
  }
  throw new Error(`accepted: ${text}`);
}

describe('strict JSON reader', () => {
  it('reads what JSON.stringify writes, indented or not, as JSON.parse does', () => {
    const json = fc.jsonValue().filter((value) => !JSON.stringify(value).includes('"__proto__"'));
    fc.assert(
      fc.property(json, fc.constantFrom(undefined, 2, '\t'), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        expect(parseStrictJson(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 2000 },
    );
    expect(parseStrictJson('{"a":"\\u0000\\u001f\\n\\"\\\\ é 😀","b":[1e+21,-0.5,5e-324,true,null]}')).toEqual({ a: '\u0000\u001f\n"\\ é 😀', b: [1e21, -0.5, 5e-324, true, null] });
  });

  it('refuses a repeated key, naming it, the object it is in and where', () => {
    const text = '{\n  "events": [\n    {"event": {"decision": "Decide NOT", "decision": "Decide A"}}\n  ]\n}';
    const error = refusal(text);
    expect(error.kind).toBe('strict');
    expect(error.message).toBe('the key "decision" appears twice in the object at events[0].event; JSON.parse would keep the last value, another reader the first (line 3, column 42, offset 57)');
    expect(text.slice(error.offset)).toMatch(/^"decision": "Decide A"/);
    expect(refusal('{"a":1,"a":1}').message).toContain('the key "a" appears twice in the top-level object');
    // The same key spelled with an escape is the same key (and the escape is refused too).
    expect(refusal('{"ab":1,"a\\u0062":2}').message).toContain('the escape \\u0062 stands for "b", which canonical JSON writes as the character itself');
  });

  it('refuses __proto__ keys, lone surrogates, escapes and numbers canonical JSON never writes', () => {
    const cases: [string, string][] = [
      ['{"x":{"__proto__":{"admin":true}}}', 'the key "__proto__" in the object at x reads as a prototype in some parsers and a property in others (line 1, column 7, offset 6)'],
      ['["\\ud800"]', 'the escape \\ud800 is a lone surrogate'],
      ['["a\\udc00"]', 'the escape \\udc00 is a lone surrogate'],
      ['["\ud800x"]', 'a lone surrogate (U+D800) inside a string'],
      ['["\udfff"]', 'a lone surrogate (U+DFFF) inside a string'],
      ['["\\u004e"]', 'the escape \\u004e stands for "N"'],
      ['["\\ud83d\\ude00"]', 'the escape \\ud83d is a lone surrogate'],
      ['["\\u000a"]', 'the escape \\u000a stands for \\n, which canonical JSON writes as \\n'],
      ['["\\u001F"]', 'the escape \\u001F stands for \\u001f, which canonical JSON writes as \\u001f'],
      ['["a\\/b"]', 'the escape \\/ (JSON.stringify writes a plain /)'],
      ['[1.0]', 'the number 1.0 is not written as canonical JSON writes it (1)'],
      ['[-0]', 'the number -0 is not written as canonical JSON writes it (0)'],
      ['[1E+21]', 'the number 1E+21 is not written as canonical JSON writes it (1e+21)'],
      ['[1e21]', 'the number 1e21 is not written as canonical JSON writes it (1e+21)'],
      ['[0.10000000000000001]', 'the number 0.10000000000000001 is not written as canonical JSON writes it (0.1)'],
      ['[9007199254740993]', 'the number 9007199254740993 is not written as canonical JSON writes it (9007199254740992)'],
      ['[1e400]', 'the number 1e400 is beyond what a double holds'],
      [`${'['.repeat(600)}${']'.repeat(600)}`, 'values are nested deeper than 512 levels'],
    ];
    for (const [text, message] of cases) {
      const error = refusal(text);
      expect(error.message, text).toContain(message);
      expect(error.kind, text).toBe('strict');
    }
  });

  it('refuses what is not JSON at all as a syntax error, with the place', () => {
    const cases: [string, string][] = [
      ['{"a": 1', 'the text ends where "}" was expected (line 1, column 8, offset 7)'],
      ['{"a": 1,}', 'expected a key in double quotes (line 1, column 9, offset 8)'],
      ['[1 2]', 'expected "]" but found "2"'],
      ['{"a" 1}', 'expected ":" but found "1"'],
      ["{'a': 1}", 'expected a key in double quotes'],
      ['["a\tb"]', 'a raw control character (U+0009) inside a string'],
      ['["\\x41"]', 'the escape \\x is not JSON'],
      ['["\\u12"]', 'the escape \\u12"] is not four hexadecimal digits'],
      ['[01]', 'expected "]" but found "1"'],
      ['[NaN]', 'unexpected "N" where a value was expected'],
      ['[1] x', 'unexpected text after the end of the JSON value'],
      ['"abc', 'the text ends inside a string (line 1, column 1, offset 0)'],
      ['', 'the text ends where a value was expected'],
      ['\u00a0{}', 'unexpected U+00A0 where a value was expected'],
    ];
    for (const [text, message] of cases) {
      const error = refusal(text);
      expect(error.message, text).toContain(message);
      expect(error.kind, text).toBe('syntax');
      expect(() => JSON.parse(text), text).toThrow();
    }
  });

  it('never throws anything but its own error on any text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.jsonValue().map((value) => JSON.stringify(value)).chain((text) => fc.nat({ max: text.length }).map((cut) => text.slice(0, cut)))), (text) => {
        try {
          parseStrictJson(text);
        } catch (error) {
          expect(error).toBeInstanceOf(StrictJsonError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
