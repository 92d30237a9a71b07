import { numberPart, quotedEnd, runEnd, type LexedToken } from '../shared/sql-tokens';

/**
 * Tokens of Trino SQL as Trino's own grammar reads them: '…' strings (a doubled quote escapes,
 * never a backslash; U&'…' and X'…' are a prefix word then a string), "…" identifiers, -- comments
 * ending at a carriage return or a newline (Trino's SIMPLE_COMMENT rule), non-nested block
 * comments, and `$name` placeholders of the workbench's named parameters.
 */
export function lexTrinoSql(text: string): LexedToken[] {
  const tokens: LexedToken[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index] ?? '';
    const next = text[index + 1] ?? '';
    let kind: string;
    let end: number;
    if (/\s/.test(char)) {
      kind = 'space';
      end = runEnd(text, index, /\s/);
    } else if (char === '-' && next === '-') {
      kind = 'comment';
      end = index + 2;
      while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end += 1;
    } else if (char === '/' && next === '*') {
      kind = 'comment';
      const close = text.indexOf('*/', index + 2);
      end = close === -1 ? text.length : close + 2;
    } else if (char === "'") {
      kind = 'string';
      end = quotedEnd(text, index, "'", false);
    } else if (char === '"') {
      kind = 'quoted-identifier';
      end = quotedEnd(text, index, '"', false);
      tokens.push({ kind, value: text.slice(index + 1, end - 1).replaceAll('""', '"'), start: index, end });
      index = end;
      continue;
    } else if (char === '$' && /[A-Za-z_]/.test(next)) {
      kind = 'parameter';
      end = runEnd(text, index + 1, /[A-Za-z0-9_]/);
    } else if (/[A-Za-z_]/.test(char)) {
      kind = 'word';
      end = runEnd(text, index, /[A-Za-z0-9_@:]/);
    } else if (/[0-9.]/.test(char) && (char !== '.' || /[0-9]/.test(next))) {
      kind = 'number';
      end = runEnd(text, index, numberPart);
    } else {
      kind = 'other';
      end = index + 1;
    }
    tokens.push({ kind, value: text.slice(index, end), start: index, end });
    index = end;
  }
  return tokens;
}
