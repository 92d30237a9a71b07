import { WorkbenchError } from '../../contract/errors';

/**
 * SQLite carries out many PRAGMAs while it compiles them (`PRAGMA locking_mode=EXCLUSIVE`
 * changes the pager's lock mode inside sqlite3_prepare, `EXPLAIN PRAGMA …` too), and some
 * of them then still count as read-only statements that return rows. Asking SQLite's
 * compiler for its verdict is therefore too late for them: the text has to be turned away
 * before it is compiled. The rule reads the start of a statement the way SQLite's own
 * tokenizer does (whitespace, non-nesting comments, identifier characters), so no spelling can
 * differ: the first token after whitespace and comments must be SELECT, WITH or VALUES,
 * optionally after EXPLAIN [QUERY PLAN]. Every other statement keyword (PRAGMA, ATTACH, any
 * write) and anything that is not a plain ASCII word (a stray or invisible character) is
 * refused uncompiled. A plain word that starts no SQLite statement (a typo such as SELEC) goes
 * to SQLite, whose parser stops at that first token with its own syntax error. Read-only pragma
 * data stays reachable through the table-valued `pragma_*` functions, which SQLite offers only
 * for pragmas without side effects. SQLite's own verdict (read-only, returns rows) still
 * applies after this check.
 */
const readStarts = new Set(['SELECT', 'WITH', 'VALUES']);

/** Every other keyword that can start an SQLite statement (lang.html's command list). */
const otherStarts = new Set([
  'ALTER', 'ANALYZE', 'ATTACH', 'BEGIN', 'COMMIT', 'CREATE', 'DELETE', 'DETACH', 'DROP', 'END', 'EXPLAIN',
  'INSERT', 'PRAGMA', 'REINDEX', 'RELEASE', 'REPLACE', 'ROLLBACK', 'SAVEPOINT', 'UPDATE', 'VACUUM',
]);

/** SQLite's whitespace (sqlite3Isspace): space, \t, \n, \v, \f, \r. */
const sqliteSpace = /[ \t\n\v\f\r]/;

/** SQLite identifier characters: ASCII letters, digits, `_`, `$` and every byte ≥ 0x80. */
const identifierPart = /[A-Za-z0-9_$\u0080-\uffff]/;

export function checkSqliteStatementStart(text: string): void {
  let position = skipSpaceAndComments(text, 0);
  let word = wordAt(text, position);
  if (word === 'EXPLAIN') {
    position = skipSpaceAndComments(text, position + word.length);
    word = wordAt(text, position);
    if (word === 'QUERY') {
      position = skipSpaceAndComments(text, position + word.length);
      if (wordAt(text, position) !== 'PLAN') throw refusal('EXPLAIN');
      position = skipSpaceAndComments(text, position + 'PLAN'.length);
      word = wordAt(text, position);
    }
  }
  if (readStarts.has(word)) return;
  // Nothing but comments, or a visible punctuation mark where a keyword belongs ("(SELECT 1)",
  // ";"): a mistake, not a write, and said as one; still never compiled.
  if (position >= text.length) throw new WorkbenchError('syntax', 'The query is empty: it holds only comments');
  const first = text.charAt(position);
  if (word === '' && /[!-~]/.test(first)) {
    throw new WorkbenchError('syntax', `SQLite: a query starts with SELECT, WITH or VALUES, not "${first}"`);
  }
  if (otherStarts.has(word) || !/^[A-Z_]+$/.test(word)) throw refusal(word);
}

function refusal(word: string): WorkbenchError {
  const what = /^[A-Z_]+$/.test(word) ? `${word} statements` : 'a statement that does not start with a plain keyword';
  return new WorkbenchError(
    'read-only',
    `Refused: ${what} may not run on a read-only connection; only SELECT, WITH and VALUES queries (optionally after EXPLAIN) run. ` +
      'Pragma values can be read with the table-valued functions, e.g. SELECT * FROM pragma_table_info(\'t\').',
  );
}

/** Index of the first character that is neither SQLite whitespace nor inside a comment. */
function skipSpaceAndComments(text: string, start: number): number {
  let index = start;
  for (;;) {
    if (sqliteSpace.test(text[index] ?? '')) {
      index += 1;
    } else if (text.startsWith('--', index)) {
      const newline = text.indexOf('\n', index);
      if (newline === -1) return text.length;
      index = newline + 1;
    } else if (text.startsWith('/*', index)) {
      // SQLite's block comments do not nest; an unterminated one runs to the end.
      const close = text.indexOf('*/', index + 2);
      if (close === -1) return text.length;
      index = close + 2;
    } else {
      return index;
    }
  }
}

/** The identifier token at `index`, upper-cased, or '' when none starts there. */
function wordAt(text: string, index: number): string {
  let end = index;
  while (end < text.length && identifierPart.test(text[end] ?? '')) end += 1;
  return text.slice(index, end).toUpperCase();
}
