import { StatementType, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';

import { WorkbenchError } from '../../contract/errors';

/**
 * Second protection layer, decided by DuckDB's own parser: the text must be exactly one
 * statement, of type SELECT (which covers FROM-first queries, DESCRIBE, SUMMARIZE, SHOW,
 * PIVOT subqueries) or EXPLAIN of a SELECT. This matters because a READ_ONLY database with
 * external access off still lets `COPY … TO` overwrite the database's own file.
 */
export async function prepareReadStatement(connection: DuckDBConnection, text: string): Promise<DuckDBPreparedStatement> {
  const extracted = await connection.extractStatements(text);
  if (extracted.count === 0) throw new WorkbenchError('syntax', 'DuckDB: the query is empty');
  if (extracted.count > 1) {
    throw new WorkbenchError('read-only', `DuckDB: only one statement per query is allowed (got ${extracted.count})`);
  }
  const prepared = await extracted.prepare(0);
  const type = prepared.statementType;
  if (type === StatementType.SELECT) return prepared;
  if (type === StatementType.EXPLAIN) {
    await requireExplainedSelect(connection, text);
    return prepared;
  }
  prepared.destroySync();
  throw new WorkbenchError('read-only', `DuckDB: ${statementTypeName(type)} statements are not allowed; only SELECT (and EXPLAIN of a SELECT) runs`);
}

/**
 * EXPLAIN ANALYZE executes its statement, so the explained statement must itself be a SELECT.
 * It is found by dropping the EXPLAIN prefix and asked of DuckDB's parser again; anything
 * that does not parse that way is refused.
 */
async function requireExplainedSelect(connection: DuckDBConnection, text: string): Promise<void> {
  const inner = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*EXPLAIN\s+(?:ANALY[SZ]E\s+|\([^)]*\)\s*)?([\s\S]*)$/i.exec(text)?.[1];
  let innerType: StatementType | null = null;
  if (inner !== undefined) {
    try {
      const extracted = await connection.extractStatements(inner);
      if (extracted.count === 1) {
        const prepared = await extracted.prepare(0);
        innerType = prepared.statementType;
        prepared.destroySync();
      }
    } catch {
      innerType = null;
    }
  }
  if (innerType !== StatementType.SELECT) {
    throw new WorkbenchError('read-only', 'DuckDB: EXPLAIN is allowed only for a SELECT (EXPLAIN ANALYZE runs the statement)');
  }
}

function statementTypeName(type: StatementType): string {
  const name: string | undefined = StatementType[type];
  return name?.replace(/_/g, ' ') ?? `type ${type}`;
}
