/**
 * A small lexer shared by the SQL and Cypher dump parsers. Both languages agree on the
 * shapes that matter for dumps (identifiers, quoted strings, numbers, single-character
 * punctuation); they differ only in comment syntax, which the dialect selects.
 *
 * Signs are never folded into numbers: in Cypher `-` starts a relationship arrow, so the
 * parsers treat a leading `-`/`+` as a unary operator instead.
 */

export type TokenKind = 'identifier' | 'string' | 'number' | 'punct' | 'eof';

export interface Token {
  kind: TokenKind;
  /** Source text for identifiers/punctuation/numbers; decoded contents for strings. */
  text: string;
  /** Parsed value of a number token (NaN for other kinds). */
  numberValue: number;
  /** True for a back-quoted identifier, which must never be read as a keyword. */
  quoted: boolean;
  line: number;
  column: number;
}

export type LexerDialect = 'sql' | 'cypher';

/** A parse failure that knows where it happened, so messages can point at the dump line. */
export class DumpParseError extends Error {
  override readonly name = 'DumpParseError';
  readonly source: string;
  readonly line: number;
  readonly column: number;

  constructor(source: string, line: number, column: number, detail: string) {
    super(`${source}:${line}:${column}: ${detail}`);
    this.source = source;
    this.line = line;
    this.column = column;
  }
}

/** Single-character punctuation both dialects use, by char code. */
const PUNCTUATION = new Uint8Array(128);
/** The one-character string of each punctuation code, so a token shares it instead of allocating. */
const PUNCTUATION_TEXT: string[] = [];
for (const ch of '(),;{}[]:-+><=.*|') {
  PUNCTUATION[ch.charCodeAt(0)] = 1;
  PUNCTUATION_TEXT[ch.charCodeAt(0)] = ch;
}

/** ASCII classes for the lexer's dispatch: identifier parts are digits and identifier starts. */
const CLASS_OTHER = 0;
const CLASS_DIGIT = 1;
const CLASS_IDENTIFIER = 2;
const CHAR_CLASS = new Uint8Array(128).fill(CLASS_OTHER);
for (let c = 48; c <= 57; c += 1) CHAR_CLASS[c] = CLASS_DIGIT;
for (let c = 65; c <= 90; c += 1) CHAR_CLASS[c] = CLASS_IDENTIFIER;
for (let c = 97; c <= 122; c += 1) CHAR_CLASS[c] = CLASS_IDENTIFIER;
CHAR_CLASS[95] = CLASS_IDENTIFIER; // _
CHAR_CLASS[36] = CLASS_IDENTIFIER; // $

const CH_TAB = 9;
const CH_NEWLINE = 10;
const CH_VTAB = 11;
const CH_FORMFEED = 12;
const CH_RETURN = 13;
const CH_SPACE = 32;
const CH_HASH = 35;
const CH_DOLLAR = 36;
const CH_DOUBLE_QUOTE = 34;
const CH_SINGLE_QUOTE = 39;
const CH_STAR = 42;
const CH_PLUS = 43;
const CH_MINUS = 45;
const CH_DOT = 46;
const CH_SLASH = 47;
const CH_BACKSLASH = 92;
const CH_UNDERSCORE = 95;
const CH_BACKQUOTE = 96;
const CH_BOM = 0xfeff;

function isIdentifierStartCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === CH_UNDERSCORE || c === CH_DOLLAR;
}

function isDigitCode(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Escapes understood inside quoted strings (MySQL and Cypher share these). */
const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  '0': '\0',
  Z: '\x1a',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '`': '`',
};

export function describeToken(token: Token): string {
  switch (token.kind) {
    case 'eof':
      return 'end of input';
    case 'string':
      return `string ${JSON.stringify(token.text.length > 40 ? `${token.text.slice(0, 40)}…` : token.text)}`;
    case 'number':
      return `number ${token.text}`;
    case 'identifier':
      return token.quoted ? `identifier \`${token.text}\`` : `'${token.text}'`;
    case 'punct':
      return `'${token.text}'`;
  }
}

