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

const PUNCTUATION = new Set(['(', ')', ',', ';', '{', '}', '[', ']', ':', '-', '+', '>', '<', '=', '.', '*', '|']);

function isIdentifierStart(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch === '_' || ch === '$';
}

function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9';
}

function isIdentifierPart(ch: string): boolean {
  return isIdentifierStart(ch) || isDigit(ch);
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

export function tokenize(text: string, source: string, dialect: LexerDialect): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  let line = 1;
  let lineStart = 0;

  const fail = (atPos: number, atLine: number, atLineStart: number, detail: string): never => {
    throw new DumpParseError(source, atLine, atPos - atLineStart + 1, detail);
  };

  const push = (kind: TokenKind, tokenText: string, start: number, startLine: number, startLineStart: number, extra: Partial<Token> = {}): void => {
    tokens.push({
      kind,
      text: tokenText,
      numberValue: Number.NaN,
      quoted: false,
      line: startLine,
      column: start - startLineStart + 1,
      ...extra,
    });
  };

  while (pos < text.length) {
    const ch = text[pos] as string;
    if (ch === '\n') {
      pos += 1;
      line += 1;
      lineStart = pos;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\f' || ch === '\v' || ch === '\ufeff') {
      pos += 1;
      continue;
    }
    const next = text[pos + 1] ?? '';
    const lineComment = dialect === 'sql' ? (ch === '-' && next === '-') || ch === '#' : ch === '/' && next === '/';
    if (lineComment) {
      while (pos < text.length && text[pos] !== '\n') pos += 1;
      continue;
    }
    if (ch === '/' && next === '*') {
      const startPos = pos;
      const startLine = line;
      const startLineStart = lineStart;
      pos += 2;
      while (pos < text.length && !(text[pos] === '*' && text[pos + 1] === '/')) {
        if (text[pos] === '\n') {
          line += 1;
          lineStart = pos + 1;
        }
        pos += 1;
      }
      if (pos >= text.length) fail(startPos, startLine, startLineStart, 'unterminated /* comment');
      pos += 2;
      continue;
    }
    const start = pos;
    const startLine = line;
    const startLineStart = lineStart;
    if (ch === '"' || ch === "'") {
      pos += 1;
      let value = '';
      let closed = false;
      while (pos < text.length) {
        const c = text[pos] as string;
        if (c === ch) {
          // SQL writes a quote inside a string by doubling it.
          if (text[pos + 1] === ch) {
            value += ch;
            pos += 2;
            continue;
          }
          pos += 1;
          closed = true;
          break;
        }
        if (c === '\\') {
          const e = text[pos + 1];
          if (e === undefined) break;
          if (e === 'u' && dialect === 'cypher') {
            const hex = text.slice(pos + 2, pos + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(pos, line, lineStart, `invalid unicode escape \\u${hex}`);
            value += String.fromCharCode(parseInt(hex, 16));
            pos += 6;
            continue;
          }
          const simple = SIMPLE_ESCAPES[e];
          // MySQL keeps the backslash of unknown escapes such as \% and \_ (LIKE wildcards).
          value += simple ?? `\\${e}`;
          if (e === '\n') {
            line += 1;
            lineStart = pos + 2;
          }
          pos += 2;
          continue;
        }
        if (c === '\n') {
          line += 1;
          lineStart = pos + 1;
        }
        value += c;
        pos += 1;
      }
      if (!closed) fail(start, startLine, startLineStart, `unterminated string starting with ${ch}`);
      push('string', value, start, startLine, startLineStart);
      continue;
    }
    if (ch === '`') {
      const close = text.indexOf('`', pos + 1);
      if (close < 0) fail(start, startLine, startLineStart, 'unterminated back-quoted identifier');
      const name = text.slice(pos + 1, close);
      if (name.includes('\n')) fail(start, startLine, startLineStart, 'back-quoted identifier spans lines');
      pos = close + 1;
      push('identifier', name, start, startLine, startLineStart, { quoted: true });
      continue;
    }
    if (isDigit(ch) || (ch === '.' && isDigit(next))) {
      while (pos < text.length && isDigit(text[pos] as string)) pos += 1;
      if (text[pos] === '.' && isDigit(text[pos + 1] ?? '')) {
        pos += 1;
        while (pos < text.length && isDigit(text[pos] as string)) pos += 1;
      } else if (text[pos] === '.' && !isIdentifierStart(text[pos + 1] ?? '')) {
        // "1." is a valid float literal in both MySQL and Python-generated dumps.
        pos += 1;
      }
      if (text[pos] === 'e' || text[pos] === 'E') {
        let expPos = pos + 1;
        if (text[expPos] === '+' || text[expPos] === '-') expPos += 1;
        if (!isDigit(text[expPos] ?? '')) fail(pos, line, lineStart, `malformed exponent in number ${text.slice(start, expPos + 1)}`);
        pos = expPos;
        while (pos < text.length && isDigit(text[pos] as string)) pos += 1;
      }
      if (isIdentifierStart(text[pos] ?? '')) fail(start, startLine, startLineStart, `malformed number ${text.slice(start, pos + 1)}`);
      const numberText = text.slice(start, pos);
      push('number', numberText, start, startLine, startLineStart, { numberValue: Number(numberText) });
      continue;
    }
    if (isIdentifierStart(ch)) {
      while (pos < text.length && isIdentifierPart(text[pos] as string)) pos += 1;
      push('identifier', text.slice(start, pos), start, startLine, startLineStart);
      continue;
    }
    if (PUNCTUATION.has(ch)) {
      pos += 1;
      push('punct', ch, start, startLine, startLineStart);
      continue;
    }
    fail(pos, line, lineStart, `unexpected character ${JSON.stringify(ch)}`);
  }
  push('eof', '', pos, line, lineStart);
  return tokens;
}

/** Cursor over a token list with the expect/accept helpers both parsers need. */
export class TokenCursor {
  private index = 0;

  constructor(
    private readonly tokens: Token[],
    readonly source: string,
  ) {}

  peek(offset = 0): Token {
    const token = this.tokens[Math.min(this.index + offset, this.tokens.length - 1)];
    if (token === undefined) throw new Error('token list must end with an eof token');
    return token;
  }

  next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.index += 1;
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
    return token.kind === 'identifier' && !token.quoted && token.text.toUpperCase() === word;
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
