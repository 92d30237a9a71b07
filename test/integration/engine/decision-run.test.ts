import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import type { Connector } from '../../../src-main/connectors/connector';
import { openSqliteConnector } from '../../../src-main/connectors/sqlite/sqlite-connector';
import { defaultRunLimits, runDecision, type DecisionRunOptions } from '../../../src-main/engine/decision-run';
import type { ReviewDecision, ReviewGate, ReviewRequest } from '../../../src-main/engine/review-gate';
import { automaticGate } from '../../../src-main/engine/review-gate';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { simulatorFor } from '../../../src-main/simulators/run-simulator';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import type { ScriptStep } from '../../support/scripted-openai/script';
import { useCleanups, useSqliteFromDqaDump } from '../../support/lifecycle';

const locatingPath = useSqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql');

const onCleanup = useCleanups();

async function setup(script: ScriptStep[], options: { toolMode?: 'tools' | 'text'; rejectTools?: boolean } = {}) {
  const server = await startScriptedOpenAiServer(script, options.rejectTools ? { rejectTools: true } : {});
  const connector = openSqliteConnector({ path: locatingPath() });
  onCleanup(() => server.close(), () => connector.close());
  const provider = createOpenAiProvider({ baseUrl: server.baseUrl, model: 'scripted', requestTimeoutMs: 5000, maxRetries: 0, toolMode: options.toolMode ?? 'tools' });
  return { server, connector, provider };
}

function run(
  parts: { connector: Connector; provider: DecisionRunOptions['provider'] },
  overrides: Partial<DecisionRunOptions> = {},
): Promise<{ outcome: Awaited<ReturnType<typeof runDecision>>; events: RunEvent[] }> {
  const events: RunEvent[] = [];
  return runDecision({
    question: 'Where should SWE allocate its merchant to maximise profit at baltic_sea?',
    rules: 'Profit = (local_value + ingoing) * power share.',
    technique: 'planrag',
    connector: parts.connector,
    connectionDescription: 'locating-1445 (SQLite)',
    provider: parts.provider,
    toolMode: 'tools',
    limits: { ...defaultRunLimits, queryTimeoutMs: 5000 },
    gate: automaticGate,
    emit: (event) => events.push(event),
    ...overrides,
  }).then((outcome) => ({ outcome, events }));
}

const types = (events: RunEvent[]): string[] => events.map((event) => event.type);

