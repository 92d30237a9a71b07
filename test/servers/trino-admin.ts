import { TrinoStatement } from '../../src-main/connectors/trino/trino-http';
import { parseTrinoUrl } from '../../src-main/connectors/trino/trino-url';

/**
 * Runs statements on a test Trino server as the login the URI names, in autocommit (no
 * read-only transaction): how fixtures are loaded as the admin and how a test shows what
 * Trino's access control alone does. Returns the last statement's rows.
 */
export async function runTrinoSql(uri: string, statements: string[]): Promise<unknown[][]> {
  const endpoint = parseTrinoUrl(uri);
  let rows: unknown[][] = [];
  for (const text of statements) {
    const statement = await TrinoStatement.start({ endpoint, password: null }, text);
    rows = [];
    for (let page = await statement.nextRows(); page !== null; page = await statement.nextRows()) rows.push(...page);
  }
  return rows;
}
