/**
 * `dwb dqa solve --engine dellma`: the registered DeLLMa technique on DQA dev questions, through
 * the real CLI and the real `openai` SDK against the scripted server. The scripted model
 * shortlists, writes one query, forecasts, and ranks every scenario of one chosen candidate
 * first; the decision is made in code from the rankings and judged by the simulator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dqaQuestionText } from '../../../src-main/benchmark/dqa-question-text';
import { dellmaFitSchema, dellmaFrameSchema, dellmaRankSchema, dellmaSamplingSchema } from '../../../src-main/contract/dellma';
import { problemSeed } from '../../../src-main/engine/techniques/dellma/pipeline';
import { dellmaProblemNumber, dellmaSettings } from '../../../src-main/engine/techniques/dellma/technique';
import { runDwb } from '../../support/cli';
import { devQuestions, simulate, writeQuestionFile, type DqaQuestion } from '../../support/dqa-technique-model';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptedTurn } from '../../support/scripted-openai';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { forecastAnswer, isForecast, rankingPreferring } from './scripted-dellma-model';

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

const userText = (request: ReceivedChatRequest): string => messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });

/** The model of one question prefers `preferred[question]`; it tells the question by its text, as the goal in every prompt. */
function dellmaModel(preferred: ReadonlyMap<string, string>): (request: ReceivedChatRequest) => ScriptedTurn {
  return (request) => {
    const text = userText(request);
    const question = questions.find((candidate) => text.includes(dqaQuestionText(candidate))) as DqaQuestion;
    const choice = preferred.get(question.id) as string;
    if (/Keep at most \d+ candidates/.test(text)) {
      const candidates = (/The candidates:\n(.*)\n/.exec(text)?.[1] ?? '').split(', ');
      return { label: `${question.id} shortlist`, content: JSON.stringify({ keep: [choice, ...candidates.filter((name) => name !== choice)].slice(0, 7) }) };
    }
    if (text.includes('first column lists every candidate')) return { label: `${question.id} candidates`, content: '```sql\nSELECT trade_node FROM trade_node ORDER BY trade_node\n```' };
    if (text.includes('Write one query that retrieves')) return { label: `${question.id} query`, content: "```sql\nSELECT count(*) AS nodes FROM trade_node\n```" };
    if (isForecast(request)) return { label: `${question.id} forecast`, content: forecastAnswer(request) };
    const rank = rankingPreferring(request, choice);
    return { label: `${question.id} rank`, content: JSON.stringify({ decision: rank[0], rank, explanation: `${choice} looks best in every future.` }) };
  };
}

describe('dwb dqa solve --engine dellma', () => {
  it('decides each question by expected utility from the rankings, is judged by the simulator and prints the accuracy', async () => {
    const best = new Map(questions.map((question) => [question.id, simulate('locating', question).best]));
    const wrongFor = (question: DqaQuestion): string => simulate('locating', question).candidates.find((row) => !simulate('locating', question).tied.includes(row.candidate))?.candidate as string;
    const l2 = questions[1] as DqaQuestion;
    // L1 and L3 prefer the simulator's best, L2 a candidate that is not tied with it.
    const preferred = new Map([...best, ['L2', wrongFor(l2)]]);
    const server = await startScriptedOpenAiServer(Array.from({ length: 200 }, () => dellmaModel(preferred)));
    servers.push(server);
    const out = tempDir();
    const result = await runDwb(['dqa', 'solve', '--questions', file, '--engine', 'dellma', '--db', 'rdb', '--base-url', server.baseUrl, '--model', 'scripted', '--concurrency', '1', '--out', out], { timeoutMs: 240_000 });
    expect(server.failures).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe(`L1  decision=${best.get('L1')}  annotated=${best.get('L1')}  agree`);
    expect(lines[1]).toMatch(new RegExp(`^L2 {2}decision=${preferred.get('L2')} {2}annotated=\\w+ {2}disagree$`));
    expect(lines.slice(-3, -1)).toEqual(['accuracy: 2/3', 'accuracy (ties counted): 2/3']);
    // [ext] The judge scores each run's expected utilities against the simulator's order of its options.
    const taus = questions.map((question) => (JSON.parse(readFileSync(join(out, question.id, 'result.json'), 'utf8')) as { utilityTau: number }).utilityTau);
    for (const tau of taus) expect(Math.abs(tau)).toBeLessThanOrEqual(1);
    expect(lines.at(-1)).toBe(`kendall tau [ext]: ${(taus.reduce((sum, tau) => sum + tau, 0) / 3).toFixed(3)} (mean over 3 questions: expected utilities against the simulator's order)`);

    const events = readFileSync(join(out, 'L1', 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { event: { type: string; tool?: string; input?: unknown } }).event);
    const tools = events.filter((event) => event.type === 'tool').map((event) => event.tool);
    expect(tools.slice(0, 3)).toEqual(['dellma.frame', 'dellma.forecast', 'dellma.sampling']);
    // The benchmark offers no simulator to the run (it judges afterwards), so there is no audit step here.
    expect(tools.slice(-2)).toEqual(['dellma.fit', 'dellma.expected']);
    expect(events.some((event) => event.type === 'simulation')).toBe(false);
    const frame = dellmaFrameSchema.parse(events.find((event) => event.tool === 'dellma.frame')?.input);
    expect(frame.source).toBe('query');
    expect(frame.actions).toContain(best.get('L1'));
    expect(frame.actions).toHaveLength(7);
    expect(frame.pruned.length).toBeGreaterThan(0);
    const queries = events.filter((event) => event.type === 'query-start').map((event) => (event as unknown as { query: string }).query);
    expect(queries).toEqual(['SELECT trade_node FROM trade_node ORDER BY trade_node', 'SELECT count(*) AS nodes FROM trade_node']);
    const calls = server.chatRequests().filter((request) => userText(request).includes(dqaQuestionText(questions[0] as DqaQuestion)));
    const ranks = events.filter((event) => event.tool === 'dellma.rank').map((event) => dellmaRankSchema.parse(event.input));
    // The candidate query, the shortlist, the context query, the forecast, one call per batch: 7 options × 16 states in batches of 32, stride 24.
    expect(ranks).toHaveLength(5);
    expect(calls).toHaveLength(4 + ranks.length);
    // [ext] The fitted utilities keep each batch's order almost exactly (the regulariser and the overlaps blur the tail a little).
    const fit = dellmaFitSchema.parse(events.find((event) => event.tool === 'dellma.fit')?.input);
    expect(fit.batchAgreement).toHaveLength(ranks.length);
    for (const agreement of fit.batchAgreement ?? []) expect(agreement).toBeGreaterThan(0.9);
    expect(fit.rankAgreement).toBeGreaterThan(0.9);
    // Each ranking is written as soon as it is in: rank events alternate with the model's answers.
    const order = events.filter((event) => event.type === 'model-response' || event.tool === 'dellma.rank').map((event) => (event.type === 'tool' ? 'rank' : 'response'));
    expect(order.slice(-2 * ranks.length)).toEqual(ranks.flatMap(() => ['response', 'rank']));

    // Each question's draw is seeded by its DQA id: three questions, three seeds, as documented.
    const seeds = questions.map((question) => {
      const logged = readFileSync(join(out, question.id, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { event: { tool?: string; input?: unknown } }).event);
      return dellmaSamplingSchema.parse(logged.find((event) => event.tool === 'dellma.sampling')?.input).seed;
    });
    expect(seeds).toEqual(questions.map((question) => problemSeed(dellmaSettings.seed, dellmaProblemNumber(question.id))));
    expect(new Set(seeds).size).toBe(3);
  });
});