/**
 * Produces tokens one at a time, so a dump is never held as a token array (the dumps have
 * hundreds of thousands of tokens; keeping them all was most of the parse time, in GC).
 * Scans char codes; strings without escapes are one slice of the text.
 */
export class DumpLexer {
  private pos = 0;
  private line = 1;
  private lineStart = 0;
  private done = false;

  constructor(
    private readonly text: string,
    private readonly source: string,
    private readonly dialect: LexerDialect,
  ) {}

  private fail(atPos: number, atLine: number, atLineStart: number, detail: string): never {
    throw new DumpParseError(this.source, atLine, atPos - atLineStart + 1, detail);
  }

  private token(kind: TokenKind, text: string, start: number, line: number, lineStart: number, numberValue: number, quoted: boolean): Token {
    return { kind, text, numberValue, quoted, line, column: start - lineStart + 1 };
  }

  /** The next token; after the end of input, an eof token every time. */
  next(): Token {
    const { text } = this;
    const length = text.length;
    const sql = this.dialect === 'sql';
    // Position in a local while skipping blanks: most of a dump's characters are blanks and
    // this loop runs before the code is optimized, so each step should be few operations.
    let pos = this.pos;
    while (pos < length) {
      const c = text.charCodeAt(pos);
      if (c === CH_SPACE) {
        pos += 1;
        continue;
      }
      if (c === CH_NEWLINE) {
        pos += 1;
        this.line += 1;
        this.lineStart = pos;
        continue;
      }
      if (c === CH_TAB || c === CH_RETURN || c === CH_FORMFEED || c === CH_VTAB || c === CH_BOM) {
        pos += 1;
        continue;
      }
      this.pos = pos;
      if (c === CH_MINUS || c === CH_HASH || c === CH_SLASH) {
        const next = pos + 1 < length ? text.charCodeAt(pos + 1) : -1;
        const lineComment = sql ? (c === CH_MINUS && next === CH_MINUS) || c === CH_HASH : c === CH_SLASH && next === CH_SLASH;
        if (lineComment) {
          const end = text.indexOf('\n', pos);
          pos = end < 0 ? length : end;
          continue;
        }
        if (c === CH_SLASH && next === CH_STAR) {
          this.skipBlockComment();
          pos = this.pos;
          continue;
        }
      }
      const start = pos;
      const startLine = this.line;
      const startLineStart = this.lineStart;
      if (c < 128) {
        const kind = CHAR_CLASS[c] as number;
        if (kind === CLASS_IDENTIFIER) {
          pos = start + 1;
          while (pos < length) {
            const d = text.charCodeAt(pos);
            if (d >= 128 || (CHAR_CLASS[d] as number) < CLASS_DIGIT) break;
            pos += 1;
          }
          this.pos = pos;
          return this.token('identifier', text.slice(start, pos), start, startLine, startLineStart, Number.NaN, false);
        }
        if (kind === CLASS_DIGIT || (c === CH_DOT && pos + 1 < length && isDigitCode(text.charCodeAt(pos + 1)))) {
          const numberText = this.readNumber();
          return this.token('number', numberText, start, startLine, startLineStart, Number(numberText), false);
        }
        if (c === CH_DOUBLE_QUOTE || c === CH_SINGLE_QUOTE) return this.token('string', this.readString(c), start, startLine, startLineStart, Number.NaN, false);
        if (c === CH_BACKQUOTE) {
          const close = text.indexOf('`', start + 1);
          if (close < 0) this.fail(start, startLine, startLineStart, 'unterminated back-quoted identifier');
          const name = text.slice(start + 1, close);
          if (name.includes('\n')) this.fail(start, startLine, startLineStart, 'back-quoted identifier spans lines');
          this.pos = close + 1;
          return this.token('identifier', name, start, startLine, startLineStart, Number.NaN, true);
        }
        if (PUNCTUATION[c] === 1) {
          this.pos = pos + 1;
          return this.token('punct', PUNCTUATION_TEXT[c] as string, start, startLine, startLineStart, Number.NaN, false);
        }
      }
      this.fail(pos, this.line, this.lineStart, `unexpected character ${JSON.stringify(String.fromCodePoint(text.codePointAt(pos) as number))}`);
    }
    this.pos = pos;
    this.done = true;
    return this.token('eof', '', pos, this.line, this.lineStart, Number.NaN, false);
  }

