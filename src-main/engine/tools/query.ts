import { z } from 'zod';
import type { QueryResult } from '../../contract/data';
import { WorkbenchError } from '../../contract/errors';
import { extensionOn } from '../../contract/fidelity';
import { formatObservation } from '../observation';
import { emptyResultFeedback, errorFeedback } from '../query-feedback';
import { resultDigest } from '../result-digest';
import { analystNote, recordReview } from '../review-gate';
import { defineTool } from './tool';
import type { ToolContext, ToolStateChanges } from './tool-context';

/** The longest query or SQL argument a tool takes: room for any real query, a stop for a constrained decoder that never closes the string. */
export const queryMaxLength = 4000;

/** `query`: one read-only query against the database; a review point in step-through. */
export const queryTool = defineTool({
  name: 'query',
  arguments: z.object({ query: z.string().trim().min(1).max(queryMaxLength) }),
  description: (dialect) =>
    `Run one read-only query against the database and receive its rows (a compact table with the row count and whether it was truncated). Write it in ${dialect}.`,
  textForm: 'Thought: <what you need next and why>\nAction: query\nAction Input:\n<one query>',
  fromText: (reply) => (reply.action?.name.startsWith('query') ? { query: reply.action.input } : undefined),
  reviews: { subject: 'query', what: 'each query' },
  perform: async ({ query }, { step, node }, tools) => {
    const { gate } = tools;
    const asked = gate.interactive;
    const decision = await gate.review({ subject: 'query', step, ...(node ? { node } : {}), query }, tools.signal);
    if (asked) recordReview(tools, { step, node }, 'query', query, decision);
    if (decision.action === 'stop') return { stop: 'The analyst stopped the run to continue by hand' };
    if (decision.action === 'skip') {
      tools.emit({ type: 'observation', step, ...(node ? { node } : {}), queryId: null, text: 'Skipped by the analyst.' });
      return { reply: `The analyst skipped this query${decision.note ? `: ${decision.note}` : ''}. Continue without it.`, stateChanges: { queries: 1 } };
    }
    const edited = decision.action === 'edit' && decision.query?.trim() ? decision.query.trim() : null;
    const ran = await runQuery(tools, { step, node, query: edited ?? query, author: edited ? 'analyst' : 'model' });
    const prefix = edited ? `The analyst replaced your query with:\n${edited}\n\n` : '';
    const note = analystNote(decision);
    return { reply: `${prefix}${ran.text}${note ? `\n\nAnalyst note: ${note}` : ''}`, ...(ran.error ? { failed: true } : {}), stateChanges: { ...ran.stateChanges, queries: 1 } };
  },
  cells: {
    'query-start': (event, _at, cells) => {
      cells.queryCells.set(
        event.queryId,
        cells.add(event.step, { kind: 'query', author: event.author, source: event.query, connectionId: cells.connectionId, node: event.node, data: { queryId: event.queryId } }),
      );
    },
    'query-end': (event, at, cells) => {
      const cellId = cells.queryCells.get(event.queryId);
      if (!cellId) return;
      const connectionId = cells.connectionId ?? '';
      if (event.result) cells.saveOutput(cellId, { status: 'ok', result: event.result, ranAt: at, connectionId });
      else if (event.error) cells.saveOutput(cellId, { status: 'error', error: event.error, ranAt: at, connectionId });
    },
    observation: (event, _at, cells) => {
      cells.add(event.step, {
        kind: 'observation',
        author: 'engine',
        source: event.text,
        node: event.node,
        data: { queryId: event.queryId, queryCellId: event.queryId ? (cells.queryCells.get(event.queryId) ?? null) : null },
      });
    },
  },
});

/** What running one query came to: the observation the model reads, and whether it ran (and how many rows it gave). */
export interface QueryRun {
  text: string;
  queryId: string;
  /** Null when the query ran; the refusal or the database's error otherwise. */
  error: WorkbenchError | null;
  rowCount: number;
  /** The rows, for a technique that reads them itself (DeLLMa's candidate list); null when it did not run. */
  result: QueryResult | null;
  /** For the run to apply: a query that ran adds its id to the evidence. */
  stateChanges: ToolStateChanges;
}

