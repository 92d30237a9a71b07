import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import type { Connector } from '../../../src-main/connectors/connector';
import { openSqliteConnector } from '../../../src-main/connectors/sqlite/sqlite-connector';
import { defaultRunLimits, runDecision, type DecisionRunOptions } from '../../../src-main/engine/decision-run';
import { automaticGate } from '../../../src-main/engine/review-gate';
import { toolParameters } from '../../../src-main/engine/tools/registry';
import { registeredTools, toolNamed } from '../../../src-main/engine/tools/registry';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { simulatorFor } from '../../../src-main/simulators/run-simulator';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import type { ScriptStep } from '../../support/scripted-openai/script';
import { useCleanups, useSqliteFromDqaDump } from '../../support/lifecycle';

/**
 * What a small model does wrong, played by the scripted model over the real openai SDK against a
 * real DQA SQLite database: each reply below is one the engine used to accept, or to keep whole.
 */
const locatingPath = useSqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql');
const onCleanup = useCleanups();

async function setup(script: ScriptStep[], toolMode: 'tools' | 'text' = 'tools') {
  const server = await startScriptedOpenAiServer(script);
  const connector = openSqliteConnector({ path: locatingPath() });
  onCleanup(() => server.close(), () => connector.close());
  const provider = createOpenAiProvider({ baseUrl: server.baseUrl, model: 'scripted', requestTimeoutMs: 5000, maxRetries: 0, toolMode });
  return { server, connector, provider };
}

async function run(parts: { connector: Connector; provider: DecisionRunOptions['provider'] }, overrides: Partial<DecisionRunOptions> = {}) {
  const events: RunEvent[] = [];
  const outcome = await runDecision({
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
  });
  return { outcome, events };
}

const repairs = (events: RunEvent[]): string[] => events.flatMap((event) => (event.type === 'model-repair' ? [event.problem] : []));
const plan = { toolCalls: [{ name: 'plan', arguments: { steps: ['Look', 'Decide'] } }] };

describe('an echoed placeholder or an empty decision is an unusable reply', () => {
  it('text mode: "Final Answer: <the decision only>" is repaired, not answered; the reply stays out of the history; the model is stopped before "Observation:"', async () => {
    const parts = await setup(
      [
        { content: 'Plan:\n1. Look\n2. Decide' },
        { content: 'Final Answer: <the decision only>\nRationale: <the evidence>' },
        { expectLastMessageContains: ['could not be used', 'placeholder'], content: 'Final Answer: krakow\nRationale: SWE has power upstream in krakow.' },
      ],
      'text',
    );
    const { outcome, events } = await run(parts, { toolMode: 'text' });
    parts.server.verify();
    expect(outcome).toMatchObject({ status: 'answered', decision: 'krakow' });
    expect(repairs(events)).toEqual([expect.stringMatching(/decision is a placeholder copied from the reply form/)]);
    const requests = parts.server.chatRequests();
    expect(requests.every((request) => JSON.stringify((request.chat as Record<string, unknown>).stop) === '["Observation:"]')).toBe(true);
    const assistant = requests[2]?.chat.messages.filter((message) => message.role === 'assistant').map((message) => String(message.content));
    expect(assistant).toEqual(['Plan:\n1. Look\n2. Decide', '(An unusable reply of 59 characters was left out here.)']);
  });

  it('tools mode: an empty or bracketed decision is repaired', async () => {
    const parts = await setup([
      plan,
      { toolCalls: [{ name: 'answer', arguments: { decision: ' ', rationale: 'r' } }] },
      { expectLastMessageContains: 'could not be used', toolCalls: [{ name: 'answer', arguments: { decision: '<decision>', rationale: 'r' } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'upstream' } }] },
    ]);
    const { outcome, events } = await run(parts);
    parts.server.verify();
    expect(outcome).toMatchObject({ status: 'answered', decision: 'krakow' });
    expect(repairs(events)).toEqual([expect.stringMatching(/decision Too small/i), expect.stringMatching(/decision is a placeholder/)]);
  });
});

