import { WorkbenchError } from '../../contract/errors';
import type { BoundQuery } from '../shared/read-only-run';
import { replaceTokens } from '../shared/sql-tokens';
import { scanMysqlSql } from './sql-lexer';

/**
 * Turns `$name` placeholders into `?` and lists the values in order, for a server-side
 * prepared statement (the values are bound by the server, never written into the SQL). MySQL
 * identifiers may start with `$`, so only names present in `params` count as placeholders.
 */
export function bindNamedParameters(text: string, params: Record<string, unknown> | undefined): BoundQuery {
  const supplied = params ?? {};
  const placeholders = scanMysqlSql(text).filter(
    (token) => token.kind === 'word' && token.value.startsWith('$') && Object.hasOwn(supplied, token.value.slice(1)),
  );
  if (placeholders.length === 0) return { text, values: [] };
  const values: unknown[] = [];
  const rewritten = replaceTokens(text, placeholders, (placeholder) => {
    values.push(toMysqlValue(supplied[placeholder.value.slice(1)]));
    return '?';
  });
  return { text: rewritten, values };
}

function toMysqlValue(value: unknown): unknown {
  if (value === undefined) throw new WorkbenchError('invalid-request', 'MySQL: parameter values cannot be undefined');
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'object' && value !== null && !(value instanceof Date) && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return value;
}
