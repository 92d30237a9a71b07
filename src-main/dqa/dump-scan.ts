/**
 * The character-level reading shared by the fast dump scanners (sql-scan.ts, cypher-scan.ts).
 * They read the dump text in place with charCodeAt and indexOf — no token objects, no regular
 * expressions — and understand only the regular statement shapes the DQA dumps are made of.
 *
 * A scanner never decides that a dump is wrong: at anything outside the shapes it knows, it
 * gives up (`Unrecognized`) and the caller parses the whole dump with the strict token parser
 * (sql-dump.ts / cypher-dump.ts), which either reads it or reports the exact line, column and
 * cause. So a scanner must never accept what the strict parser rejects, and must give the same
 * result wherever it does accept; a property test checks both on every dev dump and on
 * thousands of damaged copies.
 */
import type { LexerDialect } from './dump-lexer';

/** Thrown (one shared instance, no stack) when the text leaves the shapes a scanner knows. */
class Unrecognized {
  readonly reason = 'not a shape the fast scanner reads';
}
const UNRECOGNIZED = new Unrecognized();

export function giveUp(): never {
  throw UNRECOGNIZED;
}

/** Runs a scan; null when it gave up (any other error is a bug and propagates). */
export function attemptScan<T>(scan: () => T): T | null {
  try {
    return scan();
  } catch (error) {
    if (error === UNRECOGNIZED) return null;
    throw error;
  }
}

const CH_TAB = 9;
const CH_NEWLINE = 10;
const CH_VTAB = 11;
const CH_FORMFEED = 12;
const CH_RETURN = 13;
const CH_SPACE = 32;
const CH_DOUBLE_QUOTE = 34;
const CH_HASH = 35;
const CH_SINGLE_QUOTE = 39;
const CH_STAR = 42;
const CH_PLUS = 43;
const CH_MINUS = 45;
const CH_DOT = 46;
const CH_SLASH = 47;
const CH_BACKSLASH = 92;
const CH_BACKQUOTE = 96;
const CH_BOM = 0xfeff;

export const CH = { doubleQuote: CH_DOUBLE_QUOTE, singleQuote: CH_SINGLE_QUOTE, openParen: 40, closeParen: 41, comma: 44, colon: 58, semicolon: 59, openBrace: 123, closeBrace: 125, openBracket: 91, closeBracket: 93, less: 60, greater: 62, minus: CH_MINUS, plus: CH_PLUS } as const;

/** Identifier characters as the lexer defines them: ASCII letters, `_`, `$`, and (after the first) digits. */
export function isIdentifierStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36;
}