describe('PlanRAG over the real openai SDK and a DQA SQLite database', () => {
  it('plans, queries, re-plans, queries and answers, with real rows in every tool message', async () => {
    const parts = await setup([
      { expectTools: ['plan'], toolCalls: [{ name: 'plan', arguments: { steps: ['Find SWE home node power', 'Compare upstream nodes'] } }] },
      {
        expectTools: ['query', 'replan', 'answer'],
        content: 'First, the values of the home node.',
        toolCalls: [{ name: 'query', arguments: { query: "SELECT trade_node, local_value FROM trade_node WHERE trade_node = 'baltic_sea'" } }],
      },
      {
        expectToolResultContains: ['baltic_sea | 5.665', 'rows: 1 (complete)'],
        toolCalls: [{ name: 'query', arguments: { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" } }],
      },
      {
        expectToolResultContains: 'krakow',
        toolCalls: [{ name: 'replan', arguments: { steps: ['Check krakow power', 'Decide'], reason: 'Only upstream nodes matter.' } }],
      },
      {
        expectToolResultContains: 'Plan updated',
        toolCalls: [{ name: 'query', arguments: { query: "SELECT base_trading_power FROM node_country WHERE trade_node = 'krakow' AND country_name = 'SWE'" } }],
      },
      {
        expectToolResultContains: 'rows: 1 (complete)',
        toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'SWE has power upstream in krakow.' } }],
      },
    ]);
    const { outcome, events } = await run(parts);
    parts.server.verify();
    expect(outcome).toMatchObject({ status: 'answered', decision: 'krakow', steps: 6 });
    expect(types(events)).toEqual([
      'run-start',
      'model-request', 'model-response', 'plan',
      'model-request', 'model-response', 'thought', 'query-start', 'query-end', 'observation',
      'model-request', 'model-response', 'query-start', 'query-end', 'observation',
      'model-request', 'model-response', 'replan',
      'model-request', 'model-response', 'query-start', 'query-end', 'observation',
      'model-request', 'model-response', 'decision',
      'run-end',
    ]);
    const replan = events.find((event) => event.type === 'replan');
    expect(replan).toMatchObject({ previous: ['Find SWE home node power', 'Compare upstream nodes'], steps: ['Check krakow power', 'Decide'], author: 'model' });
    const firstQuery = events.find((event) => event.type === 'query-end');
    expect(firstQuery?.type === 'query-end' && firstQuery.result?.rows).toEqual([['baltic_sea', 5.665]]);
    expect(firstQuery?.type === 'query-end' && firstQuery.digest).toMatch(/^[0-9a-f]{64}$/);
    const decision = events.find((event) => event.type === 'decision');
    expect(decision).toMatchObject({ decision: 'krakow', evidence: ['q1', 'q2', 'q3'] });
    const system = parts.server.chatRequests()[0]?.chat.messages[0];
    expect(String(system?.content)).toContain('TABLE node_country — 1480 rows');
  });

  it('feeds query errors and refused writes back to the model as observations', async () => {
    const parts = await setup([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Look'] } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT nope FROM trade_node' } }] },
      { expectToolResultContains: 'no such column: nope', toolCalls: [{ name: 'query', arguments: { query: 'DELETE FROM flow' } }] },
      { expectToolResultContains: 'Refused: the connection is read-only', toolCalls: [{ name: 'answer', arguments: { decision: 'none', rationale: 'could not write' } }] },
    ]);
    const { outcome } = await run(parts);
    parts.server.verify();
    expect(outcome.status).toBe('answered');
    const count = await parts.connector.query('SELECT count(*) FROM flow', { maxRows: 1, timeoutMs: 5000 });
    expect(count.rows).toEqual([[159]]);
  });

  it('repairs malformed output a bounded number of times, then fails clearly', async () => {
    const parts = await setup([
      { content: 'I think krakow.' },
      { expectLastMessageContains: 'could not be used', toolCalls: [{ name: 'plan', arguments: '{"steps": [' }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT 1' } }] },
    ]);
    const { outcome, events } = await run(parts);
    parts.server.verify();
    expect(outcome.status).toBe('failed');
    expect(outcome.message).toMatch(/could not be used after 2 repair attempts: query is not available now \(available: plan\)/);
    expect(events.filter((event) => event.type === 'model-repair')).toHaveLength(3);
  });

  it('ends with a clear status when the step limit is reached', async () => {
    const parts = await setup(Array.from({ length: 3 }, () => ({ toolCalls: [{ name: 'query', arguments: { query: 'SELECT 1' } }] })));
    const { outcome, events } = await run(parts, { technique: 'iterrag', limits: { ...defaultRunLimits, maxSteps: 3 } });
    expect(outcome).toMatchObject({ status: 'step-limit', message: 'Stopped after 3 model calls without a decision' });
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'step-limit' });
  });

  it('gives a clear failure when the endpoint is too slow, without hanging', async () => {
    const parts = await setup([{ delayMs: 4000, content: 'late' }]);
    const provider = createOpenAiProvider({ baseUrl: parts.server.baseUrl, model: 'scripted', requestTimeoutMs: 500, maxRetries: 0, toolMode: 'tools' });
    const started = Date.now();
    const { outcome } = await run({ connector: parts.connector, provider });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(outcome.status).toBe('failed');
    expect(outcome.message).toMatch(/timed out|timeout/i);
  });

  it('SingleRAG gets one query, then only answer', async () => {
    const parts = await setup([
      { expectTools: ['query', 'answer'], toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS n FROM trade_node' } }] },
      { expectTools: ['answer'], expectToolResultContains: '80', toolCalls: [{ name: 'answer', arguments: { decision: '80', rationale: 'counted' } }] },
    ]);
    const { outcome } = await run(parts, { technique: 'singlerag' });
    parts.server.verify();
    expect(outcome.decision).toBe('80');
  });

  it('PlanRAG without re-planning is never offered replan', async () => {
    const parts = await setup([
      { expectTools: ['plan'], toolCalls: [{ name: 'plan', arguments: { steps: ['Count'] } }] },
      { expectTools: ['query', 'answer'], toolCalls: [{ name: 'answer', arguments: { decision: 'x', rationale: 'y' } }] },
    ]);
    await run(parts, { technique: 'planrag-norp' });
    parts.server.verify();
  });

  it('runs the plain-text protocol for models without tool calling', async () => {
    const parts = await setup(
      [
        { content: 'Plan:\n1. Count the nodes\n2. Answer' },
        { expectLastMessageContains: 'Plan recorded', content: 'Thought: count them\nAction: query\nAction Input:\n```sql\nSELECT count(*) AS n FROM trade_node\n```' },
        { expectLastMessageContains: ['Observation:', '80'], content: 'Final Answer: 80\nRationale: the count is 80' },
      ],
      { toolMode: 'text' },
    );
    const { outcome, events } = await run(parts, { toolMode: 'text' });
    parts.server.verify();
    expect(outcome).toMatchObject({ status: 'answered', decision: '80', rationale: 'the count is 80' });
    expect(events.find((event) => event.type === 'thought')).toMatchObject({ text: 'count them' });
    expect(parts.server.chatRequests()[0]?.chat.tools).toBeUndefined();
  });

  it('lets the analyst edit, annotate and skip queries in step-through mode', async () => {
    const reviews: ReviewRequest[] = [];
    const answers: ReviewDecision[] = [
      { action: 'edit', query: "SELECT local_value FROM trade_node WHERE trade_node = 'krakow'" },
      { action: 'note', note: 'Use base power, not calculated.' },
      { action: 'skip', note: 'not needed' },
    ];
    const gate: ReviewGate = { interactive: true, review: async (request) => (reviews.push(request), answers.shift() ?? { action: 'approve' }) };
    const parts = await setup([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['a'] } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT 1' } }] },
      { expectToolResultContains: ['The analyst replaced your query', '4.777'], toolCalls: [{ name: 'query', arguments: { query: 'SELECT 2' } }] },
      { expectToolResultContains: 'Analyst note: Use base power', toolCalls: [{ name: 'query', arguments: { query: 'SELECT 3' } }] },
      { expectToolResultContains: 'skipped this query: not needed', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'r' } }] },
    ]);
    const { outcome, events } = await run(parts, { gate });
    parts.server.verify();
    expect(outcome.status).toBe('answered');
    expect(reviews.map((review) => review.subject === 'query' && review.query)).toEqual(['SELECT 1', 'SELECT 2', 'SELECT 3']);
    const reviewEvents = events.filter((event) => event.type === 'analyst-review');
    expect(reviewEvents.map((event) => event.type === 'analyst-review' && event.action)).toEqual(['edit', 'note', 'skip']);
    expect(events.find((event) => event.type === 'query-start')).toMatchObject({ author: 'analyst', query: "SELECT local_value FROM trade_node WHERE trade_node = 'krakow'" });
  });

  it('stops when the analyst takes over, and when cancelled', async () => {
    const parts = await setup([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['a'] } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT 1' } }] },
    ]);
    const stop: ReviewGate = { interactive: true, review: async () => ({ action: 'stop' }) };
    expect((await run(parts, { gate: stop })).outcome.status).toBe('stopped');

    const slow = await setup([{ delayMs: 3000, content: 'late' }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const { outcome } = await run(slow, { signal: controller.signal });
    expect(outcome.status).toBe('cancelled');
  });

  it('offers simulate on DQA data, returns the ranked table, and checks the decision with its regret', async () => {
    const parts = await setup([
      { expectTools: ['plan'], toolCalls: [{ name: 'plan', arguments: { steps: ['Simulate the options'] } }] },
      { expectTools: ['query', 'replan', 'simulate', 'answer'], toolCalls: [{ name: 'simulate', arguments: { candidates: ['novgorod', 'lubeck'] } }] },
      {
        expectToolResultContains: ['best: krakow', 'rank | candidate | before | after | delta', 'novgorod', 'lubeck'],
        toolCalls: [{ name: 'answer', arguments: { decision: 'novgorod', rationale: 'novgorod looked good' } }],
      },
    ]);
    const simulator = await simulatorFor(parts.connector, { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } });
    expect(simulator?.scenario).toBe('locating');
    const { outcome, events } = await run(parts, { ...(simulator ? { simulator } : {}) });
    parts.server.verify();
    expect(outcome.decision).toBe('novgorod');
    const simulation = events.find((event) => event.type === 'simulation');
    expect(simulation?.type === 'simulation' && simulation.result.best).toBe('krakow');
    expect(simulation?.type === 'simulation' && simulation.requested).toEqual(['novgorod', 'lubeck']);
    const decision = events.find((event) => event.type === 'decision');
    expect(decision?.type === 'decision' && decision.verification).toMatchObject({ decision: 'novgorod', best: 'krakow', agrees: false });
    const regret = decision?.type === 'decision' ? decision.verification?.regret : null;
    expect(regret).toBeGreaterThan(0);
  });

  it('checks a decision against the simulator even when the model never simulated', async () => {
    const parts = await setup([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Decide'] } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'Krakow', rationale: 'upstream' } }] },
    ]);
    const simulator = await simulatorFor(parts.connector, { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } });
    const { events } = await run(parts, { ...(simulator ? { simulator } : {}) });
    const decision = events.find((event) => event.type === 'decision');
    expect(decision?.type === 'decision' && decision.verification).toMatchObject({ best: 'krakow', agrees: true, regret: 0 });
  });
});
