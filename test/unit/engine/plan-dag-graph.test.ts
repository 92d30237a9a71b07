import { describe, expect, it } from 'vitest';
import { readNodeAnswer, readDecision, substituteTags, tagText, type NodeAnswer } from '../../../src-main/engine/techniques/plan-dag/answers';
import { citedIds, depthOf, descendantsOf, levelsOf, readPlan, singleNodePlan, type PlanGraph } from '../../../src-main/engine/techniques/plan-dag/plan-graph';

const plan = (nodes: unknown[], final?: string): string => JSON.stringify(final ? { nodes, final } : { nodes });
const graphOf = (reply: string): PlanGraph => {
  const reading = readPlan(reply);
  if (!reading.ok) throw new Error(reading.error);
  return reading.graph;
};
const errorOf = (reply: string): string => {
  const reading = readPlan(reply);
  if (reading.ok) throw new Error(`expected an error, got ${JSON.stringify(reading.graph)}`);
  return reading.error;
};

describe('the Plan*RAG plan parser', () => {
  it('reads a valid plan: edges are the explicit parents united with the cited tags, bare or bracketed', () => {
    const graph = graphOf(
      plan(
        [
          { id: 'Q1.1', question: 'Which nodes feed baltic_sea?', parents: [] },
          { id: 'Q1.2', question: 'What is SWE power per node?' },
          { id: 'Q2.1', question: 'Local value of each node in <A1.1>', parents: [] },
          { id: 'Q3.1', question: 'Best of A2.1 given A1.2', parents: ['Q2.1'] },
        ],
        'Q3.1',
      ),
    );
    expect(graph.nodes.map((node) => [node.id, node.level, node.parents])).toEqual([
      ['Q1.1', 1, []],
      ['Q1.2', 1, []],
      ['Q2.1', 2, ['Q1.1']],
      ['Q3.1', 3, ['Q2.1', 'Q1.2']],
    ]);
    expect(graph.final).toBe('Q3.1');
    expect(graph.warnings).toEqual([]);
  });

  it('accepts the plan inside a fenced block, depends_on and final_node, and an array of nodes', () => {
    const fenced = graphOf('Here is the plan:\n```json\n{"nodes": [{"id": "Q1.1", "question": "a"}, {"id": "Q2.1", "question": "b", "depends_on": ["Q1.1"]}], "final_node": "Q2.1"}\n```');
    expect(fenced.nodes.map((node) => node.parents)).toEqual([[], ['Q1.1']]);
    expect(fenced.final).toBe('Q2.1');
    const array = graphOf('[{"id": "Q1.1", "question": "a"}, {"id": "Q2.1", "question": "b of <A1.1>"}]');
    expect(array.final).toBe('Q2.1');
  });

  it('does not read tags out of longer words or numbers', () => {
    expect(citedIds('Compare A1.1 with <A2.3>, not DATA1.1 or A1.12x or 3A1.1 or A1.1.5')).toEqual(['Q1.1', 'Q2.3']);
  });

  it.each([
    ['non-JSON garbage', 'I think we should first look at the flows.', /the reply is not JSON/],
    ['an empty plan', plan([]), /the plan has no nodes/],
    ['a node without a question', plan([{ id: 'Q1.1' }]), /the plan does not have the required form: nodes\.0\.question/],
    ['an id of another form', plan([{ id: 'step-1', question: 'a' }]), /node id "step-1" is not of the form Q\{level\}\.\{j\}/],
    ['a duplicate id', plan([{ id: 'Q1.1', question: 'a' }, { id: 'Q1.1', question: 'b' }]), /node id Q1\.1 is used twice/],
    ['an unknown tag', plan([{ id: 'Q1.1', question: 'a' }, { id: 'Q2.1', question: 'b of <A1.2>' }]), /Q2\.1 cites A1\.2, but the plan has no node Q1\.2/],
    ['an unknown parent', plan([{ id: 'Q1.1', question: 'a' }, { id: 'Q2.1', question: 'b', parents: ['Q1.9'] }]), /Q2\.1 lists parent Q1\.9, but the plan has no node Q1\.9/],
    ['a self-reference by tag', plan([{ id: 'Q1.1', question: 'a of A1.1' }]), /Q1\.1 cites its own answer A1\.1/],
    ['a self-reference by parent', plan([{ id: 'Q1.1', question: 'a', parents: ['Q1.1'] }]), /Q1\.1 lists itself as its parent/],
    ['a cycle', plan([{ id: 'Q1.1', question: 'a' }, { id: 'Q2.1', question: 'b of <A2.2>', parents: ['Q1.1'] }, { id: 'Q2.2', question: 'c of <A2.1>' }]), /the plan has a cycle: Q2\.\d → Q2\.\d → Q2\.\d/],
    ['a final node that is not in the plan', plan([{ id: 'Q1.1', question: 'a' }], 'Q4.1'), /the final node Q4\.1 is not in the plan/],
    ['a final node with children', plan([{ id: 'Q1.1', question: 'a' }, { id: 'Q2.1', question: 'b of A1.1' }], 'Q1.1'), /the final node Q1\.1 has children/],
    ['too many nodes', plan(Array.from({ length: 25 }, (_, j) => ({ id: `Q1.${j + 1}`, question: 'x' }))), /25 nodes; at most 24/],
  ])('refuses %s with an error the planner can act on', (_name, reply, error) => {
    expect(errorOf(reply)).toMatch(error);
  });

  it('refuses a plan bigger than the model-call budget allows, counting only new nodes in a re-plan', () => {
    const nodes = [{ id: 'Q1.1', question: 'a' }, { id: 'Q1.2', question: 'b' }, { id: 'Q2.1', question: 'c <A1.1> <A1.2>' }];
    expect(readPlan(plan(nodes), new Set(), 2)).toEqual({ ok: false, error: 'the plan has 3 nodes; at most 2 are allowed' });
    expect(readPlan(plan(nodes), new Set(['Q1.1', 'Q1.2']), 1).ok).toBe(true);
  });

  it('recomputes levels from the edges: a tag to a same-level node is relabelled, tags and final follow', () => {
    const graph = graphOf(
      plan(
        [
          { id: 'Q1.1', question: 'a' },
          { id: 'Q1.2', question: 'b of <A1.1>' },
          { id: 'Q2.1', question: 'c of A1.2' },
        ],
        'Q2.1',
      ),
    );
    expect(graph.nodes.map((node) => [node.id, node.level, node.question, node.parents])).toEqual([
      ['Q1.1', 1, 'a', []],
      ['Q2.1', 2, 'b of <A1.1>', ['Q1.1']],
      ['Q3.1', 3, 'c of A2.1', ['Q2.1']],
    ]);
    expect(graph.final).toBe('Q3.1');
    expect(graph.warnings).toEqual(['levels recomputed from the edges; relabelled Q1.2 → Q2.1, Q2.1 → Q3.1']);
  });

  it('adds an aggregation step over several sinks when no final node is named, and warns about a sink the final node ignores', () => {
    const graph = graphOf(plan([{ id: 'Q1.1', question: 'a' }, { id: 'Q1.2', question: 'b' }, { id: 'Q2.1', question: 'c of A1.1' }]));
    const aggregation = graph.nodes.at(-1);
    expect(aggregation).toMatchObject({ id: 'Q3.1', level: 3, parents: ['Q1.2', 'Q2.1'], compute: true });
    expect(aggregation?.question).toBe('Decide the main question from <A1.2>, <A2.1>.');
    expect(graph.final).toBe('Q3.1');
    expect(graph.warnings[0]).toMatch(/several nodes end the plan \(Q1\.2, Q2\.1\) and none is named final: aggregation step Q3\.1 added/);

    const named = graphOf(plan([{ id: 'Q1.1', question: 'a' }, { id: 'Q1.2', question: 'b' }, { id: 'Q2.1', question: 'c of A1.1' }], 'Q2.1'));
    expect(named.nodes).toHaveLength(3);
    expect(named.warnings).toEqual(['Q1.2 feeds neither another node nor the final node Q2.1']);
  });

  it('computes the levels of a chain and of a diamond, and depth as the paper counts it', () => {
    const chain = graphOf(plan([{ id: 'Q1.1', question: 'a' }, { id: 'Q2.1', question: 'b <A1.1>' }, { id: 'Q3.1', question: 'c <A2.1>' }]));
    expect(levelsOf(chain).map((level) => level.map((node) => node.id))).toEqual([['Q1.1'], ['Q2.1'], ['Q3.1']]);
    expect(depthOf(chain)).toBe(2);
    const diamond = graphOf(plan([{ id: 'Q1.1', question: 'a' }, { id: 'Q1.2', question: 'b' }, { id: 'Q2.1', question: 'c <A1.1> <A1.2>' }]));
    expect(levelsOf(diamond).map((level) => level.length)).toEqual([2, 1]);
    expect(depthOf(diamond)).toBe(1);
    expect(descendantsOf(chain, 'Q1.1')).toEqual(['Q2.1', 'Q3.1']);
    const single = singleNodePlan('  Where should SWE place its merchant?  ', 'no plan');
    expect(depthOf(single)).toBe(0);
    expect(single.nodes).toEqual([{ id: 'Q1.1', question: 'Where should SWE place its merchant?', parents: [], level: 1, compute: false }]);
  });
});

