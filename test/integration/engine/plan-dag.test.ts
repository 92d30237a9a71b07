import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findChainBreak, type LoggedEvent } from '../../../src-main/audit/hash-chain';
import { parseRunLogLines, TraceReader } from '../../../src-main/audit/run-trace';
import { runDqaImportCommand } from '../../../src-main/cli/dqa-import-command';
import type { RunEvent } from '../../../src-main/contract/run';
import { runToDirectory, type DirectoryRunResult } from '../../../src-main/engine/run-setup';
import { planDagTechnique, type PlanDagConfig } from '../../../src-main/engine/techniques/plan-dag/technique';
import { registerTechnique, techniqueIds } from '../../../src-main/engine/techniques/registry';
import { parseProviderSettings } from '../../../src-main/llm/settings';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { openConnector } from '../../../src-main/connectors/open-connector';
import { defaultRunLimits, runDecision, type ResumeState } from '../../../src-main/engine/decision-run';
import { MemoryCellSink } from '../../../src-main/engine/memory-cell-sink';
import { createRunCellWriter } from '../../../src-main/engine/run-cells';
import { RunLog } from '../../../src-main/engine/run-log';
import { automaticGate, type ReviewGate, type ReviewRequest } from '../../../src-main/engine/review-gate';
import { readTranscript } from '../../../src-main/llm/transcript';
import type { SimulatorChoice } from '../../../src-main/simulators/run-simulator';
import { dqaRoot, fileHash, sqliteFromDqaDump } from '../../support/fixtures';
import { maxInFlight, nodeOf, nodeTurn, plannerTurn, promptOf, queryTurn } from '../../support/plan-dag-script';
import { startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptStep } from '../../support/scripted-openai';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
let locating = '';
let building = '';
beforeAll(() => {
  locating = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
  building = sqliteFromDqaDump('building/db/USA1836.sql', suiteDir());
});
const servers: ScriptedOpenAiServer[] = [];
const unregister: (() => void)[] = [];
afterEach(async () => {
  unregister.splice(0).forEach((remove) => remove());
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const locatingQuestion = 'Assume that you are the ruler of the country named "SWE". Our home node is "baltic_sea". Where should I allocate my merchant to steer trade to "baltic_sea"?';
const locatingSimulator: SimulatorChoice = { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } };

interface Ran {
  result: DirectoryRunResult;
  server: ScriptedOpenAiServer;
  events: RunEvent[];
  outDir: string;
  requests: ReceivedChatRequest[];
}

async function runPlanDag(
  script: ScriptStep[],
  options: { technique?: string; database?: string; engine?: 'sqlite' | 'kuzu'; question?: string; simulator?: SimulatorChoice; toolMode?: 'tools' | 'text' } = {},
): Promise<Ran> {
  const server = await startScriptedOpenAiServer(script);
  servers.push(server);
  const outDir = tempDir();
  const result = await runToDirectory({
    outDir,
    question: options.question ?? locatingQuestion,
    rules: 'profit = (local_value + ingoing) * country_power / total_power',
    technique: options.technique ?? 'plan-dag',
    connection: { target: { engine: options.engine ?? 'sqlite', path: options.database ?? locating }, description: 'DQA' },
    model: { settings: parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: options.toolMode ?? 'tools' }) },
    simulator: options.simulator ?? locatingSimulator,
    whatIf: false,
  });
  const log = readFileSync(join(outDir, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
  expect(findChainBreak(log)).toBeNull();
  return { result, server, events: log.map((entry) => entry.event), outDir, requests: server.chatRequests() };
}

function register(overrides: Partial<PlanDagConfig> & { id: string }): void {
  unregister.push(registerTechnique(planDagTechnique({ label: overrides.id, summary: 'test variant', ...overrides })));
}

const toolEvents = (events: RunEvent[], tool: string) =>
  events.flatMap((event) => (event.type === 'tool' && event.tool === tool ? [event as Extract<RunEvent, { type: 'tool' }> & { input: Record<string, unknown> }] : []));

/** Two independent roots and a join that decides (the Done-when plan). */
const rootsAndJoin = {
  nodes: [
    { id: 'Q1.1', question: 'Which trade nodes have a flow into baltic_sea?', parents: [] },
    { id: 'Q1.2', question: 'What is SWE\'s base trading power at each trade node?', parents: [] },
    { id: 'Q2.1', question: 'Of the nodes in <A1.1>, where should SWE place its merchant, given its power A1.2?', parents: ['Q1.1', 'Q1.2'], compute: true },
  ],
  final: 'Q2.1',
};

describe('Plan*RAG (plan-dag) on a DQA Locating question (SQLite)', () => {
  it('runs two independent roots at the same time, gives the join its parents\' answers and nothing else, and the simulator checks the decision', async () => {
    const before = fileHash(locating);
    const { result, server, events, requests, outDir } = await runPlanDag([
      // 20 model calls allowed: the planner, then at most 9 nodes of two calls each.
      plannerTurn(rootsAndJoin, { expect: (request) => (promptOf(request).includes('- At most 9 nodes.') && promptOf(request).includes(locatingQuestion) ? undefined : 'the planner is told the budget and the question') }),
      queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source", { delayMs: 250 }),
      queryTurn('Q1.2', "SELECT trade_node, base_trading_power FROM node_country WHERE country_name = 'SWE' ORDER BY trade_node", { delayMs: 250 }),
      nodeTurn('Q1.1', 'answer', { answer: ['novgorod', 'krakow'], explanation: 'two sources MARK-EXPL-11' }, { delayMs: 250, expect: (request) => (promptOf(request).includes('krakow') && promptOf(request).includes('rows: 2') ? undefined : 'Q1.1 answers from its own rows') }),
      nodeTurn('Q1.2', 'answer', { answer: 'SWE: krakow 7.98, novgorod 11.795, baltic_sea 56.092', explanation: 'MARK-EXPL-12' }, { delayMs: 250 }),
      nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'krakow feeds baltic_sea and SWE holds power there.' }),
    ]);
    server.verify();
    expect(result).toMatchObject({ status: 'answered', decision: 'krakow' });
    expect(fileHash(locating)).toBe(before);

    // Exactly: 1 plan + 2 roots × (query + answer) + 1 decision.
    expect(requests).toHaveLength(6);
    const byNode = (id: string) => requests.filter((request) => nodeOf(request) === id);
    const roots = [...byNode('Q1.1'), ...byNode('Q1.2')];
    // The roots were in flight together, and the join asked only after both had answered.
    expect(maxInFlight(roots)).toBe(2);
    const joins = byNode('Q2.1');
    expect(joins).toHaveLength(1);
    const joinPrompt = promptOf(joins[0] as ReceivedChatRequest);
    expect(joins[0]?.receivedAt).toBeGreaterThanOrEqual(Math.max(...roots.map((request) => request.answeredAt ?? Infinity)));
    // The join's prompt: the main question, the rules, its question with tags filled, both parents' Q&A; no trace of the roots' rows or queries.
    expect(joinPrompt).toContain(locatingQuestion);
    expect(joinPrompt).toContain('# Business rules');
    expect(joinPrompt).toContain('Of the nodes in krakow, novgorod, where should SWE place its merchant, given its power SWE: krakow 7.98, novgorod 11.795, baltic_sea 56.092?');
    expect(joinPrompt).toContain('Q1.1: Which trade nodes have a flow into baltic_sea?\nA1.1: krakow, novgorod (two sources MARK-EXPL-11)');
    expect(joinPrompt).toContain('MARK-EXPL-12');
    expect(joinPrompt).not.toContain('SELECT');
    expect(joinPrompt).not.toContain('rows:');
    expect(joinPrompt).toContain('None: answer from the answers above.');

    // The decision is checked by the simulator, and carries the final node's id.
    const decision = events.find((event) => event.type === 'decision');
    expect(decision).toMatchObject({ decision: 'krakow', verification: { agrees: true, best: 'krakow' } });
    // Events name nodes: model calls, queries, observations, node results.
    expect(events.filter((event) => event.type === 'model-request').map((event) => (event.type === 'model-request' ? [event.node ?? null, event.purpose] : null))).toEqual(
      expect.arrayContaining([[null, 'plan'], ['Q1.1', 'query'], ['Q1.2', 'answer'], ['Q2.1', 'answer']]),
    );
    const trace = TraceReader.of(parseRunLogLines(readFileSync(join(outDir, 'run-log.jsonl'), 'utf8')));
    expect(trace.unknown).toBe(0);
    expect(trace.plans[0]?.nodes.find((node) => node.id === 'Q2.1')?.dependsOn).toEqual(['Q1.1', 'Q1.2']);
    expect(trace.queryList().map((query) => query.node).sort()).toEqual(['Q1.1', 'Q1.2']);
    const nodes = toolEvents(events, 'plan-dag.node');
    expect(nodes.map((event) => [event.node, event.input['status']])).toEqual(expect.arrayContaining([['Q1.1', 'answered'], ['Q1.2', 'answered'], ['Q2.1', 'answered']]));
    // Per node call, its prompt tokens; the run's largest prompt and critical-path time.
    const q21 = nodes.find((event) => event.node === 'Q2.1');
    expect((q21?.input['calls'] as { purpose: string; promptTokens: number }[]).map((call) => call.purpose)).toEqual(['answer']);
    const [summary] = toolEvents(events, 'plan-dag.summary');
    const promptTokens = events.flatMap((event) => (event.type === 'model-response' && event.node ? [event.usage?.promptTokens ?? 0] : []));
    expect(summary?.input['largestPromptTokens']).toBe(Math.max(...promptTokens));
    expect(summary?.input['nodeCalls']).toBe(5);
    expect(summary?.input['criticalPathMs']).toBeLessThan(summary?.input['sequentialMs'] as number);
    const notebook = JSON.parse(readFileSync(join(outDir, 'notebook.json'), 'utf8')) as { cells: { kind: string; provenance: { node?: string } }[] };
    expect(notebook.cells.filter((cell) => cell.kind === 'query').map((cell) => cell.provenance.node).sort()).toEqual(['Q1.1', 'Q1.2']);
    expect(notebook.cells.at(-1)?.kind).toBe('decision');

    // The transcript replays, with no model, to the same nodes and decision, whatever order the level's calls come in.
    const replayDir = tempDir();
    const replayed = await runToDirectory({
      outDir: replayDir,
      question: locatingQuestion,
      rules: 'profit = (local_value + ingoing) * country_power / total_power',
      technique: 'plan-dag',
      connection: { target: { engine: 'sqlite', path: locating }, description: 'DQA' },
      model: { replay: readTranscript(readFileSync(join(outDir, 'transcript.jsonl'), 'utf8')), toolMode: 'tools' },
      simulator: locatingSimulator,
      whatIf: false,
    });
    expect(replayed).toMatchObject({ status: 'answered', decision: 'krakow', steps: 6 });
    const replayedNodes = parseRunLogLines(readFileSync(join(replayDir, 'run-log.jsonl'), 'utf8')).flatMap(({ event }) =>
      event.type === 'tool' && event.tool === 'plan-dag.node' ? [[event.node, (event.input as { answer: unknown }).answer]] : [],
    );
    expect(replayedNodes.sort()).toEqual(nodes.map((event) => [event.node, event.input['answer']]).sort());
  });

  it('keeps every node to its parents: answers of siblings, grand-parents and unrelated nodes never reach its prompt', async () => {
    const plan = {
      nodes: [
        { id: 'Q1.1', question: 'Which nodes feed baltic_sea?' },
        { id: 'Q1.2', question: 'What is SWE power per node?' },
        { id: 'Q1.3', question: 'What is the total power at baltic_sea?' },
        { id: 'Q2.1', question: 'Which of <A1.1> has SWE power A1.2?', compute: true },
        { id: 'Q3.1', question: 'Decide from <A2.1>.', compute: true },
      ],
      final: 'Q3.1',
    };
    const answer = (id: string, marker: string) => nodeTurn(id, 'answer', { answer: marker, explanation: `about ${id}` });
    const { result, server, requests, events } = await runPlanDag([
      plannerTurn(plan),
      queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea'"),
      queryTurn('Q1.2', "SELECT trade_node FROM node_country WHERE country_name = 'SWE'"),
      queryTurn('Q1.3', "SELECT total_power FROM trade_node WHERE trade_node = 'baltic_sea'"),
      answer('Q1.1', 'MARKER-ONE-ONE'),
      answer('Q1.2', 'MARKER-ONE-TWO'),
      answer('Q1.3', 'MARKER-ONE-THREE'),
      answer('Q2.1', 'MARKER-TWO-ONE'),
      nodeTurn('Q3.1', 'decide', { decision: 'krakow', rationale: 'from A2.1' }),
    ]);
    server.verify();
    expect(result.status).toBe('answered');
    const promptsOf = (id: string) => requests.filter((request) => nodeOf(request) === id).map(promptOf).join('\n');
    const markers = { 'Q1.1': 'MARKER-ONE-ONE', 'Q1.2': 'MARKER-ONE-TWO', 'Q1.3': 'MARKER-ONE-THREE', 'Q2.1': 'MARKER-TWO-ONE' };
    const allowed: Record<string, string[]> = { 'Q1.1': [], 'Q1.2': [], 'Q1.3': [], 'Q2.1': ['Q1.1', 'Q1.2'], 'Q3.1': ['Q2.1'] };
    for (const [id, parents] of Object.entries(allowed)) {
      for (const [other, marker] of Object.entries(markers)) {
        if (parents.includes(other)) expect(promptsOf(id), `${id} sees its parent ${other}`).toContain(marker);
        else expect(promptsOf(id), `${id} must not see ${other}`).not.toContain(marker);
      }
    }
    // Each node prompt holds the main question and its own resolved question; a parent's question is shown as planned.
    expect(promptsOf('Q2.1')).toContain('Which of MARKER-ONE-ONE has SWE power MARKER-ONE-TWO?');
    expect(promptsOf('Q2.1')).toContain(locatingQuestion);
    expect(promptsOf('Q3.1')).toContain('Q2.1: Which of <A1.1> has SWE power A1.2?\nA2.1: MARKER-TWO-ONE (about Q2.1)');
    // Q1.3 feeds nothing: the planner is warned, the node still runs.
    expect(toolEvents(events, 'plan-dag.plan')[0]?.input['warnings']).toEqual(['Q1.3 feeds neither another node nor the final node Q3.1']);
  });

  it('limits a level to the concurrency setting and never starts a level early (timestamps at the server)', async () => {
    register({ id: 'plan-dag-one-at-a-time', concurrency: 1 });
    const plan = {
      nodes: [
        { id: 'Q1.1', question: 'Sources of baltic_sea?' },
        { id: 'Q1.2', question: 'SWE power?' },
        { id: 'Q1.3', question: 'Total power?' },
        { id: 'Q2.1', question: 'Decide from <A1.1>, <A1.2>, <A1.3>.', compute: true },
      ],
    };
    const script = (delays: number[]): ScriptStep[] => [
      plannerTurn(plan),
      ...['Q1.1', 'Q1.2', 'Q1.3'].flatMap((id, index) => [
        queryTurn(id, 'SELECT count(*) AS n FROM flow', { delayMs: delays[index] ?? 0 }),
        nodeTurn(id, 'answer', { answer: id }, { delayMs: delays[index] ?? 0 }),
      ]),
      nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }),
    ];
    const parallel = await runPlanDag(script([150, 300, 200]));
    parallel.server.verify();
    const levelOne = parallel.requests.filter((request) => nodeOf(request)?.startsWith('Q1.'));
    const levelTwo = parallel.requests.filter((request) => nodeOf(request) === 'Q2.1');
    expect(maxInFlight(levelOne)).toBe(3);
    expect(maxInFlight(parallel.requests)).toBe(3);
    for (const late of levelTwo) expect(late.receivedAt).toBeGreaterThanOrEqual(Math.max(...levelOne.map((request) => request.answeredAt ?? Infinity)));
    const [summary] = toolEvents(parallel.events, 'plan-dag.summary');
    // Level 1 took about its slowest node (2 × 300 ms), not the sum of three.
    expect(summary?.input['criticalPathMs']).toBeGreaterThanOrEqual(600);
    expect(summary?.input['criticalPathMs']).toBeLessThan(summary?.input['sequentialMs'] as number);

    const serial = await runPlanDag(script([20, 20, 20]), { technique: 'plan-dag-one-at-a-time' });
    serial.server.verify();
    expect(serial.result.status).toBe('answered');
    expect(maxInFlight(serial.requests)).toBe(1);
  });

  it('marks a failed node\'s descendants blocked, classifies the failure as QUR, and counts calls exactly', async () => {
    const { result, server, requests, events } = await runPlanDag([
      plannerTurn(rootsAndJoin),
      queryTurn('Q1.1', 'SELECT source FROM flows_missing'),
      queryTurn('Q1.1', 'SELECT sauce FROM flow', { expect: (request) => (promptOf(request).includes('no such table: flows_missing') ? undefined : 'the correction sees the error') }),
      queryTurn('Q1.2', "SELECT base_trading_power FROM node_country WHERE country_name = 'SWE'"),
      nodeTurn('Q1.2', 'answer', { answer: 7.98 }),
    ]);
    server.verify();
    // 1 plan + Q1.1 (query, one correction) + Q1.2 (query, answer); the join never asks.
    expect(requests).toHaveLength(5);
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/^Plan\*RAG reached no decision: Q1\.1 failed \(QUR: the query could not run: Error \(unknown-object\): .*no such column: sauce.*\); blocked: Q2\.1$/);
    const nodes = toolEvents(events, 'plan-dag.node');
    expect(nodes.map((event) => [event.node, event.input['status']])).toEqual(expect.arrayContaining([['Q1.1', 'failed'], ['Q1.2', 'answered'], ['Q2.1', 'blocked']]));
    expect(nodes.find((event) => event.node === 'Q2.1')?.input['blockedBy']).toEqual(['Q1.1']);
    expect(nodes.find((event) => event.node === 'Q1.1')?.input['failure']).toMatchObject({ category: 'QUR' });
    expect(events.some((event) => event.type === 'decision')).toBe(false);
  });

  it('repairs an invalid plan once with the validation error shown, and falls back to a single node when no plan is usable', async () => {
    const cyclic = { nodes: [{ id: 'Q1.1', question: 'a' }, { id: 'Q2.1', question: 'b <A2.2>', parents: ['Q1.1'] }, { id: 'Q2.2', question: 'c <A2.1>' }] };
    const repaired = await runPlanDag([
      plannerTurn(cyclic),
      plannerTurn(rootsAndJoin, { expect: (request) => (promptOf(request).includes('That plan could not be used: the plan has a cycle') ? undefined : 'the repair turn shows the error') }),
      queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea'"),
      queryTurn('Q1.2', "SELECT base_trading_power FROM node_country WHERE country_name = 'SWE'"),
      nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }),
      nodeTurn('Q1.2', 'answer', { answer: 7.98 }),
      nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }),
    ]);
    repaired.server.verify();
    expect(repaired.result).toMatchObject({ status: 'answered', decision: 'krakow' });
    expect(repaired.events.filter((event) => event.type === 'model-repair').map((event) => (event.type === 'model-repair' ? event.problem : ''))).toEqual([expect.stringMatching(/^plan: the plan has a cycle/)]);

    // Garbage three times (one plan and two repairs), then the main question as one node.
    const fallback = await runPlanDag([
      plannerTurn('Let me think about the flows first.'),
      plannerTurn('{"nodes": []}'),
      plannerTurn('{"nodes": [{"id": "Q1.1"}]}'),
      queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea'", { expect: (request) => (promptOf(request).includes(`# Your sub-question (Q1.1)\n${locatingQuestion}`) ? undefined : 'the single node asks the main question') }),
      nodeTurn('Q1.1', 'decide', { decision: 'krakow', rationale: 'r' }),
    ]);
    fallback.server.verify();
    expect(fallback.result).toMatchObject({ status: 'answered', decision: 'krakow' });
    expect(toolEvents(fallback.events, 'plan-dag.plan')[0]?.input['warnings']).toEqual([expect.stringMatching(/^no usable plan \(the plan does not have the required form: nodes\.0\.question .*\): the main question is answered as one node$/)]);
  });

  it('fills tags with the LLM rewrite in the paper-faithful variant (and not in strict mode)', async () => {
    const plan = { nodes: [{ id: 'Q1.1', question: 'Which nodes feed baltic_sea?' }, { id: 'Q2.1', question: 'Which of <A1.1> is best for SWE?', compute: true }] };
    const { result, server, requests } = await runPlanDag(
      [
        plannerTurn(plan),
        queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea'"),
        nodeTurn('Q1.1', 'answer', { answer: ['novgorod', 'krakow'] }),
        {
          label: 'rewrite',
          when: 'Template: Which of <A1.1> is best for SWE?',
          content: 'Which of the trade nodes krakow and novgorod is best for SWE?',
          expect: (request) => (promptOf(request).includes('A1.1 = krakow, novgorod') && !promptOf(request).includes('# Main question') ? undefined : 'the rewrite sees only the template and the answers'),
        },
        nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }, { expect: (request) => (promptOf(request).includes('Which of the trade nodes krakow and novgorod is best for SWE?') ? undefined : 'the node asks the rewritten question') }),
      ],
      { technique: 'plan-dag-faithful' },
    );
    server.verify();
    expect(result.status).toBe('answered');
    expect(requests).toHaveLength(5);
  });

  it('runs the Base variant on one shared retrieval and the ReAct variant with queries inside a node', async () => {
    const plan = { nodes: [{ id: 'Q1.1', question: 'Which nodes feed baltic_sea?' }, { id: 'Q2.1', question: 'Which of <A1.1> is best?', compute: true }] };
    const base = await runPlanDag(
      [
        plannerTurn(plan),
        { label: 'shared query', when: ['# Your sub-question (Q0)', 'Write ONE read-only'], content: "```sql\nSELECT source, dest FROM flow WHERE dest = 'baltic_sea'\n```" },
        nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }, { expect: (request) => (promptOf(request).includes('krakow | baltic_sea') ? undefined : 'the node reads the shared result') }),
        nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }),
      ],
      { technique: 'plan-dag-base' },
    );
    base.server.verify();
    expect(base.result.status).toBe('answered');
    expect(base.events.filter((event) => event.type === 'query-start')).toHaveLength(1);

    const react = await runPlanDag(
      [
        plannerTurn(plan),
        nodeTurn('Q1.1', 'react', "Query:\n```sql\nSELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source\n```"),
        nodeTurn('Q1.1', 'react', 'Answer:\n{"answer": ["krakow", "novgorod"]}', { expect: (request) => (promptOf(request).includes('Observation:\nrows: 2') ? undefined : 'the node reads its observation') }),
        nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }),
      ],
      { technique: 'plan-dag-react' },
    );
    react.server.verify();
    expect(react.result.status).toBe('answered');
    expect(react.events.filter((event) => event.type === 'query-start').map((event) => (event.type === 'query-start' ? event.node : null))).toEqual(['Q1.1']);
  });

  it('re-plans the remaining graph when a node finds no rows [ext], keeping the answered nodes', async () => {
    const plan = {
      nodes: [
        { id: 'Q1.1', question: 'Which nodes feed baltic_sea?' },
        { id: 'Q1.2', question: 'Which nodes feed atlantis?' },
        { id: 'Q2.1', question: 'Best of <A1.1> and <A1.2>?', compute: true },
      ],
    };
    const { result, server, events } = await runPlanDag(
      [
        plannerTurn(plan),
        queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea'"),
        queryTurn('Q1.2', "SELECT source FROM flow WHERE dest = 'atlantis'"),
        nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }),
        nodeTurn('Q1.2', 'answer', { answer: [] }),
        {
          label: 'replan',
          when: 'Plan only the rest',
          content: JSON.stringify({ nodes: [{ id: 'Q2.1', question: 'Which of <A1.1> is best for SWE?', parents: ['Q1.1'], compute: true }], final: 'Q2.1' }),
          expect: (request) => (promptOf(request).includes('Q1.2: Which nodes feed atlantis?\nProblem: the query returned no rows') ? undefined : 'the re-planner sees what went wrong'),
        },
        nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }),
      ],
      { technique: 'plan-dag-replan' },
    );
    server.verify();
    expect(result).toMatchObject({ status: 'answered', decision: 'krakow' });
    const replan = events.find((event) => event.type === 'replan');
    expect(replan).toMatchObject({ reason: '[ext] re-planned the rest: Q1.2 found no rows', author: 'model' });
    // Both answered roots stay (Q1.2 answered "none"); only the rest was planned again.
    expect(replan?.type === 'replan' && replan.nodes?.map((node) => node.id)).toEqual(['Q1.1', 'Q1.2', 'Q2.1']);
    expect(toolEvents(events, 'plan-dag.node').map((event) => event.node)).toEqual(['Q1.1', 'Q1.2', 'Q2.1']);
  });
});

