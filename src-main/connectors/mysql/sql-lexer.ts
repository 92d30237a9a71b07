/**
 * A small MySQL/MariaDB lexer: enough to tell code from strings, quoted identifiers and
 * comments, so the statement guard sees real keywords. MySQL runs the inside of `/*! … *\/`
 * and MariaDB of `/*M! … *\/` comments as code, so their contents are lexed as code here too:
 * a comment cannot smuggle `INTO OUTFILE` past the guard.
 */
import { numberPart, quotedEnd, runEnd, type LexedToken } from '../shared/sql-tokens';

export type SqlTokenKind = 'word' | 'quoted-identifier' | 'string' | 'comment' | 'space' | 'other';

export interface SqlToken extends LexedToken {
  kind: SqlTokenKind;
}

const wordStart = /[A-Za-z_$\u0080-\uffff]/;
const wordPart = /[A-Za-z0-9_$\u0080-\uffff]/;

export function scanMysqlSql(text: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let index = 0;
  let inExecutableComment = false;
  const push = (kind: SqlTokenKind, start: number, end: number, value = text.slice(start, end)): void => {
    tokens.push({ kind, value, start, end });
    index = end;
  };

  while (index < text.length) {
    const char = text[index] ?? '';
    const next = text[index + 1] ?? '';
    const start = index;

    if (/\s/.test(char)) {
      push('space', start, runEnd(text, index, /\s/));
    } else if (inExecutableComment && char === '*' && next === '/') {
      inExecutableComment = false;
      push('space', start, index + 2);
    } else if (char === '/' && next === '*') {
      const executable = /^\/\*M?!\d{0,6}/.exec(text.slice(index));
      if (executable !== null && !inExecutableComment) {
        inExecutableComment = true;
        push('space', start, index + executable[0].length);
      } else {
        const close = text.indexOf('*/', index + 2);
        push('comment', start, close === -1 ? text.length : close + 2);
      }
    } else if (char === '#' || (char === '-' && next === '-' && startsDashComment(text[index + 2]))) {
      // "-- " starts a comment only when followed by whitespace or a control character.
      const newline = text.indexOf('\n', index);
      push('comment', start, newline === -1 ? text.length : newline + 1);
    } else if (char === "'" || char === '"') {
      push('string', start, quotedEnd(text, index, char, true));
    } else if (char === '`') {
      const end = quotedEnd(text, index, '`', false);
      push('quoted-identifier', start, end, text.slice(start + 1, end - 1).replace(/``/g, '`'));
    } else if (/[0-9]/.test(char)) {
      push('other', start, runEnd(text, index, numberPart));
    } else if (wordStart.test(char)) {
      push('word', start, runEnd(text, index, wordPart));
    } else {
      push('other', start, index + 1);
    }
  }
  return tokens;
}

/** "--" starts a comment only when followed by whitespace, a control character or the end. */
function startsDashComment(after: string | undefined): boolean {
  return after === undefined || after.charCodeAt(0) <= 0x20;
}