  /** True once the eof token has been produced. */
  get finished(): boolean {
    return this.done;
  }

  private skipBlockComment(): void {
    const { text } = this;
    const startPos = this.pos;
    const startLine = this.line;
    const startLineStart = this.lineStart;
    const end = text.indexOf('*/', this.pos + 2);
    if (end < 0) this.fail(startPos, startLine, startLineStart, 'unterminated /* comment');
    for (let newline = text.indexOf('\n', this.pos); newline >= 0 && newline < end; newline = text.indexOf('\n', newline + 1)) {
      this.line += 1;
      this.lineStart = newline + 1;
    }
    this.pos = end + 2;
  }

  /** A quoted string starting at this.pos; returns its decoded contents. */
  private readString(quote: number): string {
    const { text } = this;
    const length = text.length;
    const start = this.pos;
    const startLine = this.line;
    const startLineStart = this.lineStart;
    // Fast path: no escape, no doubled quote, no newline before the closing quote.
    let pos = start + 1;
    while (pos < length) {
      const c = text.charCodeAt(pos);
      if (c === quote || c === CH_BACKSLASH || c === CH_NEWLINE) break;
      pos += 1;
    }
    if (pos < length && text.charCodeAt(pos) === quote && text.charCodeAt(pos + 1) !== quote) {
      this.pos = pos + 1;
      return text.slice(start + 1, pos);
    }
    // General path, from the first special character on.
    const quoteChar = String.fromCharCode(quote);
    const parts: string[] = [text.slice(start + 1, pos)];
    let closed = false;
    while (pos < length) {
      const c = text.charCodeAt(pos);
      if (c === quote) {
        // SQL writes a quote inside a string by doubling it.
        if (text.charCodeAt(pos + 1) === quote) {
          parts.push(quoteChar);
          pos += 2;
          continue;
        }
        pos += 1;
        closed = true;
        break;
      }
      if (c === CH_BACKSLASH) {
        const e = text[pos + 1];
        if (e === undefined) break;
        if (e === 'u' && this.dialect === 'cypher') {
          const hex = text.slice(pos + 2, pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail(pos, this.line, this.lineStart, `invalid unicode escape \\u${hex}`);
          parts.push(String.fromCharCode(parseInt(hex, 16)));
          pos += 6;
          continue;
        }
        const simple = SIMPLE_ESCAPES[e];
        // MySQL keeps the backslash of unknown escapes such as \% and \_ (LIKE wildcards).
        parts.push(simple ?? `\\${e}`);
        if (e === '\n') {
          this.line += 1;
          this.lineStart = pos + 2;
        }
        pos += 2;
        continue;
      }
      if (c === CH_NEWLINE) {
        this.line += 1;
        this.lineStart = pos + 1;
      }
      parts.push(text[pos] as string);
      pos += 1;
    }
    if (!closed) this.fail(start, startLine, startLineStart, `unterminated string starting with ${quoteChar}`);
    this.pos = pos;
    return parts.join('');
  }

  /** A number starting at this.pos (no sign: see the file comment); returns its source text. */
  private readNumber(): string {
    const { text } = this;
    const length = text.length;
    const start = this.pos;
    let pos = start;
    while (pos < length && isDigitCode(text.charCodeAt(pos))) pos += 1;
    const afterDigits = pos < length ? text.charCodeAt(pos) : -1;
    const following = pos + 1 < length ? text.charCodeAt(pos + 1) : -1;
    if (afterDigits === CH_DOT && isDigitCode(following)) {
      pos += 1;
      while (pos < length && isDigitCode(text.charCodeAt(pos))) pos += 1;
    } else if (afterDigits === CH_DOT && !isIdentifierStartCode(following)) {
      // "1." is a valid float literal in both MySQL and Python-generated dumps.
      pos += 1;
    }
    let c = pos < length ? text.charCodeAt(pos) : -1;
    if (c === 101 || c === 69) {
      let expPos = pos + 1;
      const sign = expPos < length ? text.charCodeAt(expPos) : -1;
      if (sign === CH_PLUS || sign === CH_MINUS) expPos += 1;
      if (!(expPos < length && isDigitCode(text.charCodeAt(expPos)))) this.fail(pos, this.line, this.lineStart, `malformed exponent in number ${text.slice(start, expPos + 1)}`);
      pos = expPos;
      while (pos < length && isDigitCode(text.charCodeAt(pos))) pos += 1;
      c = pos < length ? text.charCodeAt(pos) : -1;
    }
    if (isIdentifierStartCode(c)) this.fail(start, this.line, this.lineStart, `malformed number ${text.slice(start, pos + 1)}`);
    this.pos = pos;
    return text.slice(start, pos);
  }
}

/** Every token of `text`, ending with eof (the parsers stream tokens through TokenCursor instead). */
export function tokenize(text: string, source: string, dialect: LexerDialect): Token[] {
  const lexer = new DumpLexer(text, source, dialect);
  const tokens: Token[] = [];
  for (;;) {
    const token = lexer.next();
    tokens.push(token);
    if (token.kind === 'eof') return tokens;
  }
}

/**
 * Cursor over a dump's tokens with the expect/accept helpers both parsers need. Tokens are
 * pulled from the lexer as the parser advances; only the lookahead and the previous token
 * are kept.
 */
export class TokenCursor {
  private readonly lexer: DumpLexer;
  private current: Token;
  /** Tokens after `current`, pulled only when a parser looks further ahead. */
  private readonly ahead: Token[] = [];
  private previous: Token | null = null;

