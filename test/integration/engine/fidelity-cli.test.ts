import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../../src-main/audit/hash-chain';
import type { RunEvent } from '../../../src-main/contract/run';
import { runDwb } from '../../support/cli';
import { devQuestions, techniqueModel, writeQuestionFile } from '../../support/dqa-technique-model';
import { sqliteFromDqaDump } from '../../support/fixtures';
import { nodeTurn, plannerTurn, queryTurn } from '../../support/plan-dag-script';
import { preferring } from '../dellma/scripted-dellma-model';
import { type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptStep } from '../../support/scripted-openai';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { useScriptedOpenAiServers } from '../../support/lifecycle';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
let database = '';
let questionFile = '';

beforeAll(() => {
  database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
  questionFile = join(suiteDir(), 'question.txt');
  writeFileSync(questionFile, 'Where should SWE place its merchant to maximise profit at baltic_sea?');
});

const serve = useScriptedOpenAiServers();

const events = (out: string): RunEvent[] =>
  readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as LoggedEvent).event as RunEvent);
const runStart = (out: string) => events(out).find((event): event is Extract<RunEvent, { type: 'run-start' }> => event.type === 'run-start');
const offered = (request: ReceivedChatRequest): string[] => (request.chat.tools ?? []).map((tool) => tool.function.name);
const switches = (out: string): Record<string, boolean> => Object.fromEntries((runStart(out)?.fidelity?.extensions ?? []).map((extension) => [extension.id, extension.on]));

/** Plan, one query naming a column the table does not have, then the answer. */
const mistypedColumn: ScriptStep[] = [
  { toolCalls: [{ name: 'plan', arguments: { steps: ['Home node values', 'Decide'] } }] },
  { toolCalls: [{ name: 'query', arguments: { query: "SELECT local_valu FROM trade_node WHERE trade_node = 'baltic_sea'" } }] },
  { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'It feeds the home node.' } }] },
];

const planragArgs = (server: ScriptedOpenAiServer, out: string, extra: string[] = []): string[] => [
  'run',
  '--connection',
  `sqlite:${database}`,
  '--question-file',
  questionFile,
  '--technique',
  'planrag',
  '--base-url',
  server.baseUrl,
  '--model',
  'scripted',
  '--tool-mode',
  'tools',
  '--simulator',
  'compat',
  '--country',
  'SWE',
  '--home',
  'baltic_sea',
  '--out',
  out,
  ...extra,
];

const failedObservation = (out: string): string => {
  const observation = events(out).find((event): event is Extract<RunEvent, { type: 'observation' }> => event.type === 'observation');
  return observation?.text ?? '';
};

describe('dwb run --fidelity', () => {
  it('paper: every request at temperature 0, no simulate or what-if tool offered, the database’s own message only, all recorded in run-start', async () => {
    const server = await serve(mistypedColumn);
    const out = tempDir();
    const result = await runDwb(planragArgs(server, out, ['--fidelity', 'paper']));
    expect(result.code, result.stderr).toBe(0);
    server.verify();
    expect(result.stderr).toContain('fidelity: paper (temperature 0; extensions on: none)');
    expect(server.chatRequests().map((request) => request.chat.temperature)).toEqual([0, 0, 0]);
    expect(server.chatRequests().flatMap(offered)).not.toContain('simulate');
    expect(server.chatRequests().flatMap(offered)).not.toContain('whatif');
    expect(failedObservation(out)).toBe('Error (unknown-object): SQLite: no such column: local_valu');
    expect(runStart(out)?.fidelity).toMatchObject({ fidelity: 'paper', temperature: 0, temperatureFrom: 'paper' });
    expect(switches(out)).toEqual({ 'query-feedback': false, 'simulate-tool': false, 'whatif-tool': false });
    expect(runStart(out)?.model.temperature).toBe(0);
  });

  it('product (the default of dwb run): the settings’ temperature, simulate and what-if offered, the richer feedback, said on stderr and recorded', async () => {
    const server = await serve(mistypedColumn);
    const out = tempDir();
    const result = await runDwb(planragArgs(server, out));
    expect(result.code, result.stderr).toBe(0);
    server.verify();
    expect(result.stderr).toContain('fidelity: product (');
    expect(server.chatRequests().map((request) => request.chat.temperature)).toEqual([0.2, 0.2, 0.2]);
    expect(offered(server.chatRequests()[1] as ReceivedChatRequest)).toEqual(expect.arrayContaining(['query', 'simulate', 'whatif']));
    const observation = failedObservation(out);
    expect(observation).toContain('no such column: local_valu');
    expect(observation).toContain('local_value');
    expect(observation).toContain('Correct the query');
    expect(runStart(out)?.fidelity).toMatchObject({ fidelity: 'product', temperature: null });
    expect(switches(out)).toEqual({ 'query-feedback': true, 'simulate-tool': true, 'whatif-tool': true });
  });

  it('--temperature is sent on every request and recorded as the option’s', async () => {
    const server = await serve(mistypedColumn);
    const out = tempDir();
    const result = await runDwb(planragArgs(server, out, ['--fidelity', 'paper', '--temperature', '0.6']));
    expect(result.code, result.stderr).toBe(0);
    expect(server.chatRequests().map((request) => request.chat.temperature)).toEqual([0.6, 0.6, 0.6]);
    expect(runStart(out)?.fidelity).toMatchObject({ fidelity: 'paper', temperature: 0.6, temperatureFrom: 'option' });
    expect(runStart(out)?.model.temperature).toBe(0.6);
  });

  it('--extension switches one extension against the fidelity: paper with the richer feedback on', async () => {
    const server = await serve(mistypedColumn);
    const out = tempDir();
    const result = await runDwb(planragArgs(server, out, ['--fidelity', 'paper', '--extension', 'query-feedback=on']));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('fidelity: paper (temperature 0; extensions on: Richer database feedback)');
    expect(failedObservation(out)).toContain('local_value');
    expect(server.chatRequests().flatMap(offered)).not.toContain('simulate');
    expect(switches(out)).toEqual({ 'query-feedback': true, 'simulate-tool': false, 'whatif-tool': false });
  });

  it('refuses a fidelity or a temperature it does not know, before any model call', async () => {
    const server = await serve([]);
    const wrongFidelity = await runDwb(planragArgs(server, tempDir(), ['--fidelity', 'exact']));
    expect(wrongFidelity.code).not.toBe(0);
    expect(wrongFidelity.stderr).toContain('--fidelity must be paper or product, got "exact"');
    const wrongTemperature = await runDwb(planragArgs(server, tempDir(), ['--temperature', '3']));
    expect(wrongTemperature.stderr).toContain('--temperature takes a number from 0 to 2, got "3"');
    expect(server.chatRequests()).toHaveLength(0);
  });
});

