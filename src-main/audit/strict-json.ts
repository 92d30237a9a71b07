/**
 * A JSON reader that accepts only text with one reading: what `JSON.stringify` (and so
 * `canonicalJson`) can write, with any indentation. `JSON.parse` keeps the last of two equal
 * keys, so `"decision":"Decide NOT",` put before the signed `"decision"` verifies while a
 * person, `grep` or another parser sees the first; likewise `\u0041` for `A`, `1.0` for `1`,
 * a lone surrogate, or a `__proto__` key can read differently elsewhere. Each is refused here,
 * naming what and where (line, column, offset and the path of the value).
 */

export class StrictJsonError extends Error {
  constructor(
    /** `syntax`: not JSON at all (JSON.parse refuses it too); `strict`: JSON, but not with one reading. */
    readonly kind: 'syntax' | 'strict',
    readonly reason: string,
    readonly offset: number,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${reason} (line ${line}, column ${column}, offset ${offset})`);
  }
}

/** Deeper than any bundle nests; keeps a hostile `[[[[…` from exhausting the stack. */
const maximumDepth = 512;

/** The escapes JSON.stringify writes for the characters it escapes (others as \u00xx, lowercase). */
const shortEscapes: Record<string, string> = { '"': '"', '\\': '\\', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const shortEscapeOf = new Map(Object.entries(shortEscapes).map(([letter, char]) => [char, letter]));

// eslint-disable-next-line no-control-regex -- a string runs until a quote, a backslash, a control character or a surrogate
const ordinaryText = /[^"\\\u0000-\u001f\ud800-\udfff]*/y;
const numberText = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const whitespace = /[ \t\n\r]*/y;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Parses `text` as JSON with exactly one reading, or throws StrictJsonError. */
export function parseStrictJson(text: string): unknown {
  return new StrictReader(text).document();
}

class StrictReader {
  private at = 0;
  /** Where the value being read sits, for messages: `events[12].event.decision`. */
  private readonly path: (string | number)[] = [];

  constructor(private readonly text: string) {}

  document(): Json {
    this.skipWhitespace();
    const value = this.value(0);
    this.skipWhitespace();
    if (this.at < this.text.length) this.fail(`unexpected text after the end of the JSON value`);
    return value;
  }

  private value(depth: number): Json {
    if (depth > maximumDepth) this.fail(`values are nested deeper than ${maximumDepth} levels`, this.at, 'strict');
    const char = this.text[this.at];
    if (char === '{') return this.object(depth);
    if (char === '[') return this.array(depth);
    if (char === '"') return this.string();
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return this.number();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    return this.fail(char === undefined ? 'the text ends where a value was expected' : `unexpected ${describeChar(char)} where a value was expected`);
  }

  private object(depth: number): Json {
    this.at++;
    const result: { [key: string]: Json } = {};
    const seen = new Set<string>();
    this.skipWhitespace();
    if (this.text[this.at] === '}') {
      this.at++;
      return result;
    }
    for (;;) {
      if (this.text[this.at] !== '"') this.fail(`expected a key in double quotes`);
      const keyAt = this.at;
      const key = this.string();
      if (seen.has(key)) this.fail(`the key ${JSON.stringify(key)} appears twice in ${this.where()}; JSON.parse would keep the last value, another reader the first`, keyAt, 'strict');
      // Assigning it would set the object's prototype in some readers and a property in others.
      if (key === '__proto__') this.fail(`the key "__proto__" in ${this.where()} reads as a prototype in some parsers and a property in others`, keyAt, 'strict');
      seen.add(key);
      this.skipWhitespace();
      this.expect(':');
      this.skipWhitespace();
      this.path.push(key);
      result[key] = this.value(depth + 1);
      this.path.pop();
      this.skipWhitespace();
      if (this.text[this.at] === ',') {
        this.at++;
        this.skipWhitespace();
        continue;
      }
      this.expect('}');
      return result;
    }
  }

  private array(depth: number): Json {
    this.at++;
    const result: Json[] = [];
    this.skipWhitespace();
    if (this.text[this.at] === ']') {
      this.at++;
      return result;
    }
    for (;;) {
      this.path.push(result.length);
      result.push(this.value(depth + 1));
      this.path.pop();
      this.skipWhitespace();
      if (this.text[this.at] === ',') {
        this.at++;
        this.skipWhitespace();
        continue;
      }
      this.expect(']');
      return result;
    }
  }

  /** A string, allowed only in the spelling JSON.stringify gives it. */
  private string(): string {
    const start = this.at;
    this.at++;
    let result = '';
    for (;;) {
      ordinaryText.lastIndex = this.at;
      ordinaryText.test(this.text);
      result += this.text.slice(this.at, ordinaryText.lastIndex);
      this.at = ordinaryText.lastIndex;
      const char = this.text[this.at];
      if (char === '"') {
        this.at++;
        return result;
      }
      if (char === undefined) this.fail('the text ends inside a string', start);
      if (char === '\\') {
        result += this.escape();
        continue;
      }
      const code = char.charCodeAt(0);
      if (code < 0x20) this.fail(`a raw control character (U+${hex(code).toUpperCase()}) inside a string`);
      // A surrogate: only a high one followed by a low one is a character.
      const next = this.text.charCodeAt(this.at + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        result += this.text.slice(this.at, this.at + 2);
        this.at += 2;
        continue;
      }
      this.fail(`a lone surrogate (U+${hex(code).toUpperCase()}) inside a string: it is no character and readers replace it differently`, this.at, 'strict');
    }
  }

  private escape(): string {
    const escapeAt = this.at;
    const letter = this.text[this.at + 1];
    if (letter !== undefined && letter in shortEscapes) {
      this.at += 2;
      return shortEscapes[letter] as string;
    }
    if (letter !== 'u') return this.fail(letter === '/' ? 'the escape \\/ (JSON.stringify writes a plain /)' : `the escape \\${letter ?? ''} is not JSON`, escapeAt, letter === '/' ? 'strict' : 'syntax');
    const digits = this.text.slice(this.at + 2, this.at + 6);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) this.fail(`the escape \\u${digits} is not four hexadecimal digits`, escapeAt);
    const code = Number.parseInt(digits, 16);
    const char = String.fromCharCode(code);
    if (code >= 0xd800 && code <= 0xdfff) this.fail(`the escape \\u${digits} is a lone surrogate: it is no character and readers replace it differently`, escapeAt, 'strict');
    // JSON.stringify escapes only control characters this way; any other escape hides a character from grep.
    const canonical = shortEscapeOf.has(char) ? `\\${shortEscapeOf.get(char)}` : code < 0x20 ? `\\u${hex(code)}` : char;
    if (canonical !== `\\u${digits}`) this.fail(`the escape \\u${digits} stands for ${canonical === char ? JSON.stringify(char) : canonical}, which canonical JSON writes as ${canonical === char ? 'the character itself' : canonical}`, escapeAt, 'strict');
    this.at += 6;
    return char;
  }

  private number(): number {
    numberText.lastIndex = this.at;
    if (!numberText.test(this.text)) this.fail(`a malformed number`);
    const written = this.text.slice(this.at, numberText.lastIndex);
    const value = Number(written);
    if (!Number.isFinite(value)) this.fail(`the number ${written} is beyond what a double holds`, this.at, 'strict');
    if (JSON.stringify(value) !== written) this.fail(`the number ${written} is not written as canonical JSON writes it (${JSON.stringify(value)}); readers may take different values`, this.at, 'strict');
    this.at = numberText.lastIndex;
    return value;
  }

  private expect(char: string): void {
    if (this.text[this.at] === char) {
      this.at++;
      return;
    }
    const found = this.text[this.at];
    this.fail(found === undefined ? `the text ends where "${char}" was expected` : `expected "${char}" but found ${describeChar(found)}`);
  }

  private skipWhitespace(): void {
    whitespace.lastIndex = this.at;
    whitespace.test(this.text);
    this.at = whitespace.lastIndex;
  }

  private where(): string {
    if (this.path.length === 0) return 'the top-level object';
    const written = this.path.map((part, index) => (typeof part === 'number' ? `[${part}]` : /^[A-Za-z_$][\w$]*$/.test(part) ? `${index ? '.' : ''}${part}` : `[${JSON.stringify(part)}]`)).join('');
    return `the object at ${written}`;
  }

  private fail(reason: string, offset = this.at, kind: 'syntax' | 'strict' = 'syntax'): never {
    let line = 1;
    let lineStart = 0;
    for (let index = this.text.indexOf('\n'); index !== -1 && index < offset; index = this.text.indexOf('\n', index + 1)) {
      line++;
      lineStart = index + 1;
    }
    throw new StrictJsonError(kind, reason, offset, line, offset - lineStart + 1);
  }
}

function hex(code: number): string {
  return code.toString(16).padStart(4, '0');
}

function describeChar(char: string): string {
  return /[\x21-\x7e]/.test(char) ? `"${char}"` : `U+${hex(char.charCodeAt(0)).toUpperCase()}`;
}
