import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findChainBreak, type LoggedEvent } from '../../../src-main/audit/hash-chain';
import type { RunEvent } from '../../../src-main/contract/run';
import { openSqliteConnector } from '../../../src-main/connectors/sqlite/sqlite-connector';
import { defaultRunLimits, runDecision, type DecisionRunOptions, type ResumeState } from '../../../src-main/engine/decision-run';
import type { ReviewDecision, ReviewGate, ReviewRequest } from '../../../src-main/engine/review-gate';
import { runToDirectory } from '../../../src-main/engine/run-setup';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { simulatorFor } from '../../../src-main/simulators/run-simulator';
import { seedLibrary } from '../../../src-main/engine/techniques/pearl/library';
import { refineDemonstration, withDemonstration } from '../../../src-main/engine/techniques/pearl/refine';
import { parseProviderSettings } from '../../../src-main/llm/settings';
import { runDqaImportCommand } from '../../../src-main/cli/dqa-import-command';
import { dqaRoot, fileHash, sqliteFromDqaDump } from '../../support/fixtures';
import { runDwb } from '../../support/cli';
import { messageText, type ReceivedChatRequest, type ScriptStep } from '../../support/scripted-openai';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { useScriptedOpenAiServers } from '../../support/lifecycle';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
let database = '';
beforeAll(() => {
  database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
});
const serve = useScriptedOpenAiServers();

const question = 'Where should SWE place its merchant to maximise its profit on the home node baltic_sea?';

const program = (text: string): ScriptStep => ({ expectTools: ['program'], toolCalls: [{ name: 'program', arguments: { program: text } }] });
const query = (text: string, expectLast?: string | string[]): ScriptStep => ({ expectTools: ['query'], ...(expectLast ? { expectLastMessageContains: expectLast } : {}), toolCalls: [{ name: 'query', arguments: { query: text } }] });
const output = (text: string, expectResult?: string | string[]): ScriptStep => ({
  expectTools: ['output'],
  ...(expectResult ? { expectToolResultContains: expectResult } : {}),
  toolCalls: [{ name: 'output', arguments: { output: text } }],
});

