import { describe, expect, it } from 'vitest';
import { readEditedPlan } from '../../../src-main/contract/plan-dag-plan';
import { addNode, parseDraft, relabelDraft, removeNode, setFinal, updateNode, type DraftPlan } from '../../../src-renderer/plan-graph/plan-draft';

const plan: DraftPlan = {
  nodes: [
    { id: 'Q1.1', question: 'Which nodes flow into baltic_sea?', parents: [] },
    { id: 'Q1.2', question: 'What is SWE power?', parents: [], note: 'kept' },
    { id: 'Q2.1', question: 'Where, of <A1.1>, given A1.2?', parents: ['Q1.1', 'Q1.2'], compute: true },
  ],
  final: 'Q2.1',
};
const text = (draft: DraftPlan): string => JSON.stringify(draft, null, 2);

describe('the step-through plan draft (the form over the plan JSON)', () => {
  it('reads any object with nodes that have an id and a question, and nothing else', () => {
    expect(parseDraft(text(plan))).toEqual(plan);
    expect(parseDraft('{"nodes": [')).toBeNull();
    expect(parseDraft('[{"id": "Q1.1", "question": "q"}]')).toBeNull();
    expect(parseDraft('{"nodes": [{"id": "Q1.1"}]}')).toBeNull();
    expect(parseDraft('{"nodes": [], "final": 3}')).toBeNull();
  });

  it('edits a question, pins and unpins an answer, keeping unknown keys', () => {
    const edited = updateNode(plan, 1, { question: 'What is SWE power now?', pinned: '7.98' });
    expect(edited.nodes[1]).toEqual({ id: 'Q1.2', question: 'What is SWE power now?', parents: [], note: 'kept', pinned: '7.98' });
    expect(updateNode(edited, 1, { pinned: undefined }).nodes[1]).not.toHaveProperty('pinned');
    const reading = readEditedPlan(text(edited));
    expect(reading.ok && reading.graph.nodes.find((node) => node.id === 'Q1.2')).toMatchObject({ pinned: '7.98', question: 'What is SWE power now?' });
  });

  it('removes a node with its edges, and a removed final node leaves the choice to the validation', () => {
    const without = removeNode(plan, 1);
    expect(without.nodes.map((node) => node.id)).toEqual(['Q1.1', 'Q2.1']);
    expect(without.nodes[1]?.parents).toEqual(['Q1.1']);
    // Q2.1 still cites A1.2: the validation names it.
    expect(readEditedPlan(text(without))).toEqual({ ok: false, error: 'Q2.1 cites A1.2, but the plan has no node Q1.2' });
    const noFinal = removeNode(plan, 2);
    expect(noFinal).not.toHaveProperty('final');
    const reading = readEditedPlan(text(noFinal));
    expect(reading.ok && reading.graph.final).toBe('Q2.1');
    expect(reading.ok && reading.graph.warnings[0]).toContain('aggregation step Q2.1 added');
  });

  it('adds a root with the next free id, and re-wires edges; a cycle is refused with the path', () => {
    const added = addNode(plan);
    expect(added.nodes.at(-1)).toEqual({ id: 'Q1.3', question: 'New sub-question', parents: [] });
    const wired = updateNode(added, 2, { parents: ['Q1.1', 'Q1.2', 'Q1.3'] });
    const reading = readEditedPlan(text(wired));
    expect(reading.ok && reading.graph.nodes.find((node) => node.id === 'Q2.1')?.parents).toEqual(['Q1.1', 'Q1.2', 'Q1.3']);
    expect(readEditedPlan(text(updateNode(plan, 0, { parents: ['Q2.1'] })))).toEqual({ ok: false, error: 'the plan has a cycle: Q1.1 → Q2.1 → Q1.1' });
    expect(setFinal(plan, 'Q1.1').final).toBe('Q1.1');
    expect(readEditedPlan(text(setFinal(plan, 'Q1.1')))).toEqual({ ok: false, error: 'the final node Q1.1 has children; the final node must come last' });
  });
});

describe('validation of an edited plan', () => {
  it('says what is wrong: not JSON, wrong form, duplicate ids, unknown parents, empty pins', () => {
    expect(readEditedPlan('{"nodes": [}')).toMatchObject({ ok: false, error: expect.stringMatching(/^the plan is not valid JSON: /) });
    // An editor's text is read strictly: prose around the JSON is refused, not guessed at.
    expect(readEditedPlan('Plan: {"nodes": []}')).toMatchObject({ ok: false, error: expect.stringMatching(/^the plan is not valid JSON/) });
    expect(readEditedPlan('{"nodes": [{"id": "Q1.1", "question": ""}]}')).toMatchObject({ ok: false, error: expect.stringMatching(/^the plan does not have the required form: nodes\.0\.question: /) });
    expect(readEditedPlan(text({ nodes: [plan.nodes[0] as never, plan.nodes[0] as never] }))).toEqual({ ok: false, error: 'node id Q1.1 is used twice' });
    expect(readEditedPlan(text({ nodes: [{ id: 'Q1.1', question: 'q', parents: ['Q9.9'] }] }))).toEqual({ ok: false, error: 'Q1.1 lists parent Q9.9, but the plan has no node Q9.9' });
    expect(readEditedPlan(text({ nodes: [{ id: 'Q1.1', question: 'q', pinned: '  ' }] }))).toEqual({ ok: false, error: 'the plan does not have the required form: nodes.0.pinned: a pinned answer must not be empty' });
    expect(readEditedPlan(text({ nodes: [] }))).toEqual({ ok: false, error: 'the plan has no nodes' });
  });
});

describe('one state after a relabel', () => {
  it('renames the relabelled ids in the draft everywhere (ids, parents, tags, final), so it reads back unchanged', () => {
    // Q1.2 is made to depend on Q1.1, so it stands at level 2: the validation calls it Q2.1 and Q2.1 becomes Q3.1.
    const draft: DraftPlan = {
      nodes: [
        { id: 'Q1.1', question: 'Which nodes feed baltic_sea?' },
        { id: 'Q1.2', question: 'Their value, of <A1.1>?', parents: ['Q1.1'], note: 'kept' },
        { id: 'Q2.1', question: 'The best of A1.2', parents: ['Q1.2'] },
      ],
      final: 'Q2.1',
    };
    const reading = readEditedPlan(JSON.stringify(draft));
    if (!reading.ok) throw new Error(reading.error);
    expect(reading.graph.renamed).toEqual({ 'Q1.2': 'Q2.1', 'Q2.1': 'Q3.1' });
    const relabelled = relabelDraft(draft, reading.graph.renamed ?? {});
    expect(relabelled).toEqual({
      nodes: [
        { id: 'Q1.1', question: 'Which nodes feed baltic_sea?' },
        { id: 'Q2.1', question: 'Their value, of <A1.1>?', parents: ['Q1.1'], note: 'kept' },
        { id: 'Q3.1', question: 'The best of A2.1', parents: ['Q2.1'] },
      ],
      final: 'Q3.1',
    });
    // The graph's ids are the draft's now, and reading it again relabels nothing.
    expect(reading.graph.nodes.map((node) => node.id)).toEqual(relabelled.nodes.map((node) => node.id));
    const again = readEditedPlan(JSON.stringify(relabelled));
    expect(again.ok && again.graph.renamed).toBeUndefined();
    expect(again.ok && again.graph.warnings).toEqual([]);
  });
});
