import { WorkbenchError } from '../../contract/errors';
import { replaceParameters, type CheckedStatement } from './statement-guard';

/**
 * Named parameters bound by Trino: `$name` becomes `?` and the statement runs as
 * `EXECUTE IMMEDIATE '…' USING v1, v2`, where each value is a typed literal Trino binds to its
 * placeholder (a string literal's quotes doubled, Trino's only escape), never spliced into the query.
 */
export function bindTrinoParameters(statement: CheckedStatement, params: Record<string, unknown> | undefined): string {
  if (statement.parameters.length === 0) return statement.text;
  const values = statement.parameters.map((name) => {
    if (params === undefined || !(name in params)) throw new WorkbenchError('invalid-request', `Trino: no value given for parameter $${name}`);
    return literal(name, params[name]);
  });
  const withPlaceholders = replaceParameters(statement, () => '?');
  return `EXECUTE IMMEDIATE ${stringLiteral(withPlaceholders)} USING ${values.join(', ')}`;
}

function literal(name: string, value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new WorkbenchError('invalid-request', `Trino: parameter $${name} is not a finite number`);
    return Number.isInteger(value) ? String(value) : `DOUBLE '${String(value)}'`;
  }
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return stringLiteral(value);
  throw new WorkbenchError('invalid-request', `Trino: parameter $${name} must be a string, number, boolean or null`);
}

export function stringLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