async function run(script: ScriptStep[], options: { simulate?: boolean; toolMode?: 'tools' | 'text' } = {}) {
  const server = await serve(script);
  const outDir = tempDir();
  const result = await runToDirectory({
    outDir,
    question,
    rules: 'profit(c) = (LV(h) + IV(h)) * TPR(h, c)',
    technique: 'pearl',
    connection: { target: { engine: 'sqlite', path: database }, description: 'locating 1445' },
    model: { settings: parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: options.toolMode ?? 'tools' }) },
    simulator: options.simulate === false ? { rules: 'off', known: {} } : { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } },
    whatIf: false,
    limits: { maxSteps: 30 },
  });
  server.verify();
  const events = readFileSync(join(outDir, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
  expect(findChainBreak(events)).toBeNull();
  const notebook = JSON.parse(readFileSync(join(outDir, 'notebook.json'), 'utf8')) as { cells: { kind: string; source: string; provenance: { node?: string }; data: Record<string, unknown> }[] };
  return { server, result, events: events.map((entry) => entry.event as RunEvent), notebook };
}

/** A step's turn, matched by the step it serves: independent steps run at once and may ask in any order. */
const forStep = (id: string, turn: ScriptStep): ScriptStep => ({ ...(turn as object), when: `(its result becomes ${id})` }) as ScriptStep;
/** Step ids in the order their records came, checked against the program's references rather than one fixed order. */
function expectDependencyOrder(nodes: (string | undefined)[], ids: string[], dependsOn: Record<string, string[]>): void {
  expect([...nodes].sort()).toEqual([...ids].sort());
  for (const [id, inputs] of Object.entries(dependsOn)) for (const input of inputs) expect(nodes.indexOf(input)).toBeLessThan(nodes.indexOf(id));
}

type ToolEvent = Extract<RunEvent, { type: 'tool' }>;
const toolEvents = (events: RunEvent[], tool: string): ToolEvent[] => events.filter((event): event is ToolEvent => event.type === 'tool' && event.tool === tool);
const lastMessage = (request: ReceivedChatRequest | undefined): string => (request ? messageText(request.chat.messages.at(-1) as never) : '');
const offersProgram = (request: ReceivedChatRequest): boolean => (request.chat.tools ?? []).some((tool) => tool.function.name === 'program');

const bad = (step: string): string => `New actions:\n- None\n\n1. out1 = LOOKUP(DB, "baltic_sea", "local_value") : home values\n${step}`;
const listCandidates = 'New actions:\n- None\n\n1. out1 = LIST_CANDIDATES(DB, "trade nodes that feed baltic_sea") : where the merchant could go';

describe('Pearl: self-correction', () => {
  it('sends 3 invalid programs back with every error so far, and runs the 4th (4 planner calls)', async () => {
    const invalid = [bad('2. out2 = FIND_FLOW(DB, "baltic_sea") : flows'), bad('2. out2 = LOOKUP(DB, out1) : again'), bad('3. out2 = CONCAT(out1) : join')];
    const { server, result, events, notebook } = await run([
      program(invalid[0] as string),
      { ...program(invalid[1] as string), expectLastMessageContains: 'unknown action FIND_FLOW' },
      { ...program(invalid[2] as string), expectLastMessageContains: ['LOOKUP(DB, entity, attributes) takes 3 arguments, found 2', 'unknown action FIND_FLOW'] },
      program(listCandidates),
      query("SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source"),
      output('krakow', 'krakow'),
    ]);
    expect(result).toMatchObject({ status: 'answered', decision: 'krakow' });
    const planner = server.chatRequests().filter(offersProgram);
    expect(planner).toHaveLength(4);
    const fix = lastMessage(planner[3]);
    const attempts = toolEvents(events, 'pearl-program');
    expect(attempts.map((event) => (event.input as { valid: boolean }).valid)).toEqual([false, false, false, true]);
    const everyError = attempts.slice(0, 3).flatMap((event) => (event.input as { errors: { line: number; column: number; message: string }[] }).errors);
    expect(everyError).toHaveLength(3);
    for (const error of everyError) expect(fix).toContain(`line ${error.line}, column ${error.column}: ${error.message}`);
    expect(fix).toContain(invalid[2]);
    expect(everyError.map((error) => error.message)).toEqual([
      expect.stringContaining('unknown action FIND_FLOW'),
      expect.stringContaining('takes 3 arguments, found 2'),
      'steps are numbered 1, 2, 3, … in order: expected 2, found 3',
    ]);
    // The fourth program was carried out: its step's query ran under its id.
    const started = events.filter((event) => event.type === 'query-start');
    expect(started.map((event) => event.type === 'query-start' && event.node)).toEqual(['out1']);
    // The run log keeps every attempt; the notebook gathers them in one program cell, the accepted program on top.
    const programCells = notebook.cells.filter((cell) => cell.data['tool'] === 'pearl-program');
    expect(programCells).toHaveLength(1);
    const gathered = programCells[0]?.data as { input: { attempt: number; program: string; valid: boolean; library: { actions: number } }; attempts: { attempt: number; valid: boolean; program: string; errors: unknown[] }[] };
    expect(gathered.attempts.map((attempt) => [attempt.attempt, attempt.valid, attempt.errors.length])).toEqual([[1, false, 1], [2, false, 1], [3, false, 1], [4, true, 0]]);
    expect(gathered.attempts.map((attempt) => attempt.program)).toEqual([...invalid, listCandidates]);
    expect(gathered.input).toMatchObject({ attempt: 4, program: listCandidates, valid: true, library: expect.objectContaining({ actions: expect.any(Number) }) });
    for (let attempt = 1; attempt <= 4; attempt++) expect(programCells[0]?.source).toContain(`Program, attempt ${attempt} of 8:`);
  });

  it('falls back to PlanRAG after 8 invalid programs, with an audit entry and a labelled cell', async () => {
    const script: ScriptStep[] = Array.from({ length: 8 }, (_, index) => program(bad(`2. out2 = NOPE_${index + 1}(DB) : x`)));
    script.push(
      { expectTools: ['plan'], expect: (request) => (request.chat.messages[0] && messageText(request.chat.messages[0]).includes('First make a plan') ? undefined : 'not the PlanRAG prompt'), toolCalls: [{ name: 'plan', arguments: { steps: ['Upstream nodes', 'Decide'] } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'It feeds the home node.' } }] },
    );
    const { server, result, events, notebook } = await run(script);
    expect(result).toMatchObject({ status: 'answered', decision: 'krakow', steps: 10 });
    expect(server.chatRequests().filter(offersProgram)).toHaveLength(8);
    expect(lastMessage(server.chatRequests()[7])).toContain('unknown action NOPE_1');
    expect(lastMessage(server.chatRequests()[7])).toContain('unknown action NOPE_7');
    const [fallback] = toolEvents(events, 'pearl-fallback');
    expect(fallback?.input).toMatchObject({ attempts: 8, fallback: 'planrag', category: 'OTH' });
    expect((fallback?.input as { errors: string[] }).errors).toHaveLength(8);
    expect(events.find((event) => event.type === 'run-start')).toMatchObject({ technique: 'pearl' });
    expect(notebook.cells.some((cell) => cell.kind === 'observation' && cell.source.includes('falling back to PlanRAG'))).toBe(true);
    // Eight refusals are one program cell listing eight attempts, not eight cards.
    const programCells = notebook.cells.filter((cell) => cell.data['tool'] === 'pearl-program');
    expect(programCells).toHaveLength(1);
    expect((programCells[0]?.data['attempts'] as { valid: boolean }[]).map((attempt) => attempt.valid)).toEqual(Array.from({ length: 8 }, () => false));
    expect(notebook.cells.at(-1)?.kind).toBe('decision');
    // The decision, and the record at the run's end, say PlanRAG made it as Pearl's fallback.
    const origin = { technique: 'planrag', label: 'PlanRAG', fallback: { of: 'pearl', ofLabel: 'Pearl', reason: 'after 8 refused programs' }, toolAssisted: null };
    expect(events.find((event) => event.type === 'decision')).toMatchObject({ decision: 'krakow', origin });
    expect(result.decidedBy).toEqual(origin);
    const end = events.at(-1);
    expect(end?.type === 'run-end' && end.producedBy).toMatchObject({
      technique: 'pearl',
      decidedBy: origin,
      fallbacks: [{ from: 'pearl', to: 'planrag', reason: 'after 8 refused programs' }],
      model: { configured: 'scripted', served: ['scripted'], endpoint: server.baseUrl, file: null },
      maxSteps: 30,
      toolMode: 'tools',
    });
    expect(end?.type === 'run-end' && end.producedBy?.structuredOutput).toHaveLength(10);
    expect(end?.type === 'run-end' && end.producedBy?.productVersion).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('Pearl: execution', () => {
  it('works with models without tool calling: the program, the query and the output as plain-text reply forms', async () => {
    const { result, events, server } = await run(
      [
        { content: `Program:\n${listCandidates}\n2. out2 = ARGMAX(out1, "SWE profit") : the best one` },
        { expect: (request) => (messageText(request.chat.messages[0] as never).includes('Action: query') ? undefined : 'the query reply form is not in the system prompt'), content: "Thought: the feeding nodes\nAction: query\nAction Input:\nSELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" },
        { expectLastMessageContains: ['Observation:', 'krakow'], content: 'Output:\nkrakow and others feed baltic_sea' },
        { expectLastMessageContains: '(the output of out1)\nkrakow and others feed baltic_sea', content: 'Output:\nkrakow' },
      ],
      { toolMode: 'text' },
    );
    expect(result).toMatchObject({ status: 'answered', decision: 'krakow' });
    expect(server.chatRequests().every((request) => request.chat.tools === undefined)).toBe(true);
    expect(toolEvents(events, 'pearl-step').map((event) => event.node)).toEqual(['out1', 'out2']);
  });

  it('runs steps in order with exact bindings, CONCAT in code, a new action with its definition, and answers with every sink', async () => {
    const text = [
      'New actions:',
      '- HOME_INFLOW(DB, node) : the value flowing into a node from the nodes upstream of it',
      '',
      '1. out1 = LOOKUP(DB, "baltic_sea", "local_value, ingoing") : the home node values',
      '2. out2 = HOME_INFLOW(DB, "baltic_sea") : what flows in',
      '3. out3 = CONCAT(out1, "note: (a, b)") : the home values with a note',
    ].join('\n');
    const { server, result, events, notebook } = await run([
      program(text),
      forStep('out1', query("SELECT local_value, ingoing FROM trade_node WHERE trade_node = 'baltic_sea'", ['LOOKUP(DB, entity, attributes)', 'entity = "baltic_sea"', 'attributes = "local_value, ingoing"'])),
      forStep('out1', output('local value 5.665', '5.665')),
      forStep('out2', query("SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY source", ['HOME_INFLOW(DB, node) : the value flowing into a node from the nodes upstream of it', 'node = "baltic_sea"'])),
      forStep('out2', output('inflow from krakow', 'krakow')),
      {
        expectTools: ['answer'],
        expectLastMessageContains: ['inflow from krakow\nlocal value 5.665\nnote: (a, b)', 'krakow'],
        toolCalls: [{ name: 'answer', arguments: { decision: 'Krakow', rationale: 'the inflow comes from krakow' } }],
      },
    ]);
    expect(result).toMatchObject({ status: 'answered', decision: 'krakow' });
    expect(server.chatRequests()).toHaveLength(6); // CONCAT made no call
    const steps = toolEvents(events, 'pearl-step');
    expectDependencyOrder(steps.map((event) => event.node), ['out1', 'out2', 'out3'], { out3: ['out1'] });
    const step = (id: string) => steps.find((event) => event.node === id);
    expect(['out1', 'out2', 'out3'].map((id) => (step(id)?.input as { kind: string }).kind)).toEqual(['database', 'database', 'code']);
    expect(step('out3')?.output).toContain('local value 5.665\nnote: (a, b)');
    expect((step('out3')?.input as { args: { value: string }[] }).args.map((arg) => arg.value)).toEqual(['local value 5.665', 'note: (a, b)']);
    // Each database step records its own query, though the two ran at once.
    expect(['out1', 'out2'].map((id) => (step(id)?.input as { queries: string[] }).queries.length)).toEqual([1, 1]);
    expect((step('out1')?.input as { queries: string[] }).queries).not.toEqual((step('out2')?.input as { queries: string[] }).queries);
    const [mapping] = toolEvents(events, 'pearl-mapping');
    expect(mapping?.input).toMatchObject({ sinks: ['out2', 'out3'], method: 'model', decision: 'krakow', mappingError: false });
    const plan = events.find((event) => event.type === 'plan');
    expect(plan?.type === 'plan' && plan.nodes?.map((node) => [node.id, node.dependsOn])).toEqual([['out1', []], ['out2', []], ['out3', ['out1']]]);
    // Cells address the steps by id: the program, each step's query and its record.
    expect(notebook.cells.filter((cell) => cell.kind === 'query').map((cell) => cell.provenance.node).sort()).toEqual(['out1', 'out2']);
    expect(notebook.cells.filter((cell) => cell.data['tool'] === 'pearl-step').map((cell) => cell.provenance.node).sort()).toEqual(['out1', 'out2', 'out3']);
    expect(notebook.cells.find((cell) => cell.data['tool'] === 'pearl-program')?.source).toContain('The parser accepts it: 3 steps.');
    const decision = events.find((event) => event.type === 'decision');
    expect(decision?.type === 'decision' && decision.verification?.agrees).toBe(true);
  });

  it('step-through: the analyst edits the program before it runs; an edit the parser refuses comes back with its errors', async () => {
    const server = await serve([
      program(`${listCandidates}\n2. out2 = ARGMAX(out1, "SWE profit") : the best one`),
      query("SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source", 'decision_type = "feeders of baltic_sea"'),
      output('krakow', 'krakow'),
    ]);
    const connector = openSqliteConnector({ path: database });
    try {
      const reviews: ReviewRequest[] = [];
      const answers: ReviewDecision[] = [
        { action: 'edit', steps: ['out1 = LIST_CANDIDATES(DB, "feeders of baltic_sea") : where the merchant could go', 'out2 = PICK(out1) : pick one'] },
        { action: 'edit', steps: ['out1 = LIST_CANDIDATES(DB, "feeders of baltic_sea") : where the merchant could go'] },
      ];
      const gate: ReviewGate = { interactive: true, review: async (request) => (reviews.push(request), answers.shift() ?? { action: 'approve' }) };
      const events: RunEvent[] = [];
      const outcome = await runDecision({
        question,
        rules: '',
        technique: 'pearl',
        connector,
        connectionDescription: 'locating 1445',
        provider: createOpenAiProvider({ baseUrl: server.baseUrl, model: 'scripted', requestTimeoutMs: 5000, maxRetries: 0, toolMode: 'tools' }),
        toolMode: 'tools',
        limits: defaultRunLimits,
        gate,
        emit: (event) => events.push(event),
        simulator: (await simulatorFor(connector, { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } })) ?? undefined,
      });
      server.verify();
      expect(outcome).toMatchObject({ status: 'answered', decision: 'krakow' });
      expect(reviews.map((request) => request.subject)).toEqual(['replan', 'replan', 'query']);
      expect(reviews[0]?.subject === 'replan' && reviews[0].steps).toEqual(['out1 = LIST_CANDIDATES(DB, "trade nodes that feed baltic_sea") : where the merchant could go', 'out2 = ARGMAX(out1, "SWE profit") : the best one']);
      expect(reviews[1]?.subject === 'replan' && reviews[1].reason).toContain('line 5, column 11: unknown action PICK');
      expect(reviews[1]?.subject === 'replan' && reviews[1].steps).toHaveLength(2); // the analyst's own lines come back
      const attempts = toolEvents(events, 'pearl-program').map((event) => event.input as { author?: string; valid: boolean });
      expect(attempts.map((attempt) => [attempt.author ?? 'model', attempt.valid])).toEqual([['model', true], ['analyst', false], ['analyst', true]]);
      expect(events.filter((event) => event.type === 'analyst-review').map((event) => event.type === 'analyst-review' && event.action)).toEqual(['edit', 'edit', 'approve']);
      expect(toolEvents(events, 'pearl-step').map((event) => event.node)).toEqual(['out1']);
    } finally {
      await connector.close();
    }
  });

  it('resumes an interrupted run with its program and the outputs it had reached: no new plan, done steps not run again', async () => {
    const connector = openSqliteConnector({ path: database });
    try {
      const simulator = (await simulatorFor(connector, { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } })) ?? undefined;
      const options = (baseUrl: string, events: RunEvent[]): DecisionRunOptions => ({
        question,
        rules: '',
        technique: 'pearl',
        connector,
        connectionDescription: 'locating 1445',
        provider: createOpenAiProvider({ baseUrl, model: 'scripted', requestTimeoutMs: 5000, maxRetries: 0, toolMode: 'tools' }),
        toolMode: 'tools',
        limits: defaultRunLimits,
        gate: { interactive: false, review: async () => ({ action: 'approve' }) },
        emit: (event) => events.push(event),
        ...(simulator ? { simulator } : {}),
      });
      const first = await serve([
        program(`${listCandidates}\n2. out2 = ARGMAX(out1, "SWE profit") : the best one`),
        query("SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source"),
        output('feeders: krakow', 'krakow'),
        { fail: { status: 500, message: 'the server went away' } },
      ]);
      const checkpoints: ResumeState[] = [];
      const before: RunEvent[] = [];
      const stopped = await runDecision({ ...options(first.baseUrl, before), onCheckpoint: (state) => checkpoints.push(state) });
      first.verify();
      expect(stopped.status).toBe('failed');
      const last = checkpoints.at(-1);
      expect(last?.technique).toMatchObject({ outputs: { out1: 'feeders: krakow' } });

      const second = await serve([{ expectTools: ['output'], expectLastMessageContains: '(the output of out1)\nfeeders: krakow', toolCalls: [{ name: 'output', arguments: { output: 'krakow' } }] }]);
      const after: RunEvent[] = [];
      const resumed = await runDecision({ ...options(second.baseUrl, after), resume: last as ResumeState });
      second.verify();
      expect(resumed).toMatchObject({ status: 'answered', decision: 'krakow' });
      expect(after.map((event) => event.type)).toContain('run-resume');
      expect(after.some((event) => event.type === 'plan' || event.type === 'query-start')).toBe(false);
      expect(toolEvents(after, 'pearl-step').map((event) => event.node)).toEqual(['out2']);
    } finally {
      await connector.close();
    }
  });

  it('keeps a new action in its program: the next run does not know it; a decision naming no candidate is a mapping error', async () => {
    const { events } = await run([
      program('New actions:\n- None\n\n1. out1 = HOME_INFLOW(DB, "baltic_sea") : what flows in'),
      { ...program(listCandidates), expectLastMessageContains: 'unknown action HOME_INFLOW' },
      query("SELECT source FROM flow WHERE dest = 'baltic_sea'"),
      output('the node north of here'),
      { expectTools: ['answer'], toolCalls: [{ name: 'answer', arguments: { decision: 'atlantis', rationale: 'north' } }] },
    ]);
    expect(seedLibrary().actions.map((action) => action.name)).not.toContain('HOME_INFLOW');
    const [mapping] = toolEvents(events, 'pearl-mapping');
    expect(mapping?.input).toMatchObject({ method: 'model', decision: 'atlantis', mappingError: true, error: expect.stringContaining('"atlantis" is none of the') });
    const decision = events.find((event) => event.type === 'decision');
    expect(decision?.type === 'decision' && decision.verification?.agrees).toBe(false);
  });
});

/**
 * The Done-when: the first program references an undefined output, the parser's message goes
 * back, the corrected program runs step by step through `dwb run --technique pearl` on a DQA
 * database, and the simulator checks the decision — on SQLite and on Kùzu.
 */
describe('dwb run --technique pearl on DQA data', () => {
  const first = 'New actions:\n- None\n\n1. out1 = LOOKUP(DB, "baltic_sea", "local_value, ingoing") : the home node values\n2. out2 = ARGMAX(out9, "SWE profit") : the best node';
  const corrected = [
    'New actions:',
    '- None',
    '',
    '1. out1 = LOOKUP(DB, "baltic_sea", "local_value, ingoing") : the home node values',
    '2. out2 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node',
    '3. out3 = CONCAT(out1, out2) : the evidence together',
    '4. out4 = ARGMAX(out3, "SWE profit on baltic_sea") : the node for the merchant',
  ].join('\n');
  const cases = [
    {
      engine: 'sqlite',
      connection: () => `sqlite:${database}`,
      lookup: "SELECT local_value, ingoing FROM trade_node WHERE trade_node = 'baltic_sea'",
      neighbors: "SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY source",
    },
    {
      engine: 'kuzu',
      connection: async () => {
        const dump = 'locating-1445-b1c118fa';
        const questions = join(suiteDir(), 'graph-questions.json');
        const { writeFileSync } = await import('node:fs');
        writeFileSync(questions, JSON.stringify([{ gdb: join(dqaRoot(), 'locating', 'db', `${dump}.cql`) }]));
        const imported = await runDqaImportCommand(['--questions', questions, '--target', `kuzu:${join(suiteDir(), 'graphs')}`], { stdout: () => undefined, stderr: () => undefined });
        expect(imported).toBe(0);
        return `kuzu:${join(suiteDir(), 'graphs', `${dump}.lbug`)}`;
      },
      lookup: "MATCH (t:Trade_node {name: 'baltic_sea'}) RETURN t.local_value AS local_value, t.ingoing AS ingoing",
      neighbors: "MATCH (s:Trade_node)-[r:source]->(d:Trade_node {name: 'baltic_sea'}) RETURN s.name AS source, r.flow AS flow ORDER BY source",
    },
  ];
  it('plans with a library given by --actions (and refuses it for another technique)', async () => {
    const dir = tempDir();
    const library = join(dir, 'lib.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      library,
      JSON.stringify({
        format: 'decision-workbench/pearl-actions',
        version: 1,
        scenario: 'locating',
        schema: 'relational',
        actions: [
          { name: 'FEEDERS', params: ['DB', 'node'], definition: 'The trade nodes that send value into a node, with each flow.', usage: 3, provenance: 'mined: round 2 from UPSTREAM, INFLOW' },
          { name: 'CONCAT', params: ['S1', 'S2'], variadic: true, definition: 'Joins its inputs, one per line.', usage: 0, provenance: 'seed' },
        ],
        demonstrations: [],
      }),
    );
    const questionFile = join(dir, 'question.txt');
    writeFileSync(questionFile, question);
    const server = await serve([
      {
        ...program('New actions:\n- None\n\n1. out1 = FEEDERS(DB, "baltic_sea") : who feeds the home node'),
        expect: (request) => {
          const system = messageText(request.chat.messages[0] as never);
          return system.includes('FEEDERS(DB, node) : The trade nodes') && !system.includes('LOOKUP(') ? undefined : 'the planner was not shown the given library';
        },
      },
      query("SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source"),
      output('krakow', 'krakow'),
      // No simulator, so no candidate list: the mapping is the model's.
      { expectTools: ['answer'], toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'It feeds the home node.' } }] },
    ]);
    const out = tempDir();
    const args = ['--connection', `sqlite:${database}`, '--question-file', questionFile, '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--simulator', 'off', '--actions', library, '--out', out];
    const result = await runDwb(['run', '--technique', 'pearl', ...args]);
    server.verify();
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('decision: krakow');
    const events = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as LoggedEvent).event as RunEvent);
    expect(toolEvents(events, 'pearl-program')[0]?.input).toMatchObject({ library: { scenario: 'locating', schema: 'relational', actions: 2 }, valid: true });
    const refused = await runDwb(['run', '--technique', 'planrag', ...args]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe('dwb run: invalid-request: --actions is for --technique pearl, not planrag');
  }, 60_000);

  it.each(cases)('on $engine', async ({ engine, connection, lookup, neighbors }) => {
    const uri = await connection();
    const questionFile = join(suiteDir(), 'pearl-question.txt');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(questionFile, question);
    const server = await serve([
      program(first),
      { ...program(corrected), expectLastMessageContains: ['line 5, column 18: out9 is neither DB, a quoted string nor an earlier output (the outputs so far: out1)', first] },
      forStep('out1', query(lookup, 'out1')),
      forStep('out1', output('baltic_sea: local value 5.665', '5.665')),
      forStep('out2', query(neighbors)),
      forStep('out2', output('feeding nodes: krakow', 'krakow')),
      { expectTools: ['output'], expectLastMessageContains: ['(the output of out3)\nbaltic_sea: local value 5.665\nfeeding nodes: krakow'], toolCalls: [{ name: 'output', arguments: { output: 'krakow' } }] },
    ]);
    const out = tempDir();
    const before = engine === 'sqlite' ? fileHash(database) : null;
    const result = await runDwb([
      'run', '--connection', uri, '--question-file', questionFile, '--technique', 'pearl', '--base-url', server.baseUrl, '--model', 'scripted',
      '--tool-mode', 'tools', '--simulator', 'compat', '--country', 'SWE', '--home', 'baltic_sea', '--out', out,
    ], { timeoutMs: 120_000 });
    server.verify();
    expect(result.stderr).toContain('pearl-program: Program, attempt 1 of 8');
    expect(result.stderr).toContain('pearl-step out3: out3 = CONCAT(out1, out2) [code]');
    expect(result.stderr).toContain('decision: krakow (simulator: optimal)');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('decision: krakow');
    if (before) expect(fileHash(database)).toBe(before);
    const log = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
    expect(findChainBreak(log)).toBeNull();
    const events = log.map((entry) => entry.event as RunEvent);
    expect(events[0]).toMatchObject({ type: 'run-start', technique: 'pearl', connection: { engine } });
    expectDependencyOrder(toolEvents(events, 'pearl-step').map((event) => event.node), ['out1', 'out2', 'out3', 'out4'], { out3: ['out1', 'out2'], out4: ['out3'] });
    expect(toolEvents(events, 'pearl-mapping')[0]?.input).toMatchObject({ method: 'exact', decision: 'krakow', sinks: ['out4'] });
    const ended = events.filter((event) => event.type === 'query-end');
    expect(ended.every((event) => event.type === 'query-end' && event.result !== null && event.result.rowCount > 0)).toBe(true);
  }, 120_000);
});