describe('Plan*RAG resumed after an interruption', () => {
  it('skips the planner and the answered nodes, and runs only what was left', async () => {
    const connector = await openConnector({ engine: 'sqlite', path: locating }, null);
    try {
      const stop = new AbortController();
      const first = await startScriptedOpenAiServer([
        plannerTurn(rootsAndJoin),
        queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea'"),
        queryTurn('Q1.2', "SELECT base_trading_power FROM node_country WHERE country_name = 'SWE'"),
        nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }),
        nodeTurn('Q1.2', 'answer', { answer: 7.98 }),
        // The join's call is under way when the app stops.
        () => {
          stop.abort();
          return { holdUntil: new Promise(() => undefined) };
        },
      ]);
      servers.push(first);
      const checkpoints: ResumeState[] = [];
      const events: RunEvent[] = [];
      const options = {
        question: locatingQuestion,
        rules: '',
        technique: 'plan-dag',
        connector,
        connectionDescription: 'DQA',
        toolMode: 'tools' as const,
        limits: defaultRunLimits,
        gate: automaticGate,
        emit: (event: RunEvent) => events.push(event),
      };
      const interrupted = await runDecision({
        ...options,
        provider: createOpenAiProvider(parseProviderSettings({ baseUrl: first.baseUrl, model: 'scripted', toolMode: 'tools', maxRetries: 0 })),
        signal: stop.signal,
        onCheckpoint: (state) => checkpoints.push(state),
      });
      expect(interrupted.status).toBe('cancelled');
      const last = checkpoints.at(-1) as ResumeState;
      expect((last.technique as { answers: { id: string }[] }).answers.map((answer) => answer.id)).toEqual(['Q1.1', 'Q1.2']);

      const second = await startScriptedOpenAiServer([
        nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }, { expect: (request) => (promptOf(request).includes('Of the nodes in krakow, novgorod') ? undefined : 'the join gets the answers from before') }),
      ]);
      servers.push(second);
      const resumedEvents: RunEvent[] = [];
      const resumed = await runDecision({
        ...options,
        provider: createOpenAiProvider(parseProviderSettings({ baseUrl: second.baseUrl, model: 'scripted', toolMode: 'tools' })),
        emit: (event) => resumedEvents.push(event),
        resume: last,
      });
      second.verify();
      expect(resumed).toMatchObject({ status: 'answered', decision: 'krakow' });
      expect(resumedEvents[0]?.type).toBe('run-resume');
      expect(resumedEvents.some((event) => event.type === 'run-start' || event.type === 'plan')).toBe(false);
    } finally {
      await connector.close();
    }
  });
});

