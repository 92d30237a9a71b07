import { describe, expect, it } from 'vitest';
import { criticalPath, layoutPlanGraph, planLevels, readPlanNodeOutcome, type PlanNodeOutcome } from '../../../src-main/contract/plan-graph';
import { chainPlan, type PlanNode } from '../../../src-main/contract/run';

// Two independent roots, a join, and a final node that also reads one root directly.
const diamond: PlanNode[] = [
  { id: 'Q1.1', text: 'Demand of Kenya', dependsOn: [] },
  { id: 'Q1.2', text: 'Supply of Kenya', dependsOn: [] },
  { id: 'Q2.1', text: 'Gap from <A1.1> and <A1.2>', dependsOn: ['Q1.1', 'Q1.2'] },
  { id: 'Q3.1', text: 'Decide from <A2.1> and <A1.2>', dependsOn: ['Q2.1', 'Q1.2'] },
];

function outcome(status: PlanNodeOutcome['status'], latencyMs: number | null): PlanNodeOutcome {
  return { status, question: null, answer: null, explanation: null, failure: null, blockedBy: [], latencyMs, promptTokens: 0, completionTokens: 0, pinned: false, reusedFrom: null };
}

describe('plan graph model', () => {
  it('gives roots level 0 and every other node one more than its deepest parent', () => {
    expect(Object.fromEntries(planLevels(diamond))).toEqual({ 'Q1.1': 0, 'Q1.2': 0, 'Q2.1': 1, 'Q3.1': 2 });
    expect([...planLevels(chainPlan(['a', 'b', 'c'])).values()]).toEqual([0, 1, 2]);
  });

  it('survives a cycle or an unknown parent from a malformed log', () => {
    const levels = planLevels([
      { id: 'a', text: '', dependsOn: ['b', 'ghost'] },
      { id: 'b', text: '', dependsOn: ['a'] },
    ]);
    expect(levels.size).toBe(2);
  });

  it('takes the slowest root into the critical path when latencies are known, else the longest chain', () => {
    expect(criticalPath(diamond, () => 1)).toEqual(['Q1.1', 'Q2.1', 'Q3.1']);
    const latency: Record<string, number> = { 'Q1.1': 100, 'Q1.2': 900, 'Q2.1': 50, 'Q3.1': 10 };
    expect(criticalPath(diamond, (id) => latency[id] ?? 0)).toEqual(['Q1.2', 'Q2.1', 'Q3.1']);
  });

  it('lays levels out left to right without overlapping nodes, and marks the critical edges', () => {
    const layout = layoutPlanGraph(diamond, { tracked: true });
    const byId = new Map(layout.nodes.map((node) => [node.id, node]));
    const x = (id: string): number => byId.get(id)?.x ?? Number.NaN;
    expect(x('Q1.1')).toBe(x('Q1.2'));
    // A level reads in plan order, top to bottom.
    expect(byId.get('Q1.1')?.y ?? 0).toBeLessThan(byId.get('Q1.2')?.y ?? 0);
    expect(x('Q2.1')).toBeGreaterThan(x('Q1.1') + 220);
    expect(x('Q3.1')).toBeGreaterThan(x('Q2.1') + 220);
    for (const a of layout.nodes) {
      for (const b of layout.nodes) {
        if (a.id >= b.id) continue;
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        expect(apart, `${a.id} overlaps ${b.id}`).toBe(true);
      }
    }
    expect(layout.levels).toEqual([['Q1.1', 'Q1.2'], ['Q2.1'], ['Q3.1']]);
    expect(layout.edges.filter((edge) => edge.critical).map((edge) => `${edge.from}>${edge.to}`)).toEqual(['Q1.1>Q2.1', 'Q2.1>Q3.1']);
    expect(layout.edges.every((edge) => edge.points.length >= 2)).toBe(true);
    expect(layout.width).toBeGreaterThanOrEqual(3 * 220);
  });

  it('derives live states: answered and failed from outcomes, running once the parents answered, blocked, pending', () => {
    const outcomes = new Map([
      ['Q1.1', outcome('answered', 10)],
      ['Q1.2', outcome('answered', 20)],
    ]);
    const live = layoutPlanGraph(diamond, { tracked: true, live: true, outcomes });
    expect(live.nodes.map((node) => node.status)).toEqual(['answered', 'answered', 'running', 'pending']);
    const after = layoutPlanGraph(diamond, { tracked: true, live: false, outcomes: new Map([...outcomes, ['Q2.1', outcome('failed', 5)], ['Q3.1', outcome('blocked', null)]]) });
    expect(after.nodes.map((node) => node.status)).toEqual(['answered', 'answered', 'failed', 'blocked']);
    expect(layoutPlanGraph(chainPlan(['a', 'b'])).nodes.map((node) => node.status)).toEqual(['step', 'step']);
  });

  it('draws a linear plan as a chain, top-down when asked', () => {
    const layout = layoutPlanGraph(chainPlan(['one', 'two', 'three']), { direction: 'TB' });
    const ys = layout.nodes.map((node) => node.y);
    expect(ys[1]).toBeGreaterThan(ys[0] ?? 0);
    expect(ys[2]).toBeGreaterThan(ys[1] ?? 0);
    expect(layout.criticalPath).toEqual(['s1', 's2', 's3']);
  });

  it('reads a plan-dag.node event input, summing the tokens of its calls', () => {
    const read = readPlanNodeOutcome({
      status: 'answered',
      question: 'Demand of Kenya',
      answer: ['a', 'b'],
      latencyMs: 42,
      calls: [
        { purpose: 'query', promptTokens: 100, completionTokens: 10 },
        { purpose: 'answer', promptTokens: 120, completionTokens: 5 },
      ],
    });
    expect(read).toMatchObject({ status: 'answered', answer: 'a, b', latencyMs: 42, promptTokens: 220, completionTokens: 15 });
    expect(readPlanNodeOutcome({ status: 'answered', answer: { krakow: 4.7 } })?.answer).toBe('{"krakow":4.7}');
    expect(readPlanNodeOutcome({ status: 'answered', answer: 'x', pinned: true, reusedFrom: 'run-1' })).toMatchObject({ pinned: true, reusedFrom: 'run-1' });
    expect(read).toMatchObject({ pinned: false, reusedFrom: null });
    expect(readPlanNodeOutcome({ status: 'weird' })).toBeNull();
    expect(readPlanNodeOutcome('text')).toBeNull();
  });
});