  constructor(text: string, dialect: LexerDialect, readonly source: string) {
    this.lexer = new DumpLexer(text, source, dialect);
    this.current = this.lexer.next();
  }

  /** The current token (offset 0), a later one (offset > 0), or the one just consumed (offset -1). */
  peek(offset = 0): Token {
    if (offset === 0) return this.current;
    if (offset < 0) {
      if (this.previous === null) throw new Error('no token before the first one');
      return this.previous;
    }
    // Past the end the lexer keeps answering eof.
    while (this.ahead.length < offset) this.ahead.push(this.lexer.next());
    return this.ahead[offset - 1] as Token;
  }

  next(): Token {
    const token = this.current;
    if (token.kind !== 'eof') {
      this.previous = token;
      this.current = this.ahead.length > 0 ? (this.ahead.shift() as Token) : this.lexer.next();
    }
    return token;
  }

  atEnd(): boolean {
    return this.peek().kind === 'eof';
  }

  error(token: Token, detail: string): DumpParseError {
    return new DumpParseError(this.source, token.line, token.column, detail);
  }

  expected(what: string, token: Token = this.peek()): DumpParseError {
    return this.error(token, `expected ${what}, found ${describeToken(token)}`);
  }

  isPunct(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'punct' && token.text === text;
  }

  /** Keywords are case-insensitive and never back-quoted. */
  isKeyword(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    if (token.kind !== 'identifier' || token.quoted || token.text.length !== word.length) return false;
    return token.text === word || token.text.toUpperCase() === word;
  }

  acceptPunct(text: string): boolean {
    if (!this.isPunct(text)) return false;
    this.next();
    return true;
  }

  acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.next();
    return true;
  }

  expectPunct(text: string, context: string): Token {
    if (!this.isPunct(text)) throw this.expected(`'${text}' ${context}`);
    return this.next();
  }

  expectKeyword(word: string, context: string): Token {
    if (!this.isKeyword(word)) throw this.expected(`${word} ${context}`);
    return this.next();
  }

  expectIdentifier(what: string): Token {
    const token = this.peek();
    if (token.kind !== 'identifier') throw this.expected(what);
    return this.next();
  }
}