describe('Plan*RAG under review', () => {
  it('lets a level\'s node queries wait for review side by side, each answered for its own node, and runs the edited query', async () => {
    const connector = await openConnector({ engine: 'sqlite', path: locating }, null);
    try {
      const server = await startScriptedOpenAiServer([
        plannerTurn(rootsAndJoin),
        queryTurn('Q1.1', 'SELECT source FROM flow WHERE dest = \'nowhere\''),
        queryTurn('Q1.2', "SELECT base_trading_power FROM node_country WHERE country_name = 'SWE'"),
        nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }, { expect: (request) => (promptOf(request).includes('rows: 2') ? undefined : 'Q1.1 answers from the analyst\'s query') }),
        nodeTurn('Q1.2', 'answer', { answer: 7.98 }),
        nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }),
      ]);
      servers.push(server);
      const reviewed: string[] = [];
      // Not interactive, so the level keeps its width: both nodes' queries wait at once (the app
      // keeps them by step and node), and the gate answers only once both are waiting.
      const waiting: (() => void)[] = [];
      let mostPending = 0;
      const gate: ReviewGate = {
        interactive: false,
        review: async (request) => {
          if (request.subject === 'query') {
            await new Promise<void>((resolve) => {
              waiting.push(resolve);
              mostPending = Math.max(mostPending, waiting.length);
              if (waiting.length === 2) waiting.splice(0).forEach((answer) => answer());
            });
          }
          reviewed.push(request.node ?? '');
          return request.subject === 'query' && request.node === 'Q1.1' ? { action: 'edit', query: "SELECT source FROM flow WHERE dest = 'baltic_sea'" } : { action: 'approve' };
        },
      };
      const events: RunEvent[] = [];
      const outcome = await runDecision({
        question: locatingQuestion,
        rules: '',
        technique: 'plan-dag',
        connector,
        connectionDescription: 'DQA',
        toolMode: 'tools',
        limits: defaultRunLimits,
        gate,
        emit: (event) => events.push(event),
        provider: createOpenAiProvider(parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'tools' })),
      });
      server.verify();
      expect(outcome).toMatchObject({ status: 'answered', decision: 'krakow' });
      expect(mostPending).toBe(2);
      expect(reviewed.sort()).toEqual(['Q1.1', 'Q1.2']);
      expect(events.find((event) => event.type === 'query-start' && event.node === 'Q1.1')).toMatchObject({ author: 'analyst', query: "SELECT source FROM flow WHERE dest = 'baltic_sea'" });
      // The edit answered Q1.1's review only: Q1.2 ran the model's query.
      expect(events.find((event) => event.type === 'query-start' && event.node === 'Q1.2')).toMatchObject({ author: 'model', query: "SELECT base_trading_power FROM node_country WHERE country_name = 'SWE'" });
    } finally {
      await connector.close();
    }
  });
});

