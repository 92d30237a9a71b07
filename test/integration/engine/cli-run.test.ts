import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findChainBreak, type LoggedEvent } from '../../../src-main/audit/hash-chain';
import { runDqaImportCommand } from '../../../src-main/cli/dqa-import-command';
import { dqaRoot, fileHash, sqliteFromDqaDump } from '../../support/fixtures';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import type { ScriptStep } from '../../support/scripted-openai/script';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { runDwb } from '../../support/cli';
import { nodeTurn, plannerTurn, queryTurn } from '../../support/plan-dag-script';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
let database = '';
let questionFile = '';

beforeAll(() => {
  database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
  questionFile = join(suiteDir(), 'question.txt');
  writeFileSync(questionFile, 'Where should SWE place its merchant to maximise profit at baltic_sea?');
});

const dwbRun = (args: string[]) => runDwb(['run', ...args]);

const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});


async function serve(script: ScriptStep[], options: Parameters<typeof startScriptedOpenAiServer>[1] = {}): Promise<ScriptedOpenAiServer> {
  const server = await startScriptedOpenAiServer(script, options);
  servers.push(server);
  return server;
}

const plannedRun: ScriptStep[] = [
  { toolCalls: [{ name: 'plan', arguments: { steps: ['Home node values', 'Upstream nodes'] } }] },
  { toolCalls: [{ name: 'query', arguments: { query: "SELECT local_value, ingoing FROM trade_node WHERE trade_node = 'baltic_sea'" } }] },
  { expectToolResultContains: '5.665', toolCalls: [{ name: 'query', arguments: { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" } }] },
  { expectToolResultContains: 'krakow', toolCalls: [{ name: 'replan', arguments: { steps: ['SWE power in krakow', 'Decide'], reason: 'krakow feeds the home node' } }] },
  { toolCalls: [{ name: 'query', arguments: { query: "SELECT base_trading_power FROM node_country WHERE trade_node = 'krakow' AND country_name = 'SWE'" } }] },
  { expectToolResultContains: 'rows: 1', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'SWE steers value from krakow.' } }] },
];

describe('dwb run', () => {
  it('drives plan → query → query → replan → query → answer and writes notebook, log and transcript', async () => {
    const server = await serve(plannedRun);
    const out = tempDir();
    const before = fileHash(database);
    const result = await dwbRun(['--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'planrag', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--out', out]);
    expect(result.stderr).toContain('re-plan (krakow feeds the home node)');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('decision: krakow');
    server.verify();
    expect(fileHash(database)).toBe(before);

    const notebook = JSON.parse(readFileSync(join(out, 'notebook.json'), 'utf8')) as { cells: { kind: string; source: string; output: { status: string } | null; data: Record<string, unknown> }[] };
    // The question names SWE and baltic_sea, so the simulator checks the decision in a cell of its own before it.
    expect(notebook.cells.map((cell) => cell.kind)).toEqual(['question', 'plan', 'query', 'observation', 'query', 'observation', 'replan', 'query', 'observation', 'simulation', 'decision']);
    expect(notebook.cells[2]?.output?.status).toBe('ok');
    expect(notebook.cells[6]?.data['previous']).toEqual(['Home node values', 'Upstream nodes']);
    expect(notebook.cells[10]?.data['verification']).toMatchObject({ decision: 'krakow' });

    const log = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
    expect(findChainBreak(log)).toBeNull();
    expect(log.filter((entry) => entry.event.type === 'replan')).toHaveLength(1);
    const transcript = readFileSync(join(out, 'transcript.jsonl'), 'utf8').trim().split('\n');
    expect(transcript).toHaveLength(1 + 6);

    // Replaying the transcript, with no model at all, reproduces the same notebook.
    const replayOut = tempDir();
    const replay = await dwbRun(['--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'planrag', '--replay', join(out, 'transcript.jsonl'), '--out', replayOut]);
    expect(replay.code).toBe(0);
    expect(replay.stdout.trim()).toBe('decision: krakow');
    const strip = (text: string): unknown =>
      (JSON.parse(text) as { cells: { kind: string; author: string; source: string; output: { status: string; result?: { rows: unknown } } | null }[] }).cells.map((cell) => ({
        kind: cell.kind,
        author: cell.author,
        source: cell.source,
        rows: cell.output?.result?.rows ?? null,
      }));
    expect(strip(readFileSync(join(replayOut, 'notebook.json'), 'utf8'))).toEqual(strip(readFileSync(join(out, 'notebook.json'), 'utf8')));
  });

  it('asks the server to hold every reply to a tool call, records it, and falls back where the server refuses', async () => {
    const constrainedOf = (out: string): (string | undefined)[] =>
      readFileSync(join(out, 'run-log.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as LoggedEvent).event)
        .flatMap((event) => (event.type === 'model-response' ? [event.constrained] : []));
    const args = (server: ScriptedOpenAiServer, out: string): string[] =>
      ['--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'planrag', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--out', out];

    const honouring = await serve(plannedRun);
    const out = tempDir();
    expect((await dwbRun(args(honouring, out))).code).toBe(0);
    expect(honouring.chatRequests().map((request) => request.chat.tool_choice)).toEqual(plannedRun.map(() => 'required'));
    expect(constrainedOf(out)).toEqual(plannedRun.map(() => 'tool-choice'));

    // A server that knows tools but not tool_choice "required": refused once, then never asked again.
    const refusing = await serve(plannedRun, { rejectToolChoice: true });
    const fallbackOut = tempDir();
    const fallback = await dwbRun(args(refusing, fallbackOut));
    expect(fallback.code, fallback.stderr).toBe(0);
    expect(fallback.stdout.trim().split('\n').at(-1)).toBe('decision: krakow');
    expect(refusing.chatRequests().filter((request) => request.chat.tool_choice === 'required')).toHaveLength(1);
    expect(constrainedOf(fallbackOut)).toEqual(plannedRun.map(() => 'none'));
  });

  it('passes --max-tokens to every call, keeps to --max-run-tokens, and ends stderr with the run\'s calls, unusable replies and tokens', async () => {
    const server = await serve([
      { usage: { promptTokens: 900, completionTokens: 40 }, toolCalls: [{ name: 'plan', arguments: { steps: ['Look'] } }] },
      { usage: { promptTokens: 1000, completionTokens: 1024 }, content: 'digits 1234567890 '.repeat(50), finishReason: 'length' },
      { usage: { promptTokens: 1100, completionTokens: 30 }, toolCalls: [{ name: 'query', arguments: { query: 'SELECT 1' } }] },
    ]);
    const out = tempDir();
    const args = ['--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'planrag', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--out', out];
    const result = await dwbRun([...args, '--max-tokens', '300', '--max-run-tokens', '4000']);
    expect(result.code).toBe(1);
    expect(server.chatRequests().map((request) => request.chat.max_tokens)).toEqual([300, 300, 300]);
    expect(result.stderr).toContain('unusable reply (the reply was cut off at the token limit');
    const lines = result.stderr.trim().split('\n');
    expect(lines.at(-2)).toMatch(/^dwb run: token-limit: Stopped after using 4094 tokens \(limit 4000\)/);
    expect(lines.at(-1)).toBe('model calls: 3, unusable replies: 1, prompt tokens: 3000, completion tokens: 1094');

    const defaults = await serve([{ toolCalls: [{ name: 'plan', arguments: { steps: ['Look'] } }] }, { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'r' } }] }]);
    const answered = await dwbRun(['--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'planrag', '--base-url', defaults.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--out', tempDir()]);
    expect(answered.code).toBe(0);
    // Without --max-tokens every call still has a limit: the model settings' default.
    expect(defaults.chatRequests().map((request) => request.chat.max_tokens)).toEqual([2048, 2048]);
    expect(answered.stderr.trim().split('\n').at(-1)).toMatch(/^model calls: 2, unusable replies: 0, prompt tokens: \d+, completion tokens: \d+$/);
    expect((await dwbRun([...args, '--max-tokens', '0'])).stderr).toContain('--max-tokens');
  });

  it('ends garbage output, a timeout and a write request with a clear error and no crash', async () => {
    const garbage = await serve([{ raw: { body: '{"choices": [ this is not json' } }]);
    const garbageRun = await dwbRun(['--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'iterrag', '--base-url', garbage.baseUrl, '--model', 'm', '--tool-mode', 'tools', '--out', tempDir()]);
    expect(garbageRun.code).toBe(1);
    // The failure, then the run's model use as the last line.
    expect(garbageRun.stderr.trim().split('\n').at(-2)).toMatch(/^dwb run: failed: The model call failed: .+/);
    expect(garbageRun.stderr.trim().split('\n').at(-1)).toBe('model calls: 1, unusable replies: 0, prompt tokens: 0, completion tokens: 0');

    const slow = await serve([{ delayMs: 5000, content: 'late' }]);
    const slowRun = await dwbRun(['--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'iterrag', '--base-url', slow.baseUrl, '--model', 'm', '--tool-mode', 'tools', '--timeout-ms', '500', '--out', tempDir()]);
    expect(slowRun.code).toBe(1);
    expect(slowRun.stderr).toMatch(/dwb run: failed: .*(timed out|timeout)/i);

    const before = fileHash(database);
    const writer = await serve([
      { toolCalls: [{ name: 'query', arguments: { query: 'DROP TABLE flow' } }] },
      { expectToolResultContains: 'Refused: the connection is read-only', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'the write was refused' } }] },
    ]);
    const writeRun = await dwbRun(['--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'iterrag', '--base-url', writer.baseUrl, '--model', 'm', '--tool-mode', 'tools', '--out', tempDir()]);
    writer.verify();
    expect(writeRun.code).toBe(0);
    expect(writeRun.stderr).toContain('query failed: Refused');
    expect(fileHash(database)).toBe(before);
  });

  it('explains bad arguments', async () => {
    const missing = await dwbRun(['--connection', `sqlite:${database}`, '--question-file', questionFile, '--out', tempDir()]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--base-url is required');
    const badTechnique = await dwbRun(['--technique', 'magic', '--out', tempDir()]);
    expect(badTechnique.stderr).toContain('--technique must be one of singlerag, iterrag, planrag, planrag-norp, plan-dag, plan-dag-faithful, plan-dag-base, plan-dag-react, plan-dag-replan,');
    const noQuestion = await dwbRun(['--connection', `sqlite:${database}`, '--question-file', '/nope.txt', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--out', tempDir()]);
    expect(noQuestion.stderr.trim()).toBe('dwb run: not-found: Cannot read the question file /nope.txt: no such file (ENOENT)');
  });
});

describe('dwb run --technique plan-dag', () => {
  it('plans a graph, runs its roots, decides at the join, and prints each node', async () => {
    const server = await serve([
      plannerTurn({
        nodes: [
          { id: 'Q1.1', question: 'Which trade nodes have a flow into baltic_sea?' },
          { id: 'Q1.2', question: 'What is SWE\'s base trading power at each node?' },
          { id: 'Q2.1', question: 'Which of <A1.1> is best for SWE given A1.2?', parents: ['Q1.1', 'Q1.2'], compute: true },
        ],
        final: 'Q2.1',
      }),
      queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source"),
      queryTurn('Q1.2', "SELECT trade_node, base_trading_power FROM node_country WHERE country_name = 'SWE'"),
      nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }),
      nodeTurn('Q1.2', 'answer', { answer: 'krakow 7.98, novgorod 11.795' }),
      nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'krakow feeds baltic_sea.' }),
    ]);
    const out = tempDir();
    const result = await dwbRun([
      '--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'plan-dag', '--base-url', server.baseUrl, '--model', 'scripted',
      '--simulator', 'compat', '--country', 'SWE', '--home', 'baltic_sea', '--out', out,
    ]);
    server.verify();
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('decision: krakow');
    expect(result.stderr).toContain('plan-dag.plan: Plan graph: 2 levels (widths 2, 1), final Q2.1');
    expect(result.stderr).toContain('plan-dag.node Q1.1: Q1.1: Which trade nodes have a flow into baltic_sea? A1.1: krakow, novgorod');
    expect(result.stderr).toContain('decision: krakow (simulator: optimal)');
    const notebook = JSON.parse(readFileSync(join(out, 'notebook.json'), 'utf8')) as { cells: { kind: string }[] };
    expect(notebook.cells.at(-1)?.kind).toBe('decision');

    // The report shows the plan graph's nodes and each node's answer.
    const report = join(tempDir(), 'report.md');
    const reported = await runDwb(['report', '--run', out, '--format', 'md', '--out', report]);
    expect(reported.code).toBe(0);
    const markdown = readFileSync(report, 'utf8');
    // Markdown export writes < and > as character references, so text can never form a tag or autolink.
    expect(markdown).toContain('3. Q2.1: Which of &lt;A1.1&gt; is best for SWE given A1.2?');
    expect(markdown).toContain('"node": "Q1.1"');
    expect(markdown).toContain('A1.1: krakow, novgorod');
  });
});

describe('dwb run on a graph database (LadybugDB, Cypher)', () => {
  it('drives plan → query → query → replan → query → answer with Cypher and real rows', async () => {
    const dump = 'locating-1445-b1c118fa';
    const questions = join(suiteDir(), 'graph-questions.json');
    writeFileSync(questions, JSON.stringify([{ gdb: join(dqaRoot(), 'locating', 'db', `${dump}.cql`) }]));
    const imported = await runDqaImportCommand(['--questions', questions, '--target', `kuzu:${join(suiteDir(), 'graphs')}`], { stdout: () => undefined, stderr: () => undefined });
    expect(imported).toBe(0);
    const graph = join(suiteDir(), 'graphs', `${dump}.lbug`);

    const server = await serve([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Home node value', 'Upstream nodes'] } }] },
      { expectTools: ['query', 'replan', 'simulate', 'answer'], toolCalls: [{ name: 'query', arguments: { query: "MATCH (t:Trade_node {name: 'baltic_sea'}) RETURN t.local_value AS local_value" } }] },
      {
        expectToolResultContains: ['local_value', '5.665'],
        toolCalls: [{ name: 'query', arguments: { query: "MATCH (s:Trade_node)-[:source]->(d:Trade_node {name: 'baltic_sea'}) RETURN s.name AS source ORDER BY source" } }],
      },
      { expectToolResultContains: 'krakow', toolCalls: [{ name: 'replan', arguments: { steps: ['SWE power in krakow', 'Decide'], reason: 'krakow feeds the home node' } }] },
      {
        toolCalls: [
          { name: 'query', arguments: { query: "MATCH (c:Country {name: 'SWE'})-[r:NodeCountry]->(t:Trade_node {name: 'krakow'}) RETURN r.base_trading_power AS power" } },
        ],
      },
      { expectToolResultContains: 'rows: 1', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'SWE steers value from krakow.' } }] },
    ]);
    const out = tempDir();
    const result = await dwbRun([
      '--connection', `kuzu:${graph}`, '--question-file', questionFile, '--technique', 'planrag', '--base-url', server.baseUrl, '--model', 'scripted',
      '--tool-mode', 'tools', '--simulator', 'compat', '--country', 'SWE', '--home', 'baltic_sea', '--out', out,
    ]);
    expect(result.stderr).toContain('re-plan (krakow feeds the home node)');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('decision: krakow');
    expect(result.stderr).toContain('decision: krakow (simulator: optimal)');
    server.verify();
    const log = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
    expect(findChainBreak(log)).toBeNull();
    const start = log[0]?.event;
    expect(start?.type === 'run-start' && start.connection.engine).toBe('kuzu');
  }, 120_000);
});
