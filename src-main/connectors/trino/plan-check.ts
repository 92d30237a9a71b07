import { WorkbenchError } from '../../contract/errors';
import { replaceParameters, type CheckedStatement } from './statement-guard';
import { TrinoStatement, type TrinoSession } from './trino-http';

/**
 * Asks Trino for its IO plan of the query (`EXPLAIN (TYPE IO, FORMAT JSON)`, which analyses
 * and plans without running) and refuses one that writes a table (`outputTable`). Parameters
 * are planned as NULL: EXPLAIN takes no bound values, and a value never decides whether a
 * statement writes.
 */
export async function checkPlanReadsOnly(session: TrinoSession, statement: CheckedStatement): Promise<void> {
  const text = replaceParameters(statement, () => 'NULL');
  const explain = await TrinoStatement.start(session, `EXPLAIN (TYPE IO, FORMAT JSON) ${text}`);
  let plan = '';
  for (let rows = await explain.nextRows(); rows !== null; rows = await explain.nextRows()) {
    for (const row of rows) plan += String(row[0] ?? '');
  }
  let parsed: { outputTable?: unknown };
  try {
    parsed = JSON.parse(plan) as { outputTable?: unknown };
  } catch {
    throw new WorkbenchError('read-only', 'Trino: the query plan could not be read, so the query is not run');
  }
  if (parsed.outputTable !== undefined && parsed.outputTable !== null) {
    throw new WorkbenchError('read-only', `Trino: the query plan writes a table (${JSON.stringify(parsed.outputTable)}), so it is not run`);
  }
}
