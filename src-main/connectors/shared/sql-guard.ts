import { WorkbenchError } from '../../contract/errors';
import { calledFunction, codeTokens, firstKeyword, splitStatements, type LexedToken } from './sql-tokens';

/** What one SQL dialect lets through its statement guard. */
export interface SqlGuardRule<T extends LexedToken> {
  engine: string;
  /** Statement kinds that only read. */
  readStatements: ReadonlySet<string>;
  /**
   * Every other word that starts a statement of the dialect: refused. A first word in neither
   * list cannot start a statement, so it goes to the server for its own syntax error.
   */
  otherStatements: ReadonlySet<string>;
  /** Functions with effects a read-only transaction does not undo. */
  sideEffectFunctions: ReadonlySet<string>;
  /** A called function's name as the dialect compares it (case folding rules differ). */
  functionName(token: LexedToken): string;
  /** A dialect's own refusal of one statement, as a message, or null. */
  refuse?(statement: T[]): string | null;
}

/**
 * First protection layer of the SQL server connectors, before the server sees the text: every
 * statement must start like a read and call no side-effect function. Best effort by nature;
 * the server-side layers (read-only session and transaction) apply regardless.
 */
export function guardSqlText<T extends LexedToken>(tokens: T[], rule: SqlGuardRule<T>): void {
  const statements = splitStatements(codeTokens(tokens));
  if (statements.length === 0) throw new WorkbenchError('syntax', `${rule.engine}: the query is empty`);
  for (const statement of statements) {
    const keyword = firstKeyword(statement);
    if (keyword !== null && rule.otherStatements.has(keyword)) {
      throw new WorkbenchError(
        'read-only',
        `${rule.engine}: ${keyword} statements are not allowed; the connector runs only ${[...rule.readStatements].join(', ')} statements`,
      );
    }
    const refusal = rule.refuse?.(statement) ?? null;
    if (refusal !== null) throw new WorkbenchError('read-only', `${rule.engine}: ${refusal}`);
    const forbidden = calledFunction(statement, rule.sideEffectFunctions, rule.functionName);
    if (forbidden !== null) {
      throw new WorkbenchError('read-only', `${rule.engine}: ${forbidden}() is not allowed: it has effects outside the read-only transaction`);
    }
  }
}