describe('Plan*RAG in step-through mode', () => {
  it('pauses at each node\'s query with its resolved question; approve, edit and skip are recorded as the analyst\'s with the node id', async () => {
    const connector = await openConnector({ engine: 'sqlite', path: locating }, null);
    try {
      const joinWithQuery = {
        nodes: [
          { id: 'Q1.1', question: 'Which trade nodes have a flow into baltic_sea?', parents: [] },
          { id: 'Q1.2', question: 'What is SWE\'s base trading power?', parents: [] },
          { id: 'Q2.1', question: 'Of the nodes in <A1.1>, where should SWE place its merchant?', parents: ['Q1.1', 'Q1.2'] },
        ],
        final: 'Q2.1',
      };
      const server = await startScriptedOpenAiServer([
        plannerTurn(joinWithQuery),
        queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'nowhere'"),
        nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }, { expect: (request) => (promptOf(request).includes('rows: 2') && promptOf(request).includes('Analyst note: flows end at baltic_sea') ? undefined : 'Q1.1 answers from the analyst\'s query and note') }),
        queryTurn('Q1.2', "SELECT base_trading_power FROM node_country WHERE country_name = 'SWE'"),
        nodeTurn('Q1.2', 'answer', { answer: 7.98 }),
        queryTurn('Q2.1', 'SELECT 1'),
        nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }, { expect: (request) => (promptOf(request).includes('Skipped by the analyst: the parents suffice') ? undefined : 'Q2.1 decides knowing its query was skipped') }),
      ]);
      servers.push(server);
      const reviews: ReviewRequest[] = [];
      const gate: ReviewGate = {
        interactive: true,
        review: async (request) => {
          reviews.push(request);
          if (request.subject !== 'query') return { action: 'approve' };
          if (request.node === 'Q1.1') return { action: 'edit', query: "SELECT source FROM flow WHERE dest = 'baltic_sea'", note: 'flows end at baltic_sea' };
          if (request.node === 'Q2.1') return { action: 'skip', note: 'the parents suffice' };
          return { action: 'approve' };
        },
      };
      const events: RunEvent[] = [];
      const outcome = await runDecision({
        question: locatingQuestion,
        rules: '',
        technique: 'plan-dag',
        connector,
        connectionDescription: 'DQA',
        toolMode: 'tools',
        limits: defaultRunLimits,
        gate,
        emit: (event) => events.push(event),
        provider: createOpenAiProvider(parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'tools' })),
      });
      server.verify();
      expect(outcome).toMatchObject({ status: 'answered', decision: 'krakow' });
      // One node at a time, each paused before its query runs, with the question its tags resolved to.
      expect(reviews.map((request) => `${request.subject} ${request.node ?? ''}`)).toEqual(['plan ', 'query Q1.1', 'query Q1.2', 'query Q2.1']);
      expect(reviews[1]).toMatchObject({ question: 'Which trade nodes have a flow into baltic_sea?', query: "SELECT source FROM flow WHERE dest = 'nowhere'" });
      expect(reviews[3]).toMatchObject({ subject: 'query', question: 'Of the nodes in krakow, novgorod, where should SWE place its merchant?' });
      const recorded = events.filter((event) => event.type === 'analyst-review' && event.subject === 'query');
      expect(recorded).toMatchObject([
        { node: 'Q1.1', action: 'edit', original: "SELECT source FROM flow WHERE dest = 'nowhere'", edited: "SELECT source FROM flow WHERE dest = 'baltic_sea'", note: 'flows end at baltic_sea' },
        { node: 'Q1.2', action: 'approve', edited: null, note: null },
        { node: 'Q2.1', action: 'skip', original: 'SELECT 1', edited: null, note: 'the parents suffice' },
      ]);
      const started = events.flatMap((event) => (event.type === 'query-start' ? [{ node: event.node, author: event.author, query: event.query }] : []));
      expect(started).toEqual([
        { node: 'Q1.1', author: 'analyst', query: "SELECT source FROM flow WHERE dest = 'baltic_sea'" },
        { node: 'Q1.2', author: 'model', query: "SELECT base_trading_power FROM node_country WHERE country_name = 'SWE'" },
      ]);

      // The notebook's node detail: each node's query with its author and result, and what the analyst decided there.
      const sink = new MemoryCellSink('run-step');
      const log = new RunLog('run-step');
      log.onEntry(createRunCellWriter(sink, { runId: 'run-step', connectionId: null, afterCellId: null }));
      events.forEach((event) => log.append(event));
      const ofNode = (node: string) => sink.cells.filter((cell) => cell.provenance.node === node);
      expect(ofNode('Q1.1').filter((cell) => cell.kind === 'query').map((cell) => [cell.author, cell.output?.status === 'ok' ? cell.output.result.rowCount : null])).toEqual([['analyst', 2]]);
      expect(ofNode('Q2.1').filter((cell) => cell.kind === 'query')).toEqual([]);
      const reviewCells = (node: string) => ofNode(node).flatMap((cell) => (cell.kind === 'note' && cell.author === 'analyst' ? [cell.data] : []));
      expect(reviewCells('Q1.1')).toEqual([{ review: 'edit', subject: 'query' }]);
      expect(reviewCells('Q1.2')).toEqual([]);
      expect(reviewCells('Q2.1')).toEqual([{ review: 'skip', subject: 'query' }]);
      expect(ofNode('Q2.1').find((cell) => cell.kind === 'observation' && cell.data.tool === 'plan-dag.node')?.data).toMatchObject({ input: { status: 'answered', question: 'Of the nodes in krakow, novgorod, where should SWE place its merchant?', answer: 'krakow' } });
    } finally {
      await connector.close();
    }
  });
});