describe('Pearl: demonstration refinement against the simulator', () => {
  const wrongThenRight = (answer: string): ScriptStep[] => [
    query("SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source"),
    output(answer),
    // A wrong decision that is still a candidate (one that is none would be asked again).
    ...(answer === 'krakow' ? [] : [{ expectTools: ['answer'], toolCalls: [{ name: 'answer', arguments: { decision: 'novgorod', rationale: answer } }] } satisfies ScriptStep]),
  ];
  const programs = [1, 2, 3, 4].map((index) => `New actions:\n- None\n\n1. out1 = LIST_CANDIDATES(DB, "attempt ${index}") : where the merchant could go`);

  async function refine(script: ScriptStep[]) {
    const server = await serve(script);
    const connector = openSqliteConnector({ path: database });
    try {
      const simulator = await simulatorFor(connector, { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } });
      if (!simulator) throw new Error('no simulator fits the locating database');
      const result = await refineDemonstration({
        question,
        rules: '',
        scenario: 'locating',
        connector,
        provider: createOpenAiProvider({ baseUrl: server.baseUrl, model: 'scripted', requestTimeoutMs: 5000, maxRetries: 0, toolMode: 'tools' }),
        toolMode: 'tools',
        simulator,
      });
      server.verify();
      return { result, server };
    } finally {
      await connector.close();
    }
  }

  it('plans again with the wrong programs in the history until the simulator agrees, and keeps that program as a demonstration', async () => {
    const { result, server } = await refine([
      program(programs[0] as string),
      ...wrongThenRight('no idea'),
      { ...program(programs[1] as string), expectLastMessageContains: [programs[0] as string, 'Wrong: this program did not lead to the right decision'] },
      ...wrongThenRight('still unsure'),
      { ...program(programs[2] as string), expectLastMessageContains: [programs[0] as string, programs[1] as string, '## Attempt 2'] },
      ...wrongThenRight('krakow'),
    ]);
    expect(result.attempts.map((attempt) => [attempt.decision, attempt.correct])).toEqual([['novgorod', false], ['novgorod', false], ['krakow', true]]);
    expect(result.accepted).toEqual({ scenario: 'locating', question, program: programs[2] });
    expect(server.chatRequests().filter(offersProgram)).toHaveLength(3);
    const library = withDemonstration(seedLibrary(), result.accepted as never);
    expect(library.demonstrations.at(-1)?.program).toBe(programs[2]);
  });

  it('drops the question after 4 wrong programs', async () => {
    const script = programs.flatMap((text) => [program(text), ...wrongThenRight('no idea')]);
    const { result } = await refine(script);
    expect(result.accepted).toBeNull();
    expect(result.attempts).toHaveLength(4);
    expect(result.attempts.every((attempt) => !attempt.correct)).toBe(true);
  });
});