describe('an action and a final answer in one reply', () => {
  it('tools mode: the query runs, the answer is dropped and the model is told so beside the rows', async () => {
    const parts = await setup([
      plan,
      {
        toolCalls: [
          { name: 'answer', arguments: { decision: 'lubeck', rationale: 'a guess' } },
          { name: 'query', arguments: { query: "SELECT local_value FROM trade_node WHERE trade_node = 'baltic_sea'" } },
        ],
      },
      { expectToolResultContains: ['5.665', 'Not run: your answer was not taken because the same reply also asked for query'], toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'after reading' } }] },
    ]);
    const { outcome, events } = await run(parts);
    parts.server.verify();
    expect(outcome).toMatchObject({ status: 'answered', decision: 'krakow' });
    expect(events.filter((event) => event.type === 'decision')).toHaveLength(1);
    expect(events.findIndex((event) => event.type === 'query-end')).toBeLessThan(events.findIndex((event) => event.type === 'decision'));
  });

  it('text mode: the observation comes back with a note that the answer was not taken', async () => {
    const parts = await setup(
      [
        { content: 'Plan:\n1. Look' },
        { content: "Thought: look\nAction: query\nAction Input:\nSELECT local_value FROM trade_node WHERE trade_node = 'baltic_sea'\nFinal Answer: lubeck\nRationale: guess" },
        { expectLastMessageContains: ['Observation:', '5.665', 'your answer was not taken'], content: 'Final Answer: krakow\nRationale: read it' },
      ],
      'text',
    );
    const { outcome, events } = await run(parts, { toolMode: 'text' });
    parts.server.verify();
    expect(outcome.decision).toBe('krakow');
    expect(events.filter((event) => event.type === 'decision')).toHaveLength(1);
  });
});

describe('text mode: the documented re-plan form', () => {
  it('"Re-plan:" / "Reason: …" / numbered steps replaces the plan with those steps (Reason does not swallow them)', async () => {
    const parts = await setup(
      [
        { content: 'Plan:\n1. Look\n2. Decide' },
        { content: 'Re-plan:\nReason: the home node decides it\n1. Read baltic_sea\n2. Compare its sources' },
        { expectLastMessageContains: ['Plan updated: 1. Read baltic_sea 2. Compare its sources'], content: 'Final Answer: krakow\nRationale: upstream' },
      ],
      'text',
    );
    const { outcome, events } = await run(parts, { toolMode: 'text' });
    parts.server.verify();
    expect(repairs(events)).toEqual([]);
    expect(events.filter((event) => event.type === 'replan')).toEqual([
      expect.objectContaining({ steps: ['Read baltic_sea', 'Compare its sources'], reason: 'the home node decides it', previous: ['Look', 'Decide'] }),
    ]);
    expect(outcome.decision).toBe('krakow');
  });
});

describe('a decision that is no candidate, when the simulator knows the candidates', () => {
  it('is asked again with the candidates listed, and the answer tool offers them as an enum', async () => {
    const parts = await setup([
      plan,
      {
        expect: (request) => {
          const answer = request.chat.tools?.find((tool) => tool.function.name === 'answer');
          const decision = (answer?.function.parameters as { properties: { decision: { enum?: string[] } } }).properties.decision;
          expect(decision.enum).toContain('krakow');
          expect(decision.enum).not.toContain('answer');
          // In name order, not the simulator's ranking (krakow is its best): the enum must not give the answer away.
          expect(decision.enum).toEqual([...(decision.enum ?? [])].sort((a, b) => a.localeCompare(b, 'en')));
          expect(decision.enum?.[0]).not.toBe('krakow');
        },
        toolCalls: [{ name: 'answer', arguments: { decision: 'answer', rationale: 'r' } }],
      },
      { expectToolResultContains: ['"answer" is not one of the candidates', 'exactly one of: african_great_lakes, aleppo, alexandria', 'more'], toolCalls: [{ name: 'answer', arguments: { decision: '5', rationale: 'r' } }] },
      { expectToolResultContains: '"5" is not one of the candidates', toolCalls: [{ name: 'answer', arguments: { decision: 'Krakow', rationale: 'upstream' } }] },
    ]);
    const simulator = await simulatorFor(parts.connector, { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } });
    const { outcome, events } = await run(parts, { ...(simulator ? { simulator } : {}) });
    parts.server.verify();
    expect(outcome).toMatchObject({ status: 'answered', decision: 'Krakow' });
    expect(repairs(events)).toHaveLength(2);
    expect(events.filter((event) => event.type === 'decision')).toHaveLength(1);
  });

  it('ends as failed, not answered, when the model keeps naming no candidate', async () => {
    const parts = await setup([
      plan,
      ...['answer', '5', 'atlantis'].map((decision) => ({ toolCalls: [{ name: 'answer', arguments: { decision, rationale: 'r' } }] })),
    ]);
    const simulator = await simulatorFor(parts.connector, { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } });
    const { outcome, events } = await run(parts, { ...(simulator ? { simulator } : {}) });
    expect(outcome.status).toBe('failed');
    expect(outcome.message).toMatch(/answer could not be used after 2 attempts: "atlantis" is not one of the candidates/);
    expect(events.some((event) => event.type === 'decision')).toBe(false);
  });
});

