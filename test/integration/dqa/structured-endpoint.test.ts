/**
 * Structured replies end to end: the built CLI and the real `openai` SDK against the scripted
 * server playing an endpoint that honours `response_format` JSON schemas and ONLY fills the
 * schemas and tools it is offered (`structuredOnly`: JSON asked for in plain text comes back
 * garbled, JSON that does not fit the schema is a failure). Every Plan*RAG variant and DeLLMa
 * (`dwb dqa solve --engine dellma`, `dwb dellma solve`) must complete on it and print the
 * accuracy its decisions earn; the CLI checks the endpoint once per run, records what it found
 * in the transcript header, and every model response says truthfully how it was held.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dqaQuestionText } from '../../../src-main/benchmark/dqa-question-text';
import type { RunEvent } from '../../../src-main/contract/run';
import { readTranscript } from '../../../src-main/llm/transcript';
import { techniqueNamed } from '../../../src-main/engine/techniques/registry';
import { runDwb } from '../../support/cli';
import { undeclaredReplies } from '../../support/declared-replies';
import { devQuestions, simulate, writeQuestionFile, type DqaQuestion } from '../../support/dqa-technique-model';
import { promptOf } from '../../support/plan-dag-script';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptedServerOptions, type ScriptedTurn } from '../../support/scripted-openai';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { lastUserText, rankingPreferring, scenariosOf } from '../dellma/scripted-dellma-model';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const questions = devQuestions('locating', ['L1', 'L2', 'L3']);
let file = '';
beforeAll(() => {
  file = writeQuestionFile(join(suiteDir(), 'locating.json'), 'locating', questions);
});

/** L1 and L3 are decided as the simulator ranks best, L2 as a candidate that is not tied with the best: 2 of 3 right. */
function chosenDecisions(): Map<string, string> {
  return new Map(
    questions.map((question) => {
      const verdict = simulate('locating', question);
      return [question.id, question.id === 'L2' ? (verdict.candidates.find((row) => !verdict.tied.includes(row.candidate))?.candidate as string) : verdict.best];
    }),
  );
}

const schemaName = (request: ReceivedChatRequest): string | null => request.chat.response_format?.json_schema?.name ?? null;
const questionOf = (text: string): DqaQuestion | undefined => questions.find((question) => text.includes(dqaQuestionText(question)));
const listNodes = 'SELECT trade_node FROM trade_node ORDER BY trade_node';

/** Two nodes: the trade nodes (a query), then the decision among them (computed from the answer). */
const plan = {
  nodes: [
    { id: 'Q1.1', question: 'Which trade nodes are there?', parents: [], compute: false },
    { id: 'Q2.1', question: 'Of <A1.1>, where should the merchant go?', parents: ['Q1.1'], compute: true },
  ],
  final: 'Q2.1',
};

/** A Plan*RAG model: its JSON only where a schema asks for it; queries, ReAct steps and rewrites in plain text. */
function planStarModel(decisions: ReadonlyMap<string, string>): (request: ReceivedChatRequest) => ScriptedTurn {
  return (request) => {
    const text = promptOf(request);
    if (text.includes('You rewrite a templated question')) return { label: 'rewrite', content: 'Of the trade nodes listed, where should the merchant go?' };
    const question = questionOf(text);
    if (!question) return { label: 'unknown call', content: 'I cannot tell which question this is.' };
    const name = schemaName(request);
    if (name === 'plan_graph') return { label: `${question.id} plan`, content: JSON.stringify(plan) };
    if (name === 'node_answer') return { label: `${question.id} answer`, content: JSON.stringify({ answer: 'the trade nodes listed', explanation: 'read from the query' }) };
    if (name === 'decision') return { label: `${question.id} decision`, content: JSON.stringify({ decision: decisions.get(question.id), rationale: 'the scripted choice' }) };
    if (name === 'react_step') {
      const answered = request.chat.messages.some((message) => message.role === 'assistant');
      const step = answered ? { action: 'answer', query: '', answer: 'the trade nodes listed', explanation: 'read from the query' } : { action: 'query', query: listNodes, answer: '', explanation: '' };
      return { label: `${question.id} react`, content: JSON.stringify(step) };
    }
    if (text.includes('Write ONE read-only')) return { label: `${question.id} query`, content: `\`\`\`sql\n${listNodes}\n\`\`\`` };
    return { label: `${question.id} unexpected`, content: 'I do not know what to do.' };
  };
}

async function serve(model: (request: ReceivedChatRequest) => ScriptedTurn, options: ScriptedServerOptions): Promise<ScriptedOpenAiServer> {
  const server = await startScriptedOpenAiServer(Array.from({ length: 300 }, () => model), options);
  servers.push(server);
  return server;
}