const RELATIONAL = new Set(['sqlite', 'duckdb', 'postgres', 'mysql', 'trino']);

/** A diagnostic count through the same read-only connector; null when it cannot be had. */
async function countRows(tools: ToolContext, sql: string): Promise<number | null> {
  try {
    const result = await tools.connector.query(sql, { maxRows: 1, timeoutMs: Math.min(tools.limits.queryTimeoutMs, 5000), ...(tools.signal ? { signal: tools.signal } : {}) });
    const value = Number(result.rows[0]?.[0]);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/** The schema's valid names for an unknown one, or the clause of a syntax error, as a sentence ending in a space; '' without. */
async function explainError(tools: ToolContext, error: WorkbenchError, query: string): Promise<string> {
  if (error.code !== 'unknown-object' && error.code !== 'syntax' && error.code !== 'query-failed') return '';
  let schema = null;
  try {
    schema = await tools.connector.schema();
  } catch {
    schema = null;
  }
  const feedback = errorFeedback(error, query, schema);
  return feedback ? `${feedback} ` : '';
}

/**
 * The database's own words for a failed query: the connector adds the closest known names to
 * an unknown-object error (connectors/shared/unknown-names.ts) and keeps the engine's error as
 * its cause, which is what the papers' models read.
 */
function databaseMessage(error: WorkbenchError): string {
  const cause: unknown = error.cause;
  return cause instanceof WorkbenchError && cause.code === error.code ? databaseMessage(cause) : error.message;
}

/**
 * Runs a query through the read-only connector and records it; errors become observations the
 * model can correct. A query that ran is evidence: the caller applies `stateChanges` to the run.
 */
export async function runQuery(tools: ToolContext, context: { step: number; node?: string | undefined; query: string; author: 'model' | 'analyst' }): Promise<QueryRun> {
  const queryId = tools.newQueryId();
  const { step } = context;
  const node = context.node ? { node: context.node } : {};
  tools.emit({ type: 'query-start', step, queryId, query: context.query, author: context.author, ...node });
  try {
    const result = await tools.connector.query(context.query, {
      maxRows: tools.limits.queryMaxRows,
      timeoutMs: tools.limits.queryTimeoutMs,
      ...(tools.signal ? { signal: tools.signal } : {}),
    });
    tools.emit({ type: 'query-end', step, queryId, result, error: null, digest: resultDigest(result) });
    const feedback = extensionOn(tools.fidelity, 'query-feedback');
    const empty = feedback && result.rowCount === 0 && RELATIONAL.has(tools.engine) ? await emptyResultFeedback(context.query, (sql) => countRows(tools, sql)) : null;
    const text = `${formatObservation(result)}${empty ? `\n${empty}` : ''}`;
    tools.emit({ type: 'observation', step, queryId, text, ...node });
    return { text, queryId, error: null, rowCount: result.rowCount, result, stateChanges: { evidence: [queryId] } };
  } catch (caught) {
    const error = WorkbenchError.from(caught);
    tools.emit({ type: 'query-end', step, queryId, result: null, error: error.toJSON(), digest: null });
    // At paper fidelity the model reads the database's own message and nothing the workbench adds.
    const text =
      error.code === 'read-only'
        ? `Refused: the connection is read-only, so only queries that read data can run. (${error.message})`
        : extensionOn(tools.fidelity, 'query-feedback')
          ? `Error (${error.code}): ${error.message}. ${await explainError(tools, error, context.query)}Correct the query and try again.`
          : `Error (${error.code}): ${databaseMessage(error)}`;
    tools.emit({ type: 'observation', step, queryId, text, ...node });
    return { text, queryId, error, rowCount: 0, result: null, stateChanges: {} };
  }
}