describe('tag substitution and answers', () => {
  const answer = (value: unknown): NodeAnswer => ({ value, explanation: '' });

  it('fills scalar and list answers deterministically (lists sorted and joined) and leaves no tag behind', () => {
    const answers = new Map([
      ['Q1.1', answer(['novgorod', 'krakow'])],
      ['Q1.2', answer(56.092)],
    ]);
    expect(substituteTags('Local value of each node in <A1.1>, given A1.2 at home?', answers)).toEqual({ question: 'Local value of each node in krakow, novgorod, given 56.092 at home?' });
    expect(tagText([])).toBe('none');
    expect(tagText(null)).toBe('none');
    expect(tagText([3, 1, 2])).toBe('1, 2, 3');
  });

  it('names the tags whose answers have no text form (objects), for the LLM rewrite', () => {
    const answers = new Map([
      ['Q1.1', answer({ krakow: 7.98 })],
      ['Q1.2', answer('x')],
    ]);
    expect(substituteTags('a <A1.1> b A1.2', answers)).toEqual({ unresolved: ['Q1.1'] });
  });

  it('reads node answers and decisions, JSON or not', () => {
    expect(readNodeAnswer('```json\n{"answer": ["krakow"], "explanation": "feeds"}\n```')).toEqual({ value: ['krakow'], explanation: 'feeds' });
    expect(readNodeAnswer('krakow and novgorod')).toEqual({ value: 'krakow and novgorod', explanation: '' });
    expect(readDecision('{"decision": 1485, "rationale": "largest supply"}')).toEqual({ decision: '1485', rationale: 'largest supply' });
    expect(readDecision('{"answer": "krakow"}')).toEqual({ decision: 'krakow', rationale: 'No rationale given.' });
    expect(readDecision('krakow')).toBeNull();
    expect(readDecision('{"decision": ""}')).toBeNull();
  });
});