describe('Plan*RAG on a DQA Building question (SQLite)', () => {
  it('decides the building through a plan with two roots, checked by the simulator (text-protocol model)', async () => {
    const plan = {
      nodes: [
        { id: 'Q1.1', question: 'Which buildings supply furniture, with their max_supply and current_output?' },
        { id: 'Q1.2', question: 'What is the pop_demand of furniture?' },
        { id: 'Q2.1', question: 'Which building of <A1.1>, raised 5 levels, lowers the furniture price most given demand A1.2?', compute: true },
      ],
      final: 'Q2.1',
    };
    const { result, server, events } = await runPlanDag(
      [
        plannerTurn(plan),
        queryTurn('Q1.1', "SELECT s.building_id, s.max_supply, s.current_output FROM supply s JOIN goods g ON g.code = s.goods_id WHERE g.goods_name = 'furniture' AND s.building_id < 2000 ORDER BY s.building_id"),
        queryTurn('Q1.2', "SELECT pop_demand FROM goods WHERE goods_name = 'furniture'"),
        nodeTurn('Q1.1', 'answer', { answer: [1445, 1485, 1539, 1579] }, { expect: (request) => (promptOf(request).includes('1485') ? undefined : 'Q1.1 sees its rows') }),
        nodeTurn('Q1.2', 'answer', { answer: 741.53 }),
        nodeTurn('Q2.1', 'decide', { decision: '1485', rationale: 'largest output per level' }, { expect: (request) => (promptOf(request).includes('Which building of 1445, 1485, 1539, 1579, raised 5 levels') ? undefined : 'list tags filled') }),
      ],
      // A model without tool calling: Plan*RAG's calls offer no tools, so the text protocol changes nothing.
      { database: building, question: 'Which building id should we increase a level by 5 to maximally decrease the market price of furniture?', simulator: { rules: 'compat', known: { goods: 'furniture' } }, toolMode: 'text' },
    );
    server.verify();
    expect(result).toMatchObject({ status: 'answered', decision: '1485' });
    expect(events.find((event) => event.type === 'decision')).toMatchObject({ decision: '1485', verification: { agrees: true } });
    expect(server.chatRequests().every((request) => (request.chat.tools ?? []).length === 0)).toBe(true);
  });
});

