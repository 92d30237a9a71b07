import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dqaQuestionText } from '../../../src-main/benchmark/dqa-question-text';
import type { LocatingQuestion } from '../../../src-main/dqa/dataset';
import { readActionLibrary, seedLibrary } from '../../../src-main/engine/techniques/pearl/library';
import { runDwb } from '../../support/cli';
import { dqaRoot, sqliteFromDqaDump } from '../../support/fixtures';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptStep } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const program = (text: string): ScriptStep => ({ expectTools: ['program'], toolCalls: [{ name: 'program', arguments: { program: text } }] });
/** One run of a one-step program: the step's query and output, then (when the output names no candidate) the model's answer. */
const runOf = (programText: string, output: string, home: string): ScriptStep[] => [
  program(programText),
  { expectTools: ['query'], toolCalls: [{ name: 'query', arguments: { query: `SELECT source FROM flow WHERE dest = '${home}' ORDER BY source` } }] },
  { expectTools: ['output'], toolCalls: [{ name: 'output', arguments: { output } }] },
  ...(output === 'krakow' ? [] : [{ expectTools: ['answer'], toolCalls: [{ name: 'answer', arguments: { decision: 'white_sea', rationale: output } }] } satisfies ScriptStep]),
];
const attempt = (question: string, index: number): string => `New actions:\n- None\n\n1. out1 = LIST_CANDIDATES(DB, "${question} attempt ${index}") : where the merchant could go`;
const offersProgram = (request: ReceivedChatRequest): boolean => (request.chat.tools ?? []).some((tool) => tool.function.name === 'program');
const lastMessage = (request: ReceivedChatRequest | undefined): string => messageText(request?.chat.messages.at(-1) as never);

function trainingQuestions(dir: string, count: number): { file: string; questions: LocatingQuestion[] } {
  const all = JSON.parse(readFileSync(join(dqaRoot(), 'locating', 'questions.json'), 'utf8')) as LocatingQuestion[];
  // Relative dump paths resolve against the questions file's folder.
  const questions = all.slice(0, count).map((question) => ({ ...question, rdb: join(dqaRoot(), 'locating', question.rdb), gdb: join(dqaRoot(), 'locating', question.gdb) }));
  const file = join(dir, 'questions.json');
  writeFileSync(file, JSON.stringify(questions));
  return { file, questions };
}

const earlier = { scenario: 'locating', question: 'An earlier question?', program: 'New actions:\n- None\n\n1. out1 = LIST_CANDIDATES(DB, "earlier") : candidates' };

