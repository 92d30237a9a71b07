import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cellKindDataSchema, cellSchema, readCellData } from '../../src-main/contract/notebook';
import { repoRoot } from '../support/fixtures';

describe('cell data typed per kind', () => {
  it('parses every cell of a notebook saved before the data was typed', () => {
    const notebook = JSON.parse(readFileSync(join(repoRoot, 'fixtures/runs/planrag-before-plan-nodes/notebook.json'), 'utf8')) as { cells: unknown[] };
    const cells = notebook.cells.map((cell) => cellSchema.parse(cell));
    expect(cells.map((cell) => cell.kind)).toEqual(['question', 'plan', 'query', 'observation', 'replan', 'query', 'observation', 'simulation', 'decision']);
    const replan = cells[4];
    expect(replan?.kind === 'replan' && replan.data.previous).toEqual(['Home node values', 'Upstream nodes']);
    const decision = cells.at(-1);
    expect(decision?.kind === 'decision' && decision.data.evidence).toEqual(['cell-003', 'cell-006']);
    expect(decision?.kind === 'decision' && decision.data.verification?.best).toBeTypeOf('string');
  });

  it('discriminates on the kind: a plan whose steps are not a list does not parse', () => {
    expect(cellKindDataSchema.safeParse({ kind: 'plan', data: { steps: ['a'] } }).success).toBe(true);
    expect(cellKindDataSchema.safeParse({ kind: 'plan', data: { steps: 'a' } }).success).toBe(false);
    expect(cellKindDataSchema.safeParse({ kind: 'chart', data: {} }).success).toBe(false);
  });

  it('keeps keys it does not know (a newer version) and moves values that do not fit under unreadable', () => {
    expect(readCellData('question', { businessRules: 'R', known: { country: 'SWE' }, addedLater: 1 })).toEqual({ businessRules: 'R', known: { country: 'SWE' }, addedLater: 1 });
    expect(readCellData('decision', { decision: 'krakow', evidence: 'q1' })).toEqual({ decision: 'krakow', unreadable: { evidence: 'q1' } });
    expect(readCellData('note', 'not an object')).toEqual({ value: 'not an object' });
  });
});
