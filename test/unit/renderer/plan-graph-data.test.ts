import { describe, expect, it } from 'vitest';
import { cellSchema, defaultQuerySettings, type Cell } from '../../../src-main/contract/notebook';
import { nodeReviewText, planRunCells, skippedQuery } from '../../../src-renderer/plan-graph/plan-graph-data';

let counter = 0;
/** A notebook cell as the run's projection writes it, checked against the notebook contract. */
function cell(fields: { kind: string; author: string; source?: string; node?: string; runId?: string; data: Record<string, unknown> }): Cell {
  const { node, runId = 'run-1', source = '', ...rest } = fields;
  return cellSchema.parse({
    id: `cell-${++counter}`,
    notebookId: 'nb',
    connectionId: null,
    settings: defaultQuerySettings,
    output: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    provenance: { runId, ...(node ? { node } : {}) },
    source,
    ...rest,
  });
}

describe('the notebook\'s per-node detail of a Plan*RAG run', () => {
  const cells = [
    cell({ kind: 'observation', author: 'engine', data: { queryId: null, queryCellId: null, tool: 'plan-dag.plan', input: { nodes: [] } } }),
    cell({ kind: 'note', author: 'analyst', node: 'Q1.1', source: '**The analyst edited the model\'s query.**', data: { review: 'edit', subject: 'query' } }),
    cell({ kind: 'query', author: 'analyst', node: 'Q1.1', source: 'SELECT 1', data: { queryId: 'q1' } }),
    cell({ kind: 'note', author: 'analyst', node: 'Q2.1', data: { review: 'skip', subject: 'query' } }),
    cell({ kind: 'note', author: 'analyst', node: 'Q1.2', data: { review: 'edit', subject: 'plan' } }),
    // Written before the subject was recorded: still listed, named by its action alone.
    cell({ kind: 'note', author: 'analyst', node: 'Q1.3', data: { review: 'note' } }),
    // The engine's notes and another run's reviews are not this run's analyst reviews.
    cell({ kind: 'note', author: 'engine', node: 'Q1.1', data: { status: 'failed' } }),
    cell({ kind: 'note', author: 'analyst', node: 'Q1.1', runId: 'run-2', data: { review: 'skip', subject: 'query' } }),
  ];
  const run = planRunCells(cells, 'run-1');

  it('files the analyst\'s review decisions by node, in notebook order', () => {
    expect(Object.fromEntries([...run.reviews].map(([node, reviews]) => [node, reviews.map(nodeReviewText)]))).toEqual({
      'Q1.1': ['edited the query'],
      'Q2.1': ['skipped the query'],
      'Q1.2': ['edited the node in the plan'],
      'Q1.3': ['added a note to the node'],
    });
    expect(run.queries.get('Q1.1')?.map((query) => query.author)).toEqual(['analyst']);
  });

  it('knows when a node answered without a result because its query was skipped', () => {
    expect(skippedQuery(run.reviews.get('Q2.1') ?? [])).toBe(true);
    expect(skippedQuery(run.reviews.get('Q1.1') ?? [])).toBe(false);
    expect(skippedQuery([{ action: 'skip', subject: 'plan' }])).toBe(false);
  });
});