describe('Plan*RAG on a graph database (LadybugDB, Cypher)', () => {
  it('decides a Locating question with Cypher queries per node, checked by the simulator', async () => {
    const dump = 'locating-1445-b1c118fa';
    const questions = join(suiteDir(), 'graph-questions.json');
    writeFileSync(questions, JSON.stringify([{ gdb: join(dqaRoot(), 'locating', 'db', `${dump}.cql`) }]));
    expect(await runDqaImportCommand(['--questions', questions, '--target', `kuzu:${join(suiteDir(), 'graphs')}`], { stdout: () => undefined, stderr: () => undefined })).toBe(0);
    const graph = join(suiteDir(), 'graphs', `${dump}.lbug`);
    const { result, server, events } = await runPlanDag(
      [
        plannerTurn(rootsAndJoin),
        queryTurn('Q1.1', "MATCH (s:Trade_node)-[:source]->(d:Trade_node {name: 'baltic_sea'}) RETURN s.name AS source ORDER BY source", { expect: (request) => (promptOf(request).includes('LadybugDB Cypher') ? undefined : 'the node writes Cypher') }),
        queryTurn('Q1.2', "MATCH (c:Country {name: 'SWE'})-[r:NodeCountry]->(t:Trade_node) RETURN t.name AS node, r.base_trading_power AS power ORDER BY node"),
        nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }, { expect: (request) => (promptOf(request).includes('krakow') && promptOf(request).includes('rows: 2') ? undefined : 'Q1.1 reads its Cypher rows') }),
        nodeTurn('Q1.2', 'answer', { answer: 'krakow 7.98' }, { expect: (request) => (promptOf(request).includes('7.98') ? undefined : 'Q1.2 reads its Cypher rows') }),
        nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }),
      ],
      { database: graph, engine: 'kuzu' },
    );
    server.verify();
    expect(result).toMatchObject({ status: 'answered', decision: 'krakow' });
    expect(events.find((event) => event.type === 'decision')).toMatchObject({ verification: { agrees: true } });
    expect(events.filter((event) => event.type === 'query-end').every((event) => event.type === 'query-end' && event.error === null)).toBe(true);
  }, 120_000);
});