describe('Pearl: steps at once, and the analyst program', () => {
  async function direct(script: ScriptStep[], extra: Partial<DecisionRunOptions> = {}) {
    const server = await serve(script);
    const connector = openSqliteConnector({ path: database });
    try {
      const events: RunEvent[] = [];
      const simulator = (await simulatorFor(connector, { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } })) ?? undefined;
      const outcome = await runDecision({
        question,
        rules: '',
        technique: 'pearl',
        connector,
        connectionDescription: 'locating 1445',
        provider: createOpenAiProvider({ baseUrl: server.baseUrl, model: 'scripted', requestTimeoutMs: 5000, maxRetries: 0, toolMode: 'tools' }),
        toolMode: 'tools',
        limits: defaultRunLimits,
        gate: { interactive: false, review: async () => ({ action: 'approve' }) },
        emit: (event) => events.push(event),
        ...(simulator ? { simulator } : {}),
        ...extra,
      });
      server.verify();
      return { outcome, events, server };
    } finally {
      await connector.close();
    }
  }

  const independent = [
    'New actions:',
    '- None',
    '',
    '1. out1 = LOOKUP(DB, "baltic_sea", "local_value, ingoing") : the home node values',
    '2. out2 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node',
    '3. out3 = CONCAT(out1, out2) : the evidence together',
    '4. out4 = ARGMAX(out3, "SWE profit on baltic_sea") : the node for the merchant',
  ].join('\n');

  it('runs independent steps at once: out1 is held until out2 has asked, and out3 waits for both', async () => {
    let release: () => void = () => undefined;
    const out2Asked = new Promise<void>((resolve) => (release = resolve));
    const { outcome, events, server } = await direct([
      program(independent),
      { ...forStep('out1', query("SELECT local_value, ingoing FROM trade_node WHERE trade_node = 'baltic_sea'")), holdUntil: out2Asked },
      forStep('out1', output('baltic_sea: local value 5.665', '5.665')),
      {
        ...query("SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY source"),
        when: (request) => {
          const asks = request.messages.some((message) => typeof message.content === 'string' && message.content.includes('(its result becomes out2)'));
          if (asks) release();
          return asks;
        },
      },
      forStep('out2', output('feeding nodes: krakow', 'krakow')),
      forStep('out4', { expectTools: ['output'], expectLastMessageContains: '(the output of out3)\nbaltic_sea: local value 5.665\nfeeding nodes: krakow', toolCalls: [{ name: 'output', arguments: { output: 'krakow' } }] }),
    ]);
    expect(outcome).toMatchObject({ status: 'answered', decision: 'krakow' });
    const firstAsking = (id: string) => server.chatRequests().find((request) => request.chat.messages.some((message) => messageText(message as never).includes(`(its result becomes ${id})`)));
    const [out1Query, out2Query] = [firstAsking('out1'), firstAsking('out2')];
    // out2's query was asked for while out1's was still unanswered (out1's answer waited for it).
    expect(out1Query?.receivedAt).toBeLessThanOrEqual(out2Query?.receivedAt ?? 0);
    expect(out2Query?.receivedAt).toBeLessThanOrEqual(out1Query?.answeredAt ?? 0);
    expectDependencyOrder(toolEvents(events, 'pearl-step').map((event) => event.node), ['out1', 'out2', 'out3', 'out4'], { out3: ['out1', 'out2'], out4: ['out3'] });
    const decision = events.find((event) => event.type === 'decision');
    expect(decision?.type === 'decision' && decision.verification?.agrees).toBe(true);
  });

  it('ends once when the step limit comes while independent steps are in flight', async () => {
    const { outcome, events } = await direct(
      [
        program(independent),
        forStep('out1', query("SELECT local_value, ingoing FROM trade_node WHERE trade_node = 'baltic_sea'")),
        forStep('out2', query("SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY source")),
      ],
      { limits: { ...defaultRunLimits, maxSteps: 3 } },
    );
    expect(outcome.status).toBe('step-limit');
    expect(events.filter((event) => event.type === 'run-end')).toHaveLength(1);
    expect(toolEvents(events, 'pearl-step')).toHaveLength(0);
  });

  it('ends once when the model calls of two independent steps fail at the same instant', async () => {
    // Both failures are answered only once both requests have arrived, so both steps are in flight.
    let arrived = 0;
    let bothAsked: () => void = () => undefined;
    const together = new Promise<void>((resolve) => (bothAsked = resolve));
    const failingFor = (id: string): ScriptStep => ({
      when: (request) => {
        const asks = request.messages.some((message) => typeof message.content === 'string' && message.content.includes(`(its result becomes ${id})`));
        if (asks && ++arrived === 2) bothAsked();
        return asks;
      },
      holdUntil: together,
      fail: { status: 500, message: `the model server failed on ${id}` },
    });
    const { outcome, events } = await direct([program(independent), failingFor('out1'), failingFor('out2')]);
    expect(outcome.status).toBe('failed');
    expect(outcome.message).toMatch(/^The model call failed: .*the model server failed on out[12]/);
    const ends = events.filter((event) => event.type === 'run-end');
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({ status: 'failed', message: outcome.message });
    // Both calls were made and answered: the second failure is what a second end would have come from.
    expect(events.filter((event) => event.type === 'model-request')).toHaveLength(3);
    expect(events.at(-1)?.type).toBe('run-end');
  });

  it("runs the analyst's program without planning, and the simulator checks its decision", async () => {
    const edited = 'New actions:\n- None\n\n1. out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node';
    const { outcome, events, server } = await direct(
      [query("SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY source", 'direction = "in"'), output('krakow', 'krakow')],
      { program: edited },
    );
    expect(outcome).toMatchObject({ status: 'answered', decision: 'krakow' });
    expect(server.chatRequests().some(offersProgram)).toBe(false);
    const [record] = toolEvents(events, 'pearl-program');
    expect(record?.input).toMatchObject({ author: 'analyst', program: edited, valid: true, library: { signatures: expect.arrayContaining([expect.objectContaining({ name: 'NEIGHBORS', params: ['DB', 'node', 'relation', 'direction'] })]) } });
    const decision = events.find((event) => event.type === 'decision');
    expect(decision?.type === 'decision' && decision.verification?.agrees).toBe(true);
  });

  it("refuses an analyst's program the parser refuses, with its errors, before any model call", async () => {
    const broken = 'New actions:\n- None\n\n1. out1 = NEIGHBORS(DB, "baltic_sea") : too few arguments';
    const { outcome, events, server } = await direct([], { program: broken });
    expect(outcome.status).toBe('failed');
    expect(outcome.message).toContain("The analyst's program does not parse: line 4, column");
    expect(outcome.message).toContain('takes 4 arguments, found 2');
    expect(server.chatRequests()).toHaveLength(0);
    expect(toolEvents(events, 'pearl-program')[0]?.input).toMatchObject({ author: 'analyst', valid: false, errors: [expect.objectContaining({ code: 'arity', line: 4 })] });
  });
});