describe('dwb actions refine', () => {
  it('retries a demonstration that leads to a wrong decision and keeps it when right; drops one never right after 4 tries', async () => {
    const dir = tempDir();
    const { file, questions } = trainingQuestions(dir, 2);
    const [swe, dan] = questions as [LocatingQuestion, LocatingQuestion];
    expect([swe.country, swe.home, swe.answer, dan.country, dan.home]).toEqual(['SWE', 'baltic_sea', 'krakow', 'DAN', 'lubeck']);
    const libraryPath = join(dir, 'library.json');
    writeFileSync(libraryPath, JSON.stringify({ ...seedLibrary(), demonstrations: [earlier] }));
    const server = await startScriptedOpenAiServer([
      ...runOf(attempt('L1', 1), 'no idea', 'baltic_sea'),
      ...runOf(attempt('L1', 2), 'krakow', 'baltic_sea'),
      ...[1, 2, 3, 4].flatMap((index) => runOf(attempt('L2', index), 'still unsure', 'lubeck')),
    ]);
    servers.push(server);
    const out = join(dir, 'refined.json');
    const result = await runDwb(['actions', 'refine', '--library', libraryPath, '--questions', file, '--db', 'rdb', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--out', out], { timeoutMs: 120_000 });
    expect(result.stderr).toContain('on 2 locating questions (up to 4 tries each)');
    expect(result.code).toBe(0);
    server.verify();
    expect(result.stdout.split('\n')).toEqual([
      'L1: kept: right on try 2 (2 tries)',
      '  try 1: decision "white_sea": wrong',
      '  try 2: decision "krakow": right',
      'L2: dropped: no program reached the best decision in 4 tries; the question gives no demonstration',
      '  try 1: decision "white_sea": wrong',
      '  try 2: decision "white_sea": wrong',
      '  try 3: decision "white_sea": wrong',
      '  try 4: decision "white_sea": wrong',
      `library: ${out} (1 of 2 demonstrations kept; 2 in all)`,
      '',
    ]);

    const planner = server.chatRequests().filter(offersProgram);
    expect(planner).toHaveLength(6);
    // The wrong program goes back to the planner; the library's own demonstration is shown as an example.
    expect(lastMessage(planner[1])).toContain(attempt('L1', 1));
    expect(lastMessage(planner[1])).toContain('Wrong: this program did not lead to the right decision');
    expect(planner.map((request) => request.chat.messages.map((message) => messageText(message as never)).join('\n')).every((text) => text.includes('An earlier question?'))).toBe(true);
    // Every question runs against the library as read: L2's planner is not shown L1's new demonstration.
    expect(planner.slice(2).some((request) => request.chat.messages.some((message) => messageText(message as never).includes(attempt('L1', 2))))).toBe(false);
    expect(lastMessage(planner[5])).toContain(attempt('L2', 3));

    const refined = readActionLibrary(readFileSync(out, 'utf8'), out);
    expect(refined.demonstrations).toEqual([earlier, { scenario: 'locating', question: dqaQuestionText(swe), program: attempt('L1', 2) }]);
    expect(refined.actions).toEqual(seedLibrary().actions);
  }, 180_000);

  it('refines on one database named by --connection for every question, keeping a demonstration right on its first try', async () => {
    const dir = tempDir();
    const { file, questions } = trainingQuestions(dir, 1);
    const database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', dir);
    const libraryPath = join(dir, 'library.json');
    writeFileSync(libraryPath, JSON.stringify(seedLibrary()));
    const server = await startScriptedOpenAiServer(runOf(attempt('L1', 1), 'krakow', 'baltic_sea'));
    servers.push(server);
    const result = await runDwb(['actions', 'refine', '--library', libraryPath, '--questions', file, '--connection', `sqlite:${database}`, '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--out', libraryPath], { timeoutMs: 120_000 });
    expect(result.code).toBe(0);
    server.verify();
    expect(result.stdout).toContain('L1: kept: right on try 1 (1 try)\n  try 1: decision "krakow": right\n');
    // --out may be the library itself: it is replaced whole, with the demonstration kept in it.
    expect(readActionLibrary(readFileSync(libraryPath, 'utf8'), libraryPath).demonstrations).toEqual([...seedLibrary().demonstrations, { scenario: 'locating', question: dqaQuestionText(questions[0] as LocatingQuestion), program: attempt('L1', 1) }]);
  }, 120_000);

  it('refuses bad input with a specific error and exit code 2, writing nothing', async () => {
    const dir = tempDir();
    const { file } = trainingQuestions(dir, 1);
    const out = join(dir, 'out.json');
    const model = ['--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--out', out];
    const missing = await runDwb(['actions', 'refine', '--library', join(dir, 'nope.json'), '--questions', file, '--db', 'rdb', ...model]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(`dwb actions: invalid-request: --library ${join(dir, 'nope.json')} does not exist`);

    const malformed = join(dir, 'malformed.json');
    writeFileSync(malformed, '{"format": "decision-workbench/pearl-actions",');
    const notJson = await runDwb(['actions', 'refine', '--library', malformed, '--questions', file, '--db', 'rdb', ...model]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain(`dwb actions: invalid-request: ${malformed} is not JSON:`);

    const libraryPath = join(dir, 'library.json');
    writeFileSync(libraryPath, JSON.stringify(seedLibrary()));
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '[]');
    const none = await runDwb(['actions', 'refine', '--library', libraryPath, '--questions', empty, '--db', 'rdb', ...model]);
    expect(none.code).toBe(2);
    expect(none.stderr.trim()).toBe(`dwb actions: invalid-request: ${empty}: the file holds no questions`);

    const both = await runDwb(['actions', 'refine', '--library', libraryPath, '--questions', file, ...model]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give the training questions\' databases one way: --db rdb|gdb');

    for (const result of [missing, notJson, none, both]) expect(result.stdout).toBe('');
    expect(() => readFileSync(out)).toThrow();
  }, 120_000);
});
