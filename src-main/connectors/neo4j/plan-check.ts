import type { ResultSummary } from 'neo4j-driver';

import { WorkbenchError } from '../../contract/errors';
import { explainPrefix } from '../shared/cypher-text';

/**
 * Procedures a query may CALL: schema introspection that only reads. Anything else is refused
 * even when Neo4j classifies it as read-only, since procedures (APOC, GDS, plugins) can reach
 * outside the database or hold resources.
 */
export const allowedProcedures = new Set([
  'db.labels',
  'db.relationshipTypes',
  'db.propertyKeys',
  'db.schema.visualization',
  'db.schema.nodeTypeProperties',
  'db.schema.relTypeProperties',
  'db.info',
  'dbms.components',
]);

/**
 * Plan operators refused even in read queries: LOAD CSV reads server files or fetches URLs,
 * TERMINATE TRANSACTIONS ends other users' work. Both run in READ access mode.
 */
const refusedOperators = new Map<string, string>([
  ['LoadCSV', 'LOAD CSV reads files or URLs from the server'],
  ['TerminateTransactions', 'TERMINATE TRANSACTIONS ends other sessions\' work'],
]);

interface PlanNode {
  operatorType: string;
  arguments: Record<string, unknown>;
  children: PlanNode[];
}

/**
 * Second protection layer, decided by Neo4j itself: the query is planned with EXPLAIN (which
 * never executes it) and runs only if the planner calls it read-only ('r'), it calls only
 * allowed procedures, and it has none of the refused operators.
 */
export function checkExplainedQuery(summary: ResultSummary): void {
  const queryType = summary.queryType;
  if (queryType !== 'r') {
    const kind = queryType === 's' ? 'changes the schema' : 'writes';
    throw new WorkbenchError('read-only', `Neo4j: the query ${kind} (query type '${String(queryType)}'); only read-only queries ('r') run`);
  }
  const plan = summary.plan;
  if (plan === false || plan === undefined) return;
  visit(plan as PlanNode);
}

function visit(node: PlanNode): void {
  const operator = node.operatorType.split('@')[0] ?? node.operatorType;
  const refusal = refusedOperators.get(operator);
  if (refusal !== undefined) throw new WorkbenchError('read-only', `Neo4j: ${refusal}; not allowed`);
  if (operator === 'ProcedureCall') {
    const procedure = procedureName(node.arguments);
    if (procedure === null || !allowedProcedures.has(procedure)) {
      throw new WorkbenchError(
        'read-only',
        `Neo4j: CALL ${procedure ?? '(unknown procedure)'} is not allowed; allowed procedures: ${[...allowedProcedures].join(', ')}`,
      );
    }
  }
  for (const child of node.children) visit(child);
}

/** `db.labels() :: (label :: STRING)` → `db.labels`. */
function procedureName(args: Record<string, unknown>): string | null {
  const details = args.Details ?? args.Signature;
  if (typeof details !== 'string') return null;
  const match = /^\s*([\w.`]+)\s*\(/.exec(details);
  return match?.[1]?.replace(/`/g, '') ?? null;
}

/**
 * Neo4j's syntax errors quote the planned text and point into it. When the connector added
 * the EXPLAIN prefix, this takes it back out so the message matches what the user wrote.
 */
export function withoutExplainPrefix(message: string): string {
  const shift = explainPrefix.length;
  const lines = message.split('\n');
  const quoted = lines.findIndex((line) => line.startsWith(`"${explainPrefix}`));
  if (quoted === -1) return message;
  lines[quoted] = `"${(lines[quoted] ?? '').slice(shift + 1)}`;
  const caret = lines[quoted + 1];
  if (caret !== undefined && /^ *\^/.test(caret)) lines[quoted + 1] = caret.slice(Math.min(shift, caret.indexOf('^')));
  return lines
    .join('\n')
    .replace(/\(line 1, column (\d+) \(offset: (\d+)\)\)/, (_, column: string, offset: string) =>
      `(line 1, column ${Math.max(1, Number(column) - shift)} (offset: ${Math.max(0, Number(offset) - shift)}))`);
}