const badProgram = (index: number): ScriptStep => ({
  expectTools: ['program'],
  toolCalls: [{ name: 'program', arguments: { program: `New actions:\n- None\n\n1. out1 = LOOKUP(DB, "baltic_sea", "local_value") : home values\n2. out2 = NOPE_${index}(DB) : x` } }],
});

const pearlArgs = (server: ScriptedOpenAiServer, out: string, fidelity: string): string[] => [
  'run',
  '--connection',
  `sqlite:${database}`,
  '--question-file',
  questionFile,
  '--technique',
  'pearl',
  '--base-url',
  server.baseUrl,
  '--model',
  'scripted',
  '--tool-mode',
  'tools',
  '--simulator',
  'off',
  '--max-steps',
  '30',
  '--fidelity',
  fidelity,
  '--out',
  out,
];

describe('Pearl by fidelity', () => {
  it('paper: the plan at 256 tokens a call, then the paper’s zero-shot answer (no queries), recorded as such', async () => {
    const script: ScriptStep[] = Array.from({ length: 8 }, (_, index) => badProgram(index + 1));
    script.push({ expectTools: ['answer'], expectLastMessageContains: 'without any query', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'A guess from the layout.' } }] });
    const server = await serve(script);
    const out = tempDir();
    const result = await runDwb(pearlArgs(server, out, 'paper'));
    expect(result.code, result.stderr).toBe(0);
    server.verify();
    const requests = server.chatRequests();
    expect(requests.slice(0, 8).map((request) => request.chat.max_tokens)).toEqual(Array.from({ length: 8 }, () => 256));
    expect(requests[8]?.chat.max_tokens).toBe(512);
    expect(requests.every((request) => request.chat.temperature === 0)).toBe(true);
    const fallback = events(out).find((event) => event.type === 'tool' && event.tool === 'pearl-fallback');
    expect(fallback).toMatchObject({ input: { attempts: 8, fallback: 'zero-shot', category: 'OTH' } });
    expect(events(out).some((event) => event.type === 'query-start')).toBe(false);
    expect(runStart(out)?.fidelity?.callMaxTokens).toEqual({ plan: 256, step: 512, mapping: 512 });
    expect(switches(out)).toEqual({ 'query-feedback': false, 'pearl-query-retry': false, 'pearl-parallel-steps': false, 'pearl-planrag-fallback': false });
  });

  it('product: the settings’ token limit, and PlanRAG answers when no program parses', async () => {
    const script: ScriptStep[] = Array.from({ length: 8 }, (_, index) => badProgram(index + 1));
    script.push(
      { expectTools: ['plan'], toolCalls: [{ name: 'plan', arguments: { steps: ['Upstream nodes', 'Decide'] } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'It feeds the home node.' } }] },
    );
    const server = await serve(script);
    const out = tempDir();
    const result = await runDwb(pearlArgs(server, out, 'product'));
    expect(result.code, result.stderr).toBe(0);
    server.verify();
    expect(server.chatRequests().map((request) => request.chat.max_tokens)).toEqual(Array.from({ length: 10 }, () => 2048));
    expect(events(out).find((event) => event.type === 'tool' && event.tool === 'pearl-fallback')).toMatchObject({ input: { fallback: 'planrag' } });
    expect(switches(out)['pearl-planrag-fallback']).toBe(true);
  });
});

