import { StatementType, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';

import { WorkbenchError } from '../../contract/errors';

/**
 * Second protection layer, decided by DuckDB's own parser; no regular expression ever decides
 * what runs. The text must be exactly one statement that DuckDB's `json_serialize_sql` accepts
 * as a single SELECT (which covers FROM-first queries, DESCRIBE, SUMMARIZE, SHOW, VALUES);
 * it must also prepare as a SELECT. This matters because a READ_ONLY database with external
 * access off still lets `COPY … TO` overwrite the database's own file.
 *
 * EXPLAIN [ANALYZE] is the one other form. Its inner statement cannot be serialised, so the
 * statement that runs is rebuilt: the text after a leading `EXPLAIN [ANALYZE]` must serialise
 * as one SELECT, and what runs is `EXPLAIN [ANALYZE] ` followed by DuckDB's own rendering of
 * that SELECT (`json_deserialize_sql`). Whatever the text's comments or quotes say, only a
 * SELECT DuckDB parsed itself is ever explained or executed.
 *
 * Nothing here plans or prepares a statement before it is known to be a SELECT: the checks
 * only parse, so a refused statement never reaches the binder or planner.
 */
export async function prepareReadStatement(connection: DuckDBConnection, text: string): Promise<DuckDBPreparedStatement> {
  const extracted = await connection.extractStatements(text);
  if (extracted.count === 0) throw new WorkbenchError('syntax', 'DuckDB: the query is empty');
  if (extracted.count > 1) {
    throw new WorkbenchError('read-only', `DuckDB: only one statement per query is allowed (got ${extracted.count})`);
  }
  if (await serialisesAsOneSelect(connection, text)) return prepareOfType(connection, text, StatementType.SELECT);

  const explain = explainPrefix(text);
  if (explain !== null) {
    const canonical = await canonicalSelect(connection, explain.rest);
    if (canonical === null) {
      throw new WorkbenchError('read-only', 'DuckDB: EXPLAIN is allowed only for a single SELECT (EXPLAIN ANALYZE runs the statement)');
    }
    return prepareOfType(connection, `${explain.prefix} ${canonical}`, StatementType.EXPLAIN);
  }
  throw new WorkbenchError(
    'read-only',
    "DuckDB: DuckDB's parser does not read this as a SELECT; only a single SELECT (or EXPLAIN of one) runs on a read-only connection",
  );
}

/** `EXPLAIN` or `EXPLAIN ANALYZE` at the very start (only whitespace before), and the text after it. */
function explainPrefix(text: string): { prefix: string; rest: string } | null {
  const match = /^[ \t\n]*EXPLAIN(?<analyze>[ \t\n]+ANALY[SZ]E)?[ \t\n]+(?<rest>[\s\S]*)$/i.exec(text);
  if (match?.groups === undefined) return null;
  return { prefix: match.groups.analyze === undefined ? 'EXPLAIN' : 'EXPLAIN ANALYZE', rest: match.groups.rest ?? '' };
}

interface SerialisedSql {
  error?: boolean;
  statements?: { node?: { type?: string } }[];
}

/** True when DuckDB's parser reads `text` as exactly one SELECT statement (parsing only). */
async function serialisesAsOneSelect(connection: DuckDBConnection, text: string): Promise<boolean> {
  return (await serialise(connection, text)) !== null;
}

async function serialise(connection: DuckDBConnection, text: string): Promise<string | null> {
  const result = await connection.run('SELECT json_serialize_sql($text::VARCHAR)', { text });
  const json = (await result.getRows())[0]?.[0];
  if (typeof json !== 'string') return null;
  const parsed = JSON.parse(json) as SerialisedSql;
  if (parsed.error === true || parsed.statements?.length !== 1) return null;
  return parsed.statements[0]?.node?.type === 'SELECT_NODE' ? json : null;
}

/** DuckDB's own rendering of `text` when it is one SELECT, else null. */
async function canonicalSelect(connection: DuckDBConnection, text: string): Promise<string | null> {
  let json: string | null;
  try {
    json = await serialise(connection, text);
  } catch {
    return null;
  }
  if (json === null) return null;
  const result = await connection.run('SELECT json_deserialize_sql($json::JSON)', { json });
  const rendered = (await result.getRows())[0]?.[0];
  return typeof rendered === 'string' && rendered.trim() !== '' ? rendered : null;
}

/** Prepares `text` and checks that DuckDB's verdict on its type is the expected one. */
async function prepareOfType(connection: DuckDBConnection, text: string, expected: StatementType): Promise<DuckDBPreparedStatement> {
  const prepared = await connection.prepare(text);
  if (prepared.statementType === expected) return prepared;
  const type = prepared.statementType;
  prepared.destroySync();
  throw new WorkbenchError('read-only', `DuckDB: ${statementTypeName(type)} statements are not allowed; only SELECT (and EXPLAIN of a SELECT) runs`);
}

function statementTypeName(type: StatementType): string {
  const name: string | undefined = StatementType[type];
  return name?.replace(/_/g, ' ') ?? `type ${type}`;
}
