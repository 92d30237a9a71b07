/**
 * What the SQL lexers of the PostgreSQL and MySQL connectors have in common: the token shape,
 * quoted runs, and the statement-level views the statement guards take of a token list. The
 * dialects differ only in which characters start what, which stays in each lexer.
 */
export interface LexedToken {
  /** 'word', 'quoted-identifier', 'string', 'comment', 'space', 'other', or a dialect's own kind. */
  kind: string;
  /** The token's text; for quoted identifiers the unquoted name. */
  value: string;
  start: number;
  end: number;
}

/** End of a quoted run; a doubled quote is an escaped quote, and with `backslashEscapes` so is a backslash. */
export function quotedEnd(text: string, start: number, quote: string, backslashEscapes: boolean): number {
  let index = start + 1;
  while (index < text.length) {
    const char = text[index];
    if (backslashEscapes && char === '\\') {
      index += 2;
    } else if (char === quote) {
      if (text[index + 1] === quote) index += 2;
      else return index + 1;
    } else {
      index += 1;
    }
  }
  return text.length;
}

/** Tokens that carry meaning: no whitespace, no comments. */
export function codeTokens<T extends LexedToken>(tokens: T[]): T[] {
  return tokens.filter((token) => token.kind !== 'space' && token.kind !== 'comment');
}

/** Code tokens cut at top-level semicolons; empty statements are dropped. */
export function splitStatements<T extends LexedToken>(tokens: T[]): T[][] {
  const statements: T[][] = [[]];
  for (const token of tokens) {
    if (token.kind === 'other' && token.value === ';') statements.push([]);
    else statements[statements.length - 1]?.push(token);
  }
  return statements.filter((statement) => statement.length > 0);
}

/** The statement's first word, upper-cased, skipping opening parentheses as in `(SELECT 1) UNION …`. */
export function firstKeyword(tokens: LexedToken[]): string | null {
  for (const token of tokens) {
    if (token.kind === 'other' && token.value === '(') continue;
    return token.kind === 'word' ? token.value.toUpperCase() : null;
  }
  return null;
}

/**
 * The first function of `listed` the statement calls (a word or quoted name right before `(`).
 * `nameOf` gives the name as the dialect compares it (case rules differ for quoted names).
 */
export function calledFunction(tokens: LexedToken[], listed: ReadonlySet<string>, nameOf: (token: LexedToken) => string): string | null {
  for (let index = 0; index < tokens.length - 1; index += 1) {
    const token = tokens[index];
    if (token === undefined || tokens[index + 1]?.value !== '(') continue;
    if (token.kind !== 'word' && token.kind !== 'quoted-identifier') continue;
    const name = nameOf(token);
    if (listed.has(name)) return name;
  }
  return null;
}

/** End of the run of characters matching `part` that starts with the (already matched) character at `start`. */
export function runEnd(text: string, start: number, part: RegExp): number {
  let end = start + 1;
  while (end < text.length && part.test(text[end] ?? '')) end += 1;
  return end;
}

/** Characters a number token runs over; numbers may run into letters (1e5, 0x1F), so "e5" never reads as a word. */
export const numberPart = /[0-9A-Za-z_.]/;

/** Replaces each token (in text order) by what `replacement` gives for it; the text between stays. */
export function replaceTokens(text: string, tokens: readonly LexedToken[], replacement: (token: LexedToken) => string): string {
  let rewritten = '';
  let copiedUpTo = 0;
  for (const token of tokens) {
    rewritten += text.slice(copiedUpTo, token.start) + replacement(token);
    copiedUpTo = token.end;
  }
  return rewritten + text.slice(copiedUpTo);
}