function runEvents(out: string, id: string): RunEvent[] {
  return readFileSync(join(out, id, 'run-log.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { event: RunEvent }).event);
}

/** Each model call of a run: what it was for and how its reply was held. */
function callsOf(events: RunEvent[]): { purpose: string; constrained: string }[] {
  const purposes = new Map<number, string>();
  const calls: { purpose: string; constrained: string }[] = [];
  for (const event of events) {
    if (event.type === 'model-request') purposes.set(event.step, event.purpose ?? '');
    if (event.type === 'model-response') calls.push({ purpose: purposes.get(event.step) ?? '', constrained: event.constrained ?? 'absent' });
  }
  return calls;
}

const solve = (server: ScriptedOpenAiServer, engine: string, out: string) =>
  runDwb(['dqa', 'solve', '--questions', file, '--engine', engine, '--db', 'rdb', '--base-url', server.baseUrl, '--model', 'scripted', '--concurrency', '1', '--out', out], { timeoutMs: 240_000 });

describe('dwb dqa solve --engine plan-dag… against an endpoint that only fills the schemas it is offered', () => {
  it.each(['plan-dag', 'plan-dag-faithful', 'plan-dag-base', 'plan-dag-react', 'plan-dag-replan'])('%s completes and prints the accuracy its decisions earn', async (engine) => {
    const decisions = chosenDecisions();
    const server = await serve(planStarModel(decisions), { structuredOnly: true });
    const out = tempDir();
    const result = await solve(server, engine, out);
    expect(server.failures).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe(`L1  decision=${decisions.get('L1')}  annotated=${questions[0]?.answer}  agree`);
    expect(lines[1]).toMatch(new RegExp(`^L2 {2}decision=${decisions.get('L2')} {2}annotated=\\w+ {2}disagree$`));
    expect(lines.slice(-2)).toEqual(['accuracy: 2/3', 'accuracy (ties counted): 2/3']);
    // Checked once for the whole run, not per question; said on stderr and kept in every transcript header.
    expect(server.probes).toHaveLength(1);
    expect(result.stderr).toContain(`structured output: scripted at ${server.baseUrl} honours JSON-schema replies (response_format)`);
    expect(readTranscript(readFileSync(join(out, 'L3', 'transcript.jsonl'), 'utf8')).header.settings).toMatchObject({ structuredOutput: { jsonSchema: true } });
    // The plan, the answers and ReAct steps went under their schemas, and say so; plain-text calls say they were not held.
    const calls = callsOf(runEvents(out, 'L1'));
    const schemad = calls.filter((call) => ['plan', 'answer', 'react'].includes(call.purpose));
    expect(schemad.length).toBeGreaterThanOrEqual(3);
    expect(schemad.every((call) => call.constrained === 'json-schema')).toBe(true);
    expect(calls.filter((call) => !['plan', 'answer', 'react'].includes(call.purpose)).every((call) => call.constrained === 'none')).toBe(true);
    if (engine === 'plan-dag-react') expect(schemad.filter((call) => call.purpose === 'react')).toHaveLength(2);
    // Every schema sent is one the variant's definition declares (test/integration/engine/structured-replies.test.ts checks the others).
    const declared = undeclaredReplies(techniqueNamed(engine), server.chatRequests());
    expect(declared.undeclared).toEqual([]);
    expect(declared.structured).toBeGreaterThanOrEqual(3 * 3);
  });

  it('an endpoint that takes response_format but ignores it is found out: no schema is sent, every response says "none"', async () => {
    const decisions = chosenDecisions();
    const server = await serve(planStarModel(decisions), { ignoreResponseFormat: true });
    const out = tempDir();
    const result = await solve(server, 'plan-dag', out);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`structured output: scripted at ${server.baseUrl} does not honour JSON-schema replies: JSON is asked for in the prompt and repaired when unusable`);
    expect(server.chatRequests().every((request) => request.chat.response_format === undefined)).toBe(true);
    // Without the schema the scripted model cannot tell a plan from an answer: it runs, but nothing claims a constraint it did not have.
    for (const question of questions) expect(callsOf(runEvents(out, question.id)).every((call) => call.constrained === 'none')).toBe(true);
    expect(readTranscript(readFileSync(join(out, 'L1', 'transcript.jsonl'), 'utf8')).header.settings).toMatchObject({ structuredOutput: { jsonSchema: false } });
  });
});

/** A forecast of every unknown the prompt lists, with words of the scale exactly. */
function structuredForecast(request: ReceivedChatRequest): string {
  const names = (lastUserText(request).split('The unknowns:\n')[1] ?? '')
    .split('\n\n')[0]!
    .split('\n')
    .map((line) => line.replace(/^\d+\.\s*/, ''));
  return JSON.stringify({
    factors: names.map((name) => ({
      name,
      values: [
        { value: 'worse', likelihood: 'somewhat likely' },
        { value: 'same', likelihood: 'very likely' },
        { value: 'better', likelihood: 'unlikely' },
      ],
    })),
  });
}

/** DeLLMa's model: JSON only under the schemas (shortlist, forecast, rankings), queries in plain text. */
function dellmaModel(choose: (request: ReceivedChatRequest, text: string) => string | undefined): (request: ReceivedChatRequest) => ScriptedTurn {
  return (request) => {
    const text = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
    const name = schemaName(request);
    if (text.includes('first column lists every candidate')) return { label: 'candidates', content: `\`\`\`sql\n${listNodes}\n\`\`\`` };
    if (text.includes('Write one query that retrieves')) return { label: 'query', content: '```sql\nSELECT count(*) AS nodes FROM trade_node\n```' };
    if (name === 'forecast') return { label: 'forecast', content: structuredForecast(request) };
    const preferred = choose(request, text);
    if (name === 'shortlist') {
      const candidates = (/The candidates:\n(.*)\n/.exec(text)?.[1] ?? '').split(', ');
      return { label: 'shortlist', content: JSON.stringify({ keep: [preferred ?? '', ...candidates.filter((candidate) => candidate !== preferred)].slice(0, 7) }) };
    }
    if (name === 'ranking') {
      const rank = rankingPreferring(request, preferred ?? '');
      return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: `${preferred ?? 'none'} first` }) };
    }
    return { label: 'plain-text call', content: 'I only answer what a schema asks for.' };
  };
}