describe('replies cut off, repeated and long', () => {
  it('a reply cut off at the token limit is named so, and unusable replies do not grow the prompt', async () => {
    const rambling = 'digits '.repeat(400);
    const parts = await setup([
      plan,
      { content: rambling, finishReason: 'length' },
      { expectLastMessageContains: 'cut off at the token limit', content: rambling, finishReason: 'length' },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'r' } }] },
    ]);
    const { outcome, events } = await run(parts);
    parts.server.verify();
    expect(outcome.status).toBe('answered');
    expect(repairs(events)).toEqual([expect.stringMatching(/^the reply was cut off at the token limit/), expect.stringMatching(/^the reply was cut off/)]);
    const sizes = parts.server.chatRequests().map((request) => JSON.stringify(request.chat.messages).length);
    // Each repair adds a note and a request, not the 2,800 characters of rambling.
    expect((sizes[3] ?? 0) - (sizes[1] ?? 0)).toBeLessThan(1200);
  });

  it('the same failing call is pointed out the second time and ends the run the third time', async () => {
    const failing = { toolCalls: [{ name: 'query', arguments: { query: 'SELECT nope FROM trade_node' } }] };
    const parts = await setup([failing, { ...failing, expectToolResultContains: 'no such column' }, { ...failing, expectToolResultContains: 'has now failed 2 times in a row' }, failing]);
    const { outcome } = await run(parts, { technique: 'iterrag' });
    expect(outcome.status).toBe('failed');
    expect(outcome.message).toMatch(/same failing query call 3 times in a row/);
    expect(parts.server.chatRequests()).toHaveLength(3);
  });

  it('old observations are summarised when the prompt nears the context window; the newest stay whole', async () => {
    const wide = (offset: number) => ({ toolCalls: [{ name: 'query', arguments: { query: `SELECT * FROM node_country LIMIT 40 OFFSET ${offset}` } }] });
    const parts = await setup([
      wide(0),
      wide(40),
      wide(80),
      {
        expect: (request) => {
          const results = request.chat.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
          expect(results).toHaveLength(3);
          expect(results[0]).toMatch(/summarised to fit the context\] \d+ more lines left out/);
          expect(results[1]).not.toContain('summarised');
          expect(results[2]).not.toContain('summarised');
        },
        toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'r' } }],
      },
    ]);
    const { outcome } = await run(parts, { technique: 'iterrag', limits: { ...defaultRunLimits, contextTokens: 3000 } });
    parts.server.verify();
    expect(outcome.status).toBe('answered');
  });
});

describe('tool schemas a constrained decoder can honour', () => {
  it('caps every string and array, says "exactly one" of the what-if candidates in JSON schema, and makes defaulted fields optional', () => {
    const uncapped: string[] = [];
    const visit = (schema: unknown, path: string): void => {
      if (schema === null || typeof schema !== 'object') return;
      const node = schema as Record<string, unknown>;
      if (node.type === 'string' && node.maxLength === undefined && node.enum === undefined) uncapped.push(path);
      if (node.type === 'array' && node.maxItems === undefined) uncapped.push(path);
      for (const [key, value] of Object.entries(node)) visit(value, `${path}.${key}`);
    };
    for (const tool of registeredTools()) visit(toolParameters(tool), tool.name);
    expect(uncapped).toEqual([]);

    const whatif = toolParameters(toolNamed('whatif')) as { required?: string[] };
    expect(whatif.required).toEqual(['change', 'objective']);
    const schema = toolNamed('whatif').arguments;
    const both = schema.safeParse({ change: 'UPDATE t SET a = 1 WHERE id = :candidate', objective: 'SELECT 1', candidates: [1], candidatesQuery: 'SELECT 1' });
    const neither = schema.safeParse({ change: 'UPDATE t SET a = 1 WHERE id = :candidate', objective: 'SELECT 1' });
    expect(both.success || neither.success).toBe(false);
    expect(both.error?.issues[0]?.message).toMatch(/exactly one of candidates or candidatesQuery/);
    expect(neither.error?.issues[0]?.message).toMatch(/exactly one of candidates or candidatesQuery/);
    expect(schema.parse({ change: 'UPDATE t SET a = 1 WHERE id = :candidate', objective: 'SELECT 1', candidates: [1] })).toMatchObject({ direction: 'maximize' });
  });

  it('offers the what-if oneOf over the wire', async () => {
    const parts = await setup([
      plan,
      {
        expect: (request) => {
          const whatif = request.chat.tools?.find((tool) => tool.function.name === 'whatif');
          expect((whatif?.function.parameters as { oneOf?: unknown }).oneOf).toEqual([{ required: ['candidates'] }, { required: ['candidatesQuery'] }]);
        },
        toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'r' } }],
      },
    ]);
    const { outcome } = await run(parts, { whatIf: { note: 'copies', run: () => Promise.reject(new Error('not used')) } as unknown as DecisionRunOptions['whatIf'] });
    parts.server.verify();
    expect(outcome.status).toBe('answered');
  });
});