/** A Plan*RAG graph of two roots and a join, each node's calls matched by its id. */
const planDagScript = (): ScriptStep[] => [
  plannerTurn({
    nodes: [
      { id: 'Q1.1', question: 'Which trade nodes have a flow into baltic_sea?' },
      { id: 'Q1.2', question: "What is SWE's base trading power at each node?" },
      { id: 'Q2.1', question: 'Which of <A1.1> is best for SWE given A1.2?', parents: ['Q1.1', 'Q1.2'], compute: true },
    ],
    final: 'Q2.1',
  }),
  queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source"),
  queryTurn('Q1.2', "SELECT trade_node, base_trading_power FROM node_country WHERE country_name = 'SWE'"),
  nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }),
  nodeTurn('Q1.2', 'answer', { answer: 'krakow 7.98, novgorod 11.795' }),
  nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'krakow feeds baltic_sea.' }),
];

describe('Plan*RAG by fidelity', () => {
  it('sends every call, its own calls included, at temperature 0 at paper fidelity and at the settings’ at product', async () => {
    const temperatures = async (fidelity: string): Promise<(number | null | undefined)[]> => {
      const server = await serve(planDagScript());
      const result = await runDwb(['run', '--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'plan-dag', '--base-url', server.baseUrl, '--model', 'scripted', '--simulator', 'off', '--fidelity', fidelity, '--out', tempDir()]);
      expect(result.code, result.stderr).toBe(0);
      server.verify();
      return server.chatRequests().map((request) => request.chat.temperature);
    };
    expect(await temperatures('paper')).toEqual([0, 0, 0, 0, 0, 0]);
    expect(await temperatures('product')).toEqual([0.2, 0.2, 0.2, 0.2, 0.2, 0.2]);
  });
});

describe('dwb dqa solve --engine', () => {
  it('runs at paper fidelity by default and at product fidelity when asked, each said and recorded per question', async () => {
    const questions = devQuestions('locating', ['L2']);
    const file = writeQuestionFile(join(tempDir(), 'one.json'), 'locating', questions);
    const scripts = new Map(questions.map((question) => [question.id, { queries: ['SELECT count(*) AS nodes FROM trade_node'], answer: question.answer }]));
    const solve = async (extra: string[]): Promise<{ out: string; server: ScriptedOpenAiServer; stderr: string }> => {
      const server = await serve(techniqueModel(questions, scripts, { turns: 3 }));
      const out = tempDir();
      const result = await runDwb(['dqa', 'solve', '--questions', file, '--engine', 'iterrag', '--db', 'rdb', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--out', out, ...extra], { timeoutMs: 120_000 });
      expect(result.code, result.stderr).toBe(0);
      return { out, server, stderr: result.stderr };
    };
    const paper = await solve([]);
    expect(paper.stderr).toContain('fidelity: paper (temperature 0; extensions on: none)');
    expect(paper.server.chatRequests().map((request) => request.chat.temperature)).toEqual([0, 0]);
    expect(runStart(join(paper.out, 'L2'))?.fidelity).toMatchObject({ fidelity: 'paper', temperature: 0 });

    const product = await solve(['--fidelity', 'product', '--temperature', '0.4']);
    expect(product.stderr).toContain('fidelity: product (temperature 0.4; extensions on: Richer database feedback)');
    expect(product.server.chatRequests().map((request) => request.chat.temperature)).toEqual([0.4, 0.4]);
    expect(runStart(join(product.out, 'L2'))?.fidelity).toMatchObject({ fidelity: 'product', temperature: 0.4, temperatureFrom: 'option' });
  });
});

describe('dwb dellma solve', () => {
  it('runs at paper fidelity by default (every call at 0, recorded); --temperature replaces the greedy 0 and is recorded', async () => {
    const solve = async (extra: string[]): Promise<{ temperatures: (number | null | undefined)[]; record: { fidelity: unknown }; stderr: string }> => {
      const server = await serve(Array.from({ length: 4 }, () => preferring('apple')));
      const out = tempDir();
      const result = await runDwb(['dellma', 'solve', '--problems', 'agriculture', '--limit', '1', '--samples', '8', '--batch', '8', '--base-url', server.baseUrl, '--model', 'scripted', '--out', out, ...extra]);
      expect(result.code, result.stderr).toBe(0);
      server.verify();
      return { temperatures: server.chatRequests().map((request) => request.chat.temperature), record: JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as { fidelity: unknown }, stderr: result.stderr };
    };
    const paper = await solve([]);
    expect(paper.temperatures).toEqual([0, 0, 0, 0]);
    expect(paper.stderr).toContain('fidelity: paper (temperature 0');
    expect(paper.record.fidelity).toEqual({ fidelity: 'paper', temperature: 0, temperatureFrom: 'paper', reAsks: 0 });
    const warmer = await solve(['--fidelity', 'product', '--temperature', '0.3']);
    expect(warmer.temperatures).toEqual([0.3, 0.3, 0.3, 0.3]);
    expect(warmer.record.fidelity).toEqual({ fidelity: 'product', temperature: 0.3, temperatureFrom: 'option', reAsks: 1 });
  });
});