describe('Plan*RAG on a DQA Building question (LadybugDB, Cypher)', () => {
  it('decides the building with Cypher queries per node, checked by the simulator', async () => {
    const questions = join(suiteDir(), 'building-graph-questions.json');
    writeFileSync(questions, JSON.stringify([{ gdb: join(dqaRoot(), 'building', 'db', 'USA1836.cql') }]));
    expect(await runDqaImportCommand(['--questions', questions, '--target', `kuzu:${join(suiteDir(), 'graphs')}`], { stdout: () => undefined, stderr: () => undefined })).toBe(0);
    const plan = {
      nodes: [
        { id: 'Q1.1', question: 'Which furniture manufacturies supply furniture, with their max_supply?' },
        { id: 'Q1.2', question: 'What is the pop_demand of furniture?' },
        { id: 'Q2.1', question: 'Which building of <A1.1>, raised 5 levels, lowers the furniture price most given demand A1.2?', compute: true },
      ],
      final: 'Q2.1',
    };
    const { result, server, events } = await runPlanDag(
      [
        plannerTurn(plan),
        queryTurn('Q1.1', "MATCH (b:Building)-[s:Supply]->(g:Goods {name: 'furniture'}) WHERE b.name CONTAINS 'furniture' RETURN b.id AS building, s.max_supply AS max_supply ORDER BY building"),
        queryTurn('Q1.2', "MATCH (g:Goods {name: 'furniture'}) RETURN g.pop_demand AS pop_demand"),
        nodeTurn('Q1.1', 'answer', { answer: [1445, 1485, 1539, 1579] }, { expect: (request) => (promptOf(request).includes('rows: 4') && promptOf(request).includes('1485') ? undefined : 'Q1.1 reads its Cypher rows') }),
        nodeTurn('Q1.2', 'answer', { answer: 741.53 }, { expect: (request) => (promptOf(request).includes('741.53') ? undefined : 'Q1.2 reads its Cypher rows') }),
        nodeTurn('Q2.1', 'decide', { decision: '1485', rationale: 'largest output per level' }),
      ],
      { database: join(suiteDir(), 'graphs', 'USA1836.lbug'), engine: 'kuzu', question: 'Which building id should we increase a level by 5 to maximally decrease the market price of furniture?', simulator: { rules: 'compat', known: { goods: 'furniture' } } },
    );
    server.verify();
    expect(result).toMatchObject({ status: 'answered', decision: '1485' });
    expect(events.find((event) => event.type === 'decision')).toMatchObject({ verification: { agrees: true } });
    expect(events.filter((event) => event.type === 'query-end').every((event) => event.type === 'query-end' && event.error === null)).toBe(true);
  }, 120_000);
});

describe('the registry', () => {
  it('lists Plan*RAG and its variants', () => {
    expect(techniqueIds()).toEqual(expect.arrayContaining(['plan-dag', 'plan-dag-faithful', 'plan-dag-base', 'plan-dag-react', 'plan-dag-replan']));
  });
});