function isIdentifierPart(c: number): boolean {
  return isIdentifierStart(c) || (c >= 48 && c <= 57);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** 10^0 … 10^22, each exactly representable as a double. */
const POWERS_OF_TEN = Float64Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * A read position in a dump's text. Every method either advances past what it read or gives
 * up; none of them allocates except to return a name or a value.
 */
export class DumpText {
  pos = 0;
  private readonly sql: boolean;

  constructor(
    readonly text: string,
    dialect: LexerDialect,
  ) {
    this.sql = dialect === 'sql';
  }

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  /** The char code at the read position (NaN at the end). */
  peek(): number {
    return this.text.charCodeAt(this.pos);
  }

  /** Skips blanks and comments exactly as the lexer does (the dialect picks `--`/`#` or `//`). */
  skipBlank(): void {
    const { text } = this;
    const length = text.length;
    let pos = this.pos;
    while (pos < length) {
      const c = text.charCodeAt(pos);
      if (c === CH_SPACE || c === CH_NEWLINE || c === CH_TAB || c === CH_RETURN || c === CH_FORMFEED || c === CH_VTAB || c === CH_BOM) {
        pos += 1;
        continue;
      }
      // Most tokens start with none of the characters a comment starts with.
      if (c !== CH_MINUS && c !== CH_SLASH && c !== CH_HASH) break;
      const next = text.charCodeAt(pos + 1);
      const lineComment = this.sql ? (c === CH_MINUS && next === CH_MINUS) || c === CH_HASH : c === CH_SLASH && next === CH_SLASH;
      if (lineComment) {
        const end = text.indexOf('\n', pos);
        pos = end < 0 ? length : end;
        continue;
      }
      if (c === CH_SLASH && next === CH_STAR) {
        const end = text.indexOf('*/', pos + 2);
        if (end < 0) giveUp();
        pos = end + 2;
        continue;
      }
      break;
    }
    this.pos = pos;
  }

  /** Skips blanks, then requires the character `code`. */
  expect(code: number): void {
    this.skipBlank();
    if (this.text.charCodeAt(this.pos) !== code) giveUp();
    this.pos += 1;
  }

  /** Skips blanks; consumes `code` when it is next. */
  accept(code: number): boolean {
    this.skipBlank();
    if (this.text.charCodeAt(this.pos) !== code) return false;
    this.pos += 1;
    return true;
  }

  /** Skips blanks; the end of the identifier starting there, or -1 when none starts there (a back-quoted one gives up). */
  private identifierEnd(): number {
    this.skipBlank();
    const { text } = this;
    const start = this.pos;
    const c = text.charCodeAt(start);
    if (c === CH_BACKQUOTE) giveUp();
    if (!isIdentifierStart(c)) return -1;
    let end = start + 1;
    while (isIdentifierPart(text.charCodeAt(end))) end += 1;
    return end;
  }

  /** An identifier (as written), or null when the next token is not one. */
  identifier(): string | null {
    const end = this.identifierEnd();
    if (end < 0) return null;
    const name = this.text.slice(this.pos, end);
    this.pos = end;
    return name;
  }

  /**
   * An identifier like `identifier()`, given as the same string as an earlier one spelled the
   * same way when `seen` holds it (dumps repeat a few dozen names hundreds of thousands of
   * times: one shared string, no new slice to hash as a property key). New names join `seen`.
   */
  name(seen: string[]): string | null {
    const end = this.identifierEnd();
    if (end < 0) return null;
    const { text, pos } = this;
    const length = end - pos;
    for (let i = 0; i < seen.length; i += 1) {
      const candidate = seen[i] as string;
      if (candidate.length === length && text.startsWith(candidate, pos)) {
        this.pos = end;
        return candidate;
      }
    }
    const name = text.slice(pos, end);
    if (seen.length < 256) seen.push(name);
    this.pos = end;
    return name;
  }

  /** The index in `names` of the identifier written next (consumed), or -1 (nothing consumed) when it is none of them. */
  oneOf(names: readonly string[]): number {
    const end = this.identifierEnd();
    if (end < 0) return -1;
    const { text, pos } = this;
    const length = end - pos;
    for (let i = 0; i < names.length; i += 1) {
      const name = names[i] as string;
      if (name.length === length && text.startsWith(name, pos)) {
        this.pos = end;
        return i;
      }
    }
    return -1;
  }

  /** Consumes the keyword `lower` (given in lower case; matched case-insensitively as a whole identifier) when it is next. */
  acceptKeyword(lower: string): boolean {
    const end = this.identifierEnd();
    if (end - this.pos !== lower.length) return false;
    const { text, pos } = this;
    for (let i = 0; i < lower.length; i += 1) if ((text.charCodeAt(pos + i) | 0x20) !== lower.charCodeAt(i)) return false;
    this.pos = end;
    return true;
  }

  expectKeyword(lower: string): void {
    if (!this.acceptKeyword(lower)) giveUp();
  }

  /**
   * A quoted string without escapes, doubled quotes or line breaks (the lexer's own fast path),
   * or null when the next token is not a string; any other string gives up.
   */
  string(): string | null {
    this.skipBlank();
    const { text } = this;
    const quote = text.charCodeAt(this.pos);
    if (quote !== CH_DOUBLE_QUOTE && quote !== CH_SINGLE_QUOTE) return null;
    const start = this.pos + 1;
    let pos = start;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === quote) break;
      if (c === CH_BACKSLASH || c === CH_NEWLINE || Number.isNaN(c)) giveUp();
      pos += 1;
    }
    if (text.charCodeAt(pos + 1) === quote) giveUp();
    this.pos = pos + 1;
    return text.slice(start, pos);
  }

  /** Where the last number read starts (its sign, then its digits): `numberText()` slices it on demand. */
  private numberSign = 0;
  private numberDigits = 0;

  /**
   * An optionally signed number (`digits[.digits][e[±]digits]`), or NaN when none starts here.
   * Spellings the lexer reads some other way (`.5`, `1.`, a number run into a name) give up.
   * The value equals Number() of the unsigned spelling, negated for `-`, as the parsers compute
   * it: up to 15 significant digits and 22 decimal places it is the digits (an exact integer
   * below 2^53) divided by an exact power of ten, which IEEE division rounds exactly as
   * Number() does; longer spellings and exponents go to Number().
   */
  number(): number {
    this.skipBlank();
    const { text } = this;
    let sign = text.charCodeAt(this.pos);
    if (sign === CH_MINUS || sign === CH_PLUS) {
      this.pos += 1;
      this.skipBlank();
    } else {
      sign = 0;
    }
    const start = this.pos;
    this.numberSign = sign;
    this.numberDigits = start;
    let pos = start;
    let c = text.charCodeAt(pos);
    if (!isDigit(c)) {
      if (sign !== 0) giveUp();
      return Number.NaN;
    }
    let digits = 0;
    let significant = 0;
    let decimals = 0;
    while (isDigit(c)) {
      if (significant > 0 || c !== 48) significant += 1;
      digits = digits * 10 + (c - 48);
      pos += 1;
      c = text.charCodeAt(pos);
    }
    if (c === CH_DOT) {
      pos += 1;
      c = text.charCodeAt(pos);
      if (!isDigit(c)) giveUp();
      while (isDigit(c)) {
        if (significant > 0 || c !== 48) significant += 1;
        digits = digits * 10 + (c - 48);
        decimals += 1;
        pos += 1;
        c = text.charCodeAt(pos);
      }
    }
    let exact = significant <= 15 && decimals <= 22;
    if (c === 101 || c === 69) {
      exact = false;
      pos += 1;
      c = text.charCodeAt(pos);
      if (c === CH_PLUS || c === CH_MINUS) pos += 1;
      if (!isDigit(text.charCodeAt(pos))) giveUp();
      while (isDigit(text.charCodeAt(pos))) pos += 1;
      c = text.charCodeAt(pos);
    }
    if (isIdentifierPart(c) || c === CH_DOT) giveUp();
    this.pos = pos;
    const magnitude = exact ? (decimals === 0 ? digits : digits / (POWERS_OF_TEN[decimals] as number)) : Number(text.slice(start, pos));
    return sign === CH_MINUS ? -magnitude : magnitude;
  }

  /** The spelling of the number just read, as the SQL parser keeps it for a TEXT column: `-` kept, `+` and blanks after a sign dropped. */
  numberText(): string {
    const digits = this.text.slice(this.numberDigits, this.pos);
    return this.numberSign === CH_MINUS ? `-${digits}` : digits;
  }

  /**
   * The end (the position of the `;`, or the end of the text) of the statement starting at the
   * read position, stepping over quoted text and comments; gives up on an unterminated one.
   */
  statementEnd(): number {
    const { text } = this;
    const length = text.length;
    let pos = this.pos;
    while (pos < length) {
      const c = text.charCodeAt(pos);
      if (c === CH.semicolon) return pos;
      if (c === CH_DOUBLE_QUOTE || c === CH_SINGLE_QUOTE || c === CH_BACKQUOTE) {
        pos += 1;
        for (;;) {
          if (pos >= length) giveUp();
          const d = text.charCodeAt(pos);
          if (d === CH_BACKSLASH && c !== CH_BACKQUOTE) {
            pos += 2;
            continue;
          }
          pos += 1;
          if (d === c) {
            // A doubled quote stays inside the string.
            if (text.charCodeAt(pos) === c && c !== CH_BACKQUOTE) {
              pos += 1;
              continue;
            }
            break;
          }
        }
        continue;
      }
      const next = text.charCodeAt(pos + 1);
      if ((this.sql && ((c === CH_MINUS && next === CH_MINUS) || c === CH_HASH)) || (!this.sql && c === CH_SLASH && next === CH_SLASH)) {
        const end = text.indexOf('\n', pos);
        pos = end < 0 ? length : end;
        continue;
      }
      if (c === CH_SLASH && next === CH_STAR) {
        const end = text.indexOf('*/', pos + 2);
        if (end < 0) giveUp();
        pos = end + 2;
        continue;
      }
      pos += 1;
    }
    return length;
  }
}
