/**
 * A small PostgreSQL lexer: enough to tell code from strings, quoted identifiers and comments,
 * so the statement guard sees the real first keyword and `$name` parameters are found only in
 * code. It does not validate SQL; the server parses the query for real.
 */
import { numberPart, quotedEnd, runEnd, type LexedToken } from '../shared/sql-tokens';

export type SqlTokenKind = 'word' | 'quoted-identifier' | 'string' | 'comment' | 'space' | 'named-param' | 'other';

/** For params `value` is the bare name. */
export interface SqlToken extends LexedToken {
  kind: SqlTokenKind;
  /** For U&"…" identifiers: the text between the quotes, before its escapes are decoded. */
  unicodeBody?: string;
}

/** PostgreSQL's whitespace (scan.l): other Unicode spaces are identifier characters to it. */
const postgresSpace = /[ \t\n\r\f\v]/;
const identifierStart = /[A-Za-z_\u0080-\uffff]/;
const identifierPart = /[A-Za-z0-9_$\u0080-\uffff]/;

export function scanPostgresSql(text: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let index = 0;
  const push = (kind: SqlTokenKind, start: number, end: number, value = text.slice(start, end)): void => {
    tokens.push({ kind, value, start, end });
    index = end;
  };

  while (index < text.length) {
    const char = text[index] ?? '';
    const next = text[index + 1] ?? '';
    const start = index;

    if (postgresSpace.test(char)) {
      push('space', start, runEnd(text, index, postgresSpace));
    } else if (char === '-' && next === '-') {
      // PostgreSQL ends a -- comment at a carriage return as well as a newline.
      const end = /[\r\n]/.exec(text.slice(index))?.index;
      push('comment', start, end === undefined ? text.length : index + end);
    } else if (char === '/' && next === '*') {
      push('comment', start, blockCommentEnd(text, index));
    } else if (char === "'") {
      // E'...' strings honour backslash escapes; the E was lexed as a word just before.
      const previous = tokens[tokens.length - 1];
      const escapes = previous?.kind === 'word' && previous.end === start && /^[eE]$/.test(previous.value);
      push('string', start, quotedEnd(text, index, "'", escapes));
    } else if ((char === 'U' || char === 'u') && next === '&' && text[index + 2] === '"') {
      // U&"…" names an identifier with Unicode escapes (U&"dblink\005fexec" is dblink_exec),
      // optionally followed by UESCAPE 'c' choosing another escape character.
      const end = quotedEnd(text, index + 2, '"', false);
      const body = text.slice(index + 3, end - 1).replace(/""/g, '"');
      push('quoted-identifier', start, end, decodeUnicodeEscapes(body, '\\'));
      (tokens[tokens.length - 1] as SqlToken).unicodeBody = body;
    } else if (char === '"') {
      const end = quotedEnd(text, index, '"', false);
      push('quoted-identifier', start, end, text.slice(start + 1, end - 1).replace(/""/g, '"'));
    } else if (char === '$') {
      const dollarQuote = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(text.slice(index));
      const named = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(index));
      if (dollarQuote !== null) {
        const close = text.indexOf(dollarQuote[0], index + dollarQuote[0].length);
        push('string', start, close === -1 ? text.length : close + dollarQuote[0].length);
      } else if (named?.[1] !== undefined) {
        push('named-param', start, index + named[0].length, named[1]);
      } else {
        push('other', start, index + 1);
      }
    } else if (identifierStart.test(char)) {
      push('word', start, runEnd(text, index, identifierPart));
    } else if (/[0-9]/.test(char)) {
      push('other', start, runEnd(text, index, numberPart));
    } else {
      push('other', start, index + 1);
    }
  }
  applyUescapeClauses(tokens);
  return tokens;
}

/**
 * `U&"…" UESCAPE 'c'` (comments and spaces allowed between, as PostgreSQL's lexer allows):
 * the identifier is decoded again with `c` as its escape character, and the clause becomes
 * blank so the identifier is what a following `(` is read against.
 */
function applyUescapeClauses(tokens: SqlToken[]): void {
  const codeIndexes = tokens.flatMap((token, index) => (token.kind === 'space' || token.kind === 'comment' ? [] : [index]));
  for (let position = 0; position < codeIndexes.length - 2; position += 1) {
    const identifier = tokens[codeIndexes[position] ?? -1];
    const keyword = tokens[codeIndexes[position + 1] ?? -1];
    const escape = tokens[codeIndexes[position + 2] ?? -1];
    if (identifier?.unicodeBody === undefined || keyword?.kind !== 'word' || keyword.value.toUpperCase() !== 'UESCAPE') continue;
    if (escape?.kind !== 'string' || escape.value.length !== 3) continue;
    identifier.value = decodeUnicodeEscapes(identifier.unicodeBody, escape.value[1] ?? '\\');
    keyword.kind = 'space';
    escape.kind = 'space';
  }
}

/**
 * The name a U&"…" identifier stands for: `<e>XXXX` (4 hex digits) and `<e>+XXXXXX` (6) are
 * code points, `<e><e>` is the escape character itself, as PostgreSQL reads them. An escape
 * PostgreSQL would reject is kept as written; the server then refuses the text anyway.
 */
function decodeUnicodeEscapes(body: string, escape: string): string {
  let name = '';
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index] ?? '';
    if (char !== escape) {
      name += char;
      continue;
    }
    if (body[index + 1] === escape) {
      name += escape;
      index += 1;
      continue;
    }
    const long = body[index + 1] === '+';
    const digits = body.slice(index + (long ? 2 : 1), index + (long ? 8 : 5));
    if (!/^[0-9A-Fa-f]+$/.test(digits) || digits.length !== (long ? 6 : 4)) {
      name += char;
      continue;
    }
    const code = Number.parseInt(digits, 16);
    name += code <= 0x10ffff ? String.fromCodePoint(code) : '';
    index += long ? 7 : 4;
  }
  return name;
}

/** PostgreSQL block comments nest. An unterminated comment runs to the end of the text. */
function blockCommentEnd(text: string, start: number): number {
  let depth = 0;
  let index = start;
  while (index < text.length) {
    if (text.startsWith('/*', index)) {
      depth += 1;
      index += 2;
    } else if (text.startsWith('*/', index)) {
      depth -= 1;
      index += 2;
      if (depth === 0) return index;
    } else {
      index += 1;
    }
  }
  return text.length;
}
