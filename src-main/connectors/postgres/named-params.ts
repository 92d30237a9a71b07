import { WorkbenchError } from '../../contract/errors';
import type { BoundQuery } from '../shared/read-only-run';
import { replaceTokens } from '../shared/sql-tokens';
import { scanPostgresSql } from './sql-lexer';

/**
 * Turns `$name` placeholders into PostgreSQL's positional `$1, $2…` and lists the values in
 * that order, so the server binds them (they never become part of the SQL text). Only
 * placeholders in code are touched; `$name` inside strings, comments and dollar quotes stays.
 */
export function bindNamedParameters(text: string, params: Record<string, unknown> | undefined): BoundQuery {
  const placeholders = scanPostgresSql(text).filter((token) => token.kind === 'named-param');
  if (placeholders.length === 0) return { text, values: [] };
  const supplied = params ?? {};
  const positions = new Map<string, number>();
  const values: unknown[] = [];
  const rewritten = replaceTokens(text, placeholders, ({ value: name }) => {
    if (!Object.hasOwn(supplied, name)) {
      throw new WorkbenchError('invalid-request', `PostgreSQL: no value given for parameter $${name}`);
    }
    let position = positions.get(name);
    if (position === undefined) {
      values.push(toPostgresValue(supplied[name]));
      position = values.length;
      positions.set(name, position);
    }
    return `$${position}`;
  });
  return { text: rewritten, values };
}

/** pg cannot serialise bigint; its decimal text is exact and PostgreSQL casts it. */
function toPostgresValue(value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
