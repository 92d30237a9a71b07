import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ResultsTable } from '../../../src-main/benchmark/results-table';
import type { QuestionResult } from '../../../src-main/benchmark/question-result';
import { dqaQuestionText } from '../../../src-main/benchmark/dqa-question-text';
import { runDwb, type CliResult } from '../../support/cli';
import { repoRoot } from '../../support/fixtures';
import { devQuestions, questionOfRequest, simulate, techniqueModel, writeQuestionFile, type DqaQuestion, type QuestionScript } from '../../support/dqa-technique-model';
import { type ScriptedOpenAiServer } from '../../support/scripted-openai';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { useScriptedOpenAiServers } from '../../support/lifecycle';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
const serve = useScriptedOpenAiServers();

const solve = (args: string[]): Promise<CliResult> => runDwb(['dqa', 'solve', ...args], { timeoutMs: 240_000, maxBuffer: 32 * 1024 * 1024 });
const readResult = (dir: string, id: string): QuestionResult => JSON.parse(readFileSync(join(dir, id, 'result.json'), 'utf8')) as QuestionResult;
const logEvents = (dir: string, id: string): { type: string; [key: string]: unknown }[] =>
  readFileSync(join(dir, id, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { event: { type: string } }).event);

const locating = devQuestions('locating', ['L1', 'L2', 'L3', 'L4', 'L12']);
const building = devQuestions('building', ['B2', 'B3', 'B25', 'B30']);
const all: DqaQuestion[] = [...locating, ...building];
const byId = (id: string): DqaQuestion => all.find((question) => question.id === id) as DqaQuestion;
let locatingFile = '';
let buildingFile = '';

beforeAll(() => {
  locatingFile = writeQuestionFile(join(suiteDir(), 'locating.json'), 'locating', locating);
  buildingFile = writeQuestionFile(join(suiteDir(), 'building.json'), 'building', building);
});

/** A tied candidate that is not the simulator's best (a tie the technique answers "the other way"). */
function tiedOther(scenario: 'locating' | 'building', id: string): string {
  const result = simulate(scenario, byId(id));
  const other = result.tied.find((candidate) => candidate !== result.best);
  if (other === undefined) throw new Error(`${id} is no tie`);
  return other;
}