describe('DeLLMa against an endpoint that only fills the schemas it is offered', () => {
  it('dwb dqa solve --engine dellma completes and prints the accuracy its decisions earn', async () => {
    const decisions = chosenDecisions();
    const server = await serve(
      dellmaModel((_request, text) => decisions.get(questionOf(text)?.id ?? '')),
      { structuredOnly: true },
    );
    const out = tempDir();
    const result = await solve(server, 'dellma', out);
    expect(server.failures).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe(`L1  decision=${decisions.get('L1')}  annotated=${questions[0]?.answer}  agree`);
    expect(lines.slice(-3, -1)).toEqual(['accuracy: 2/3', 'accuracy (ties counted): 2/3']);
    expect(server.probes).toHaveLength(1);
    const calls = callsOf(runEvents(out, 'L1'));
    const held = calls.filter((call) => /^dellma\.(shortlist|forecast|rank)/.test(call.purpose));
    expect(held.map((call) => call.purpose).slice(0, 2)).toEqual(['dellma.shortlist', 'dellma.forecast']);
    expect(held.every((call) => call.constrained === 'json-schema')).toBe(true);
    expect(calls.filter((call) => /^dellma\.(candidates|retrieve)/.test(call.purpose)).every((call) => call.constrained === 'none')).toBe(true);
    const declared = undeclaredReplies(techniqueNamed('dellma'), server.chatRequests());
    expect(declared.undeclared).toEqual([]);
    expect(declared.structured).toBeGreaterThanOrEqual(3 * 3);
  });

  it('dwb dellma solve completes and prints the accuracy its decisions earn, and the run record says each call was held', async () => {
    // Avocado where it is offered, else apple: problem 1 [apple, avocado] is right (avocado is best), problem 2 [apple, grape] wrong.
    const server = await serve(
      dellmaModel((request) => {
        const options = new Set(scenariosOf(request).map((scenario) => scenario.option));
        return options.has('avocado') ? 'avocado' : 'apple';
      }),
      { structuredOnly: true },
    );
    const out = tempDir();
    const result = await runDwb(['dellma', 'solve', '--problems', 'agriculture', '--limit', '2', '--samples', '8', '--batch', '8', '--base-url', server.baseUrl, '--model', 'scripted', '--out', out], { timeoutMs: 240_000 });
    expect(server.failures).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^problem 1 \[apple, avocado\]: decision=avocado best=avocado correct/);
    expect(lines[1]).toMatch(/^problem 2 \[apple, grape\]: decision=apple best=grape wrong/);
    expect(lines[2]).toBe('accuracy: 1/2 (50.0%)');
    expect(server.probes).toHaveLength(1);
    const record = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as { calls: { purpose: string; constrained?: string }[]; model: { settings: unknown } };
    expect(record.calls.length).toBeGreaterThan(1);
    expect(record.calls.every((call) => call.constrained === 'json-schema')).toBe(true);
    expect(record.model.settings).toMatchObject({ structuredOutput: { jsonSchema: true } });
    // The paper's pipeline asks for the same replies the DeLLMa technique declares.
    expect(undeclaredReplies(techniqueNamed('dellma'), server.chatRequests()).undeclared).toEqual([]);
  });
});
