import { WorkbenchError } from '../../contract/errors';

/** Clauses a LadybugDB read query can start with. */
const queryStarts = new Set(['MATCH', 'OPTIONAL', 'RETURN', 'WITH', 'UNWIND', 'CALL']);

/** Whitespace every Cypher reader agrees on. Anything else before the first word is refused. */
const asciiSpace = /[ \t\n\r\v\f]/;

/**
 * First protection layer, before LadybugDB sees the text. Kùzu carried out some statements while
 * it merely prepared them (preparing `EXPORT DATABASE` created the target directory); LadybugDB
 * 0.19 no longer does so on a read-only database, but the planner's verdict (plan-check.ts) is
 * still only asked of text already known to be a query.
 * The rule is an allow-list: the first word must be one of the query clauses above
 * (optionally after EXPLAIN or PROFILE), and the text before it may hold only ASCII
 * whitespace and comments that every reading agrees on. Anything a reader could take two
 * ways is refused rather than guessed at: a non-ASCII character before the first word (LadybugDB's
 * parser skips U+180E, U+00A0 and the other Unicode spaces; the Node runtime's `\s` does not), a
 * block comment holding `/*` (nesting), a line comment holding a lone carriage return, an
 * unterminated comment, or a first word that is not a query clause.
 */
export function checkLadybugStatement(text: string): void {
  let reading = firstWord(text, 0);
  if (reading.word === 'EXPLAIN' || reading.word === 'PROFILE') reading = firstWord(text, reading.end);
  if (queryStarts.has(reading.word)) return;
  const found = reading.word === '' ? 'no clause' : reading.word;
  throw new WorkbenchError(
    'read-only',
    `LadybugDB: only queries starting with ${[...queryStarts].join(', ')} run (optionally after EXPLAIN or PROFILE); this one starts with ${found}`,
  );
}

/** The upper-cased word after the whitespace and comments from `start`, and where it ends. */
function firstWord(text: string, start: number): { word: string; end: number } {
  const index = skipSpaceAndComments(text, start);
  const char = text[index] ?? '';
  if (char !== '' && char.charCodeAt(0) > 0x7e) {
    const code = (char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    throw new WorkbenchError(
      'read-only',
      `LadybugDB: the query has an invisible or non-ASCII character (U+${code}) before its first word; remove it and start with MATCH, RETURN, WITH, UNWIND or CALL`,
    );
  }
  const word = /^[A-Za-z_]+/.exec(text.slice(index))?.[0] ?? '';
  return { word: word.toUpperCase(), end: index + word.length };
}

function skipSpaceAndComments(text: string, start: number): number {
  let index = start;
  for (;;) {
    if (asciiSpace.test(text[index] ?? '')) {
      index += 1;
    } else if (text.startsWith('//', index)) {
      const newline = text.indexOf('\n', index);
      const end = newline === -1 ? text.length : newline;
      if (/\r(?!$)/.test(text.slice(index, end))) throw ambiguous('a line comment holds a carriage return that does not end the line');
      index = newline === -1 ? text.length : newline + 1;
    } else if (text.startsWith('/*', index)) {
      const close = text.indexOf('*/', index + 2);
      if (close === -1) throw ambiguous('a block comment is not closed');
      if (text.slice(index + 2, close).includes('/*')) throw ambiguous('a block comment holds "/*" (nested comments are read differently by different readers)');
      index = close + 2;
    } else {
      return index;
    }
  }
}

function ambiguous(why: string): WorkbenchError {
  return new WorkbenchError('read-only', `LadybugDB: the start of the query is ambiguous (${why}); remove the comment`);
}