describe('dwb dqa solve --engine <technique> (relational dumps, SQLite)', () => {
  it('decides every question with the technique, judges it with the simulator, runs questions side by side and writes the results table', async () => {
    const l2best = simulate('locating', byId('L2')).best;
    const scripts = new Map<string, QuestionScript>([
      // Right, spelled the way a person would.
      ['L1', { queries: ["SELECT 'L1' AS question, trade_node, local_value FROM trade_node WHERE trade_node = 'baltic_sea'"], answer: 'Krakow.' }],
      // Wrong although every critical value was seen: left for the analyst.
      ['L2', { queries: [`SELECT 'L2' AS question, trade_node, ingoing, total_power FROM trade_node WHERE trade_node = '${l2best}'`], answer: 'krakow' }],
      // Wrong, and the best node's values were never retrieved: MIS.
      ['L3', { queries: ["SELECT 'L3' AS question, count(*) AS flows FROM flow"], answer: 'krakow' }],
      // Not a trade node at all: CAN.
      ['L4', { queries: ["SELECT 'L4' AS question, count(*) AS nodes FROM trade_node"], answer: 'Atlantis' }],
      // Every option ties: a non-first tied node is right only with ties counted.
      ['L12', { queries: ["SELECT 'L12' AS question, count(*) AS nodes FROM trade_node"], answer: tiedOther('locating', 'L12') }],
      ['B2', { queries: ["SELECT 'B2' AS question, id, name FROM building WHERE id = 1485"], answer: 'Building 1485' }],
      // The only query fails and nothing recovers it: QUR.
      ['B3', { queries: ["SELECT 'B3' AS question, nope FROM nowhere"], answer: '1485' }],
      ['B25', { queries: ["SELECT 'B25' AS question, count(*) AS buildings FROM building"], answer: tiedOther('building', 'B25') }],
      // A tie answered with the simulator's own pick: right.
      ['B30', { queries: ["SELECT 'B30' AS question, count(*) AS buildings FROM building"], answer: simulate('building', byId('B30')).best }],
    ]);
    const delayMs = 300;
    const server = await serve(techniqueModel(all, scripts, { delayMs }));
    const out = tempDir();
    const result = await solve(['--questions', locatingFile, '--questions', buildingFile, '--engine', 'iterrag', '--db', 'rdb', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--concurrency', '3', '--out', out]);
    expect(server.failures).toEqual([]);
    expect(result.stderr).not.toMatch(/dwb dqa: /);
    expect(result.code).toBe(0);

    // Same lines as the simulator engine: one per question in file order, then the two accuracy lines.
    const lines = result.stdout.trim().split('\n');
    expect(lines.map((line) => line.split('  ')[0])).toEqual([...all.map((question) => question.id), 'accuracy: 3/9', 'accuracy (ties counted): 5/9']);
    expect(lines.at(-2)).toBe('accuracy: 3/9');
    expect(lines.at(-1)).toBe('accuracy (ties counted): 5/9');
    expect(lines[0]).toBe('L1  decision=krakow  annotated=krakow  agree');
    expect(lines[3]).toBe('L4  decision=Atlantis  annotated=ragusa  disagree');
    expect(lines.find((line) => line.startsWith('B25'))).toMatch(/^B25 {2}decision=\d+ {2}tied\(4\)=[\d,]+ {2}annotated=2677 {2}disagree \(annotation tied\)$/);
    expect(result.stderr).toMatch(/\[9\/9\] \w+ answered after 2 model calls/);
    expect(result.stderr).toContain('accuracy so far');

    // Each question: a dwb run directory, the mapping and the verdict recorded, the category where it can be told.
    for (const question of all) {
      for (const file of ['notebook.json', 'run-log.jsonl', 'transcript.jsonl', 'result.json']) expect(existsSync(join(out, question.id, file)), `${question.id}/${file}`).toBe(true);
    }
    expect(readResult(out, 'L1').match).toEqual({ raw: 'Krakow.', matched: 'krakow', rule: 'normalized', alternatives: [] });
    expect(readResult(out, 'B2').match).toEqual({ raw: 'Building 1485', matched: '1485', rule: 'contained', alternatives: [] });
    const categories = Object.fromEntries(all.map((question) => [question.id, readResult(out, question.id).failure.category]));
    expect(categories).toEqual({ L1: null, L2: 'unlabelled', L3: 'MIS', L4: 'CAN', L12: null, B2: null, B3: 'QUR', B25: null, B30: null });
    expect(readResult(out, 'L3').failure.evidence[0]).toMatch(/^ingoing of rheinland \(IV\) = [\d.]+ never appears in any observation$/);
    expect(readResult(out, 'B3').failure.evidence[0]).toMatch(/^query q1 failed and no later query succeeded: .*nowhere/);
    expect(readResult(out, 'L12').flags).toContain('tie');
    expect(readResult(out, 'B25').flags).toContain('tie');
    expect(readResult(out, 'L1').flags).toEqual([]);
    expect(readResult(out, 'B2').steps).toBe(2);
    expect(readResult(out, 'B2').promptTokens).toBe(200);
    expect(readResult(out, 'B2').completionTokens).toBe(20);

    // No two questions mixed: every query a question's run made, in its log and in its notebook, is that question's own.
    for (const question of all) {
      const events = logEvents(out, question.id);
      expect(events[0]).toMatchObject({ type: 'run-start', technique: 'iterrag', question: dqaQuestionText(question) });
      const queries = events.filter((event) => event.type === 'query-start').map((event) => event.query as string);
      expect(queries).toEqual([(scripts.get(question.id) as QuestionScript).queries[0]]);
      const notebook = JSON.parse(readFileSync(join(out, question.id, 'notebook.json'), 'utf8')) as { cells: { kind: string; source: string }[] };
      const queryCells = notebook.cells.filter((cell) => cell.kind === 'query');
      expect(queryCells.map((cell) => cell.source)).toEqual(queries);
    }

    // Side by side: while one question's model call was being answered, other questions' calls arrived.
    const chats = server.chatRequests();
    expect(chats).toHaveLength(18);
    const spans = chats.map((request) => ({ id: questionOfRequest(request, all).id, from: request.receivedAt, to: request.receivedAt + delayMs }));
    const overlapping = Math.max(...spans.map((span) => new Set(spans.filter((other) => other.from <= span.from && span.from < other.to).map((other) => other.id)).size));
    expect(overlapping).toBeGreaterThanOrEqual(2);
    expect(overlapping).toBeLessThanOrEqual(3);

    // The results table, in Markdown, JSON and a self-contained HTML page.
    const table = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsTable;
    expect(table.rows.map((row) => [row.technique, row.scenario, row.db, row.questions, row.correct, row.correctWithTies, row.meanSteps, row.meanPromptTokens, row.meanCompletionTokens])).toEqual([
      ['iterrag', 'locating', 'rdb', 5, 1, 2, 2, 200, 20],
      ['iterrag', 'building', 'rdb', 4, 2, 3, 2, 200, 20],
    ]);
    expect(table.rows[0]?.failures).toEqual({ unlabelled: 1, MIS: 1, CAN: 1 });
    expect(readResult(out, 'L12').failure.evidence).toEqual([`${readResult(out, 'L12').match.matched ?? ''} is tied with the simulator's best: no failure, the question is reported apart`]);
    expect(table.rows[0]?.ended).toEqual({ answered: 5 });
    const markdown = readFileSync(join(out, 'results.md'), 'utf8');
    expect(markdown).toContain('| IterRAG (ReAct) | 20.0% (1/5; ties 2/5) | 50.0% (2/4; ties 3/4) |');
    expect(markdown).toContain('## Reported apart: ties and float-level decisions');
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<svg role="img" aria-label="Accuracy per technique"');
    expect(html).toContain('aria-label="Tokens per question"');
    expect(html).toContain('aria-label="Where runs ended"');
    expect(html).not.toMatch(/<script|<link|src="http|href="http/i);
  });

  it('resumes after a kill: decided questions are not asked again, the rest are finished', async () => {
    const questions = devQuestions('locating', ['L1', 'L2', 'L3', 'L4', 'L5', 'L6']);
    const file = writeQuestionFile(join(tempDir(), 'six.json'), 'locating', questions);
    const scripts = new Map(questions.map((question) => [question.id, { queries: [`SELECT '${question.id}' AS question, count(*) AS nodes FROM trade_node`], answer: question.answer }]));
    const out = tempDir();
    const args = (server: ScriptedOpenAiServer): string[] => ['bin/dwb.js', 'dqa', 'solve', '--questions', file, '--engine', 'iterrag', '--db', 'rdb', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--concurrency', '1', '--out', out];
    const decided = (): string[] => questions.filter((question) => existsSync(join(out, question.id, 'result.json'))).map((question) => question.id);

    const first = await serve(techniqueModel(questions, scripts, { delayMs: 250 }));
    const child = spawn(process.execPath, args(first), { cwd: repoRoot, stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + 60_000;
    while (decided().length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGKILL');
    await exited;
    const before = decided();
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.length).toBeLessThan(questions.length);

    const second = await serve(techniqueModel(questions, scripts));
    const again = await runDwb(args(second).slice(1), { timeoutMs: 120_000 });
    expect(second.failures).toEqual([]);
    expect(again.code).toBe(0);
    const asked = new Set(second.chatRequests().map((request) => questionOfRequest(request, questions).id));
    expect([...asked].sort()).toEqual(questions.map((question) => question.id).filter((id) => !before.includes(id)).sort());
    expect(second.chatRequests()).toHaveLength(2 * (questions.length - before.length));
    expect(again.stdout.trim().split('\n').slice(-2)).toEqual(['accuracy: 6/6', 'accuracy (ties counted): 6/6']);
    expect(again.stderr).toContain(`${before.length} question(s) were decided by an earlier run and not asked again`);
    expect(decided()).toHaveLength(questions.length);
    // The question cut short by the kill was run again from nothing: one run in its log.
    for (const question of questions) expect(logEvents(out, question.id).filter((event) => event.type === 'run-start')).toHaveLength(1);
    expect(readdirSync(out).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('stops on Ctrl-C with the decided questions recorded and the tables written, and says how to finish', async () => {
    const questions = devQuestions('locating', ['L1', 'L2', 'L3', 'L4']);
    const file = writeQuestionFile(join(tempDir(), 'four.json'), 'locating', questions);
    const scripts = new Map(questions.map((question) => [question.id, { queries: [`SELECT '${question.id}' AS question, count(*) AS nodes FROM trade_node`], answer: question.answer }]));
    const server = await serve(techniqueModel(questions, scripts, { delayMs: 300 }));
    const out = tempDir();
    const child = spawn(process.execPath, ['bin/dwb.js', 'dqa', 'solve', '--questions', file, '--engine', 'iterrag', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--concurrency', '1', '--out', out], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    while (!existsSync(join(out, 'L1', 'result.json')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    const decided = questions.filter((question) => existsSync(join(out, question.id, 'result.json'))).length;
    expect(decided).toBeGreaterThanOrEqual(1);
    expect(decided).toBeLessThan(4);
    expect(stderr).toContain('stopping: runs in flight end now; re-run the same command to finish the rest');
    expect(stderr).toContain(`stopped: ${decided} of 4 questions decided; re-run the same command to finish the rest`);
    const table = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsTable;
    expect(table.questions).toHaveLength(decided);
  });

  it('explains bad arguments', async () => {
    const fails = async (args: string[], code: number, message: RegExp): Promise<void> => {
      const result = await solve(args);
      expect(result.code, result.stderr).toBe(code);
      expect(result.stderr.trim()).toMatch(message);
    };
    const common = ['--engine', 'planrag', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'];
    await fails(['--questions', locatingFile, '--questions', locatingFile, ...common, '--out', tempDir()], 2, /^dwb dqa: invalid-request: question id L1 appears in both .*locating\.json and .*locating\.json/);
    await fails(['--questions', locatingFile, ...common, '--api-key', 'sk-secret'], 2, /--api-key would put the key on the command line, where other users of this machine can read it \(ps, shell history\): use --api-key-file F or the environment variable DWB_API_KEY$/);
    await fails(['--questions', locatingFile, ...common, '--api-key-file', '/no/such/key'], 1, /Cannot read --api-key-file \/no\/such\/key: no such file \(ENOENT\)$/);
    await fails(['--questions', locatingFile, ...common, '--concurrency', '0'], 2, /--concurrency takes a positive whole number, got "0"$/);
    await fails(['--questions', locatingFile, '--engine', 'iterrag', '--model', 'm'], 2, /--base-url is required with --engine iterrag \(or --model-file for a local model\)/);
    await fails(['--questions', locatingFile, ...common, '--model-file', '/models/x.gguf'], 2, /--model-file and --base-url exclude each other: a local model needs no server$/);
    await fails(['--questions', locatingFile, ...common, '--threads', '2'], 2, /--threads applies to --model-file only$/);
    await fails(['--questions', locatingFile, '--engine', 'planrag', '--model-file', '/no/such/model.gguf', '--out', tempDir()], 1, /no\/such\/model\.gguf/);
  });
});

describe('dwb dqa solve --engine planrag on graph dumps (Kùzu, Cypher)', () => {
  it('plans, queries with Cypher and gets exactly the scripted accuracy', async () => {
    // L1 and L2 share a graph dump: two runs read the same Kùzu database at once.
    const questions = [...devQuestions('locating', ['L1', 'L2', 'L4']), ...devQuestions('building', ['B2'])];
    const locatingGraph = writeQuestionFile(join(tempDir(), 'locating-graph.json'), 'locating', questions.slice(0, 3));
    const buildingGraph = writeQuestionFile(join(tempDir(), 'building-graph.json'), 'building', questions.slice(3));
    const scripts = new Map<string, QuestionScript>([
      ['L1', { plan: ['Values of the home node', 'Decide'], queries: ["MATCH (t:Trade_node {name: 'krakow'}) RETURN 'L1' AS question, t.ingoing AS ingoing, t.total_power AS power"], answer: 'krakow' }],
      ['L2', { plan: ['Upstream of lubeck', 'Decide'], queries: ["MATCH (s:Trade_node)-[:source]->(d:Trade_node {name: 'lubeck'}) RETURN 'L2' AS question, s.name AS source"], answer: 'rheinland' }],
      ['L4', { plan: ['Count nodes', 'Decide'], queries: ["MATCH (t:Trade_node) RETURN 'L4' AS question, count(t) AS nodes"], answer: 'pest' }],
      ['B2', { plan: ['Find the building', 'Decide'], queries: ["MATCH (b:Building) WHERE b.id = 1485 RETURN 'B2' AS question, b.name AS name"], answer: '1485' }],
    ]);
    const server = await serve(techniqueModel(questions, scripts));
    const out = tempDir();
    const result = await solve(['--questions', locatingGraph, '--questions', buildingGraph, '--engine', 'planrag', '--db', 'gdb', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--concurrency', '2', '--out', out]);
    expect(server.failures).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').slice(-2)).toEqual(['accuracy: 3/4', 'accuracy (ties counted): 3/4']);
    expect(server.chatRequests()).toHaveLength(12);
    expect(logEvents(out, 'L2').find((event) => event.type === 'query-end')).toMatchObject({ error: null });
    const l1 = logEvents(out, 'L1');
    expect(l1.find((event) => event.type === 'plan')).toMatchObject({ steps: ['Values of the home node', 'Decide'] });
    expect(l1.find((event) => event.type === 'query-end')).toMatchObject({ error: null });
    expect(readResult(out, 'L4').failure.category).toBe('CAN');
    expect(readResult(out, 'L4').failure.evidence[0]).toBe('the decision "pest" is not one of the 79 candidates');
    expect(readResult(out, 'B2').db).toBe('gdb');
    expect(existsSync(join(out, 'databases'))).toBe(true);
    expect(readdirSync(join(out, 'databases')).filter((name) => name.endsWith('.lbug'))).toHaveLength(3);
  });
});
