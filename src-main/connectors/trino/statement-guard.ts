import { WorkbenchError } from '../../contract/errors';
import { codeTokens, firstKeyword, replaceTokens, splitStatements, type LexedToken } from '../shared/sql-tokens';
import { lexTrinoSql } from './sql-lexer';

/** Statements that only read. EXPLAIN is one, except EXPLAIN ANALYZE, which runs its statement. */
const readStatements = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN']);
/**
 * Every other word Trino's grammar starts a statement with: refused. A first word in neither list
 * starts no statement, so Trino gets the text and answers with its own syntax error.
 */
const otherStatements = new Set([
  'ALTER', 'ANALYZE', 'CALL', 'COMMENT', 'COMMIT', 'CREATE', 'DEALLOCATE', 'DELETE', 'DENY', 'DROP', 'EXECUTE', 'GRANT',
  'INSERT', 'MERGE', 'PREPARE', 'REFRESH', 'RESET', 'REVOKE', 'ROLLBACK', 'SET', 'START', 'TRUNCATE', 'UPDATE', 'USE',
]);
/** Statements whose result is a query plan Trino can describe (checked against its IO plan). */
const plannedStatements = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);

/** The one statement the connector will run, read by Trino's lexical rules. */
export interface CheckedStatement {
  /** The text as given, without a trailing semicolon (Trino's protocol takes one statement, no `;`). */
  text: string;
  /** True for a query whose IO plan the plan check reads (SELECT, WITH, VALUES, TABLE). */
  planned: boolean;
  /** `$name` placeholders in order of appearance (the same name may repeat). */
  parameters: string[];
  tokens: LexedToken[];
}

/**
 * First layer, before Trino sees the text: exactly one statement, and one that starts like a
 * read. Best effort by nature; the READ ONLY transaction and Trino's access control apply
 * regardless, and the IO plan check reads Trino's own analysis of a query.
 */
export function checkTrinoStatement(text: string): CheckedStatement {
  const tokens = lexTrinoSql(text);
  const statements = splitStatements(codeTokens(tokens));
  if (statements.length === 0) throw new WorkbenchError('syntax', 'Trino: the query is empty');
  if (statements.length > 1) {
    throw new WorkbenchError('read-only', 'Trino: one statement at a time: the query holds more than one (a `;` separates them)');
  }
  const statement = statements[0] ?? [];
  const keyword = firstKeyword(statement);
  if (keyword === null) throw new WorkbenchError('syntax', 'Trino: the query does not start with a statement keyword such as SELECT');
  if (otherStatements.has(keyword)) {
    throw new WorkbenchError(
      'read-only',
      `Trino: ${keyword} statements are not allowed; the connector runs only ${[...readStatements].join(', ')} (not EXPLAIN ANALYZE) statements`,
    );
  }
  if (keyword === 'EXPLAIN') checkExplained(statement);
  return {
    text: withoutTrailingSemicolon(text, tokens),
    planned: plannedStatements.has(keyword),
    parameters: tokens.filter((token) => token.kind === 'parameter').map((token) => token.value.slice(1)),
    tokens,
  };
}

/**
 * EXPLAIN ANALYZE runs the statement it explains; plain EXPLAIN only plans, but a plan of a write
 * is no answer an analysis needs, so the explained statement must be a read too. Options in
 * parentheses (`EXPLAIN (TYPE IO, FORMAT JSON) …`) come before it.
 */
function checkExplained(statement: LexedToken[]): void {
  let index = 1;
  const word = (at: number): string => (statement[at]?.kind === 'word' ? (statement[at]?.value.toUpperCase() ?? '') : '');
  if (word(index) === 'ANALYZE') {
    throw new WorkbenchError('read-only', 'Trino: EXPLAIN ANALYZE runs the statement it explains, so it is not allowed; EXPLAIN alone is');
  }
  if (statement[index]?.value === '(') {
    let depth = 0;
    for (; index < statement.length; index += 1) {
      if (statement[index]?.value === '(') depth += 1;
      if (statement[index]?.value === ')') depth -= 1;
      if (depth === 0) break;
    }
    index += 1;
  }
  const explained = firstKeyword(statement.slice(index));
  if (explained === null || !readStatements.has(explained) || explained === 'EXPLAIN') {
    throw new WorkbenchError('read-only', `Trino: EXPLAIN of ${explained ?? 'this'} is not allowed; EXPLAIN only a SELECT, WITH, VALUES or TABLE query`);
  }
}

function withoutTrailingSemicolon(text: string, tokens: LexedToken[]): string {
  const code = codeTokens(tokens);
  const last = code[code.length - 1];
  return last !== undefined && last.kind === 'other' && last.value === ';' ? text.slice(0, last.start) + text.slice(last.end) : text;
}

/** The statement with each `$name` replaced by what `replacement` gives (`?`, or `NULL` for the plan check). */
export function replaceParameters(statement: CheckedStatement, replacement: (name: string) => string): string {
  const placeholders = lexTrinoSql(statement.text).filter((token) => token.kind === 'parameter');
  return replaceTokens(statement.text, placeholders, (token) => replacement(token.value.slice(1)));
}
