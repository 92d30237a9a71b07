/**
 * Results that say what produced them (issue 25), through the real CLI against the scripted
 * OpenAI-compatible server: Pearl's decisions made by its PlanRAG fallback are counted as the
 * fallback's in result.json, results.json and results.md; every results file names the model
 * as the server named it and the settings; a resume with other settings is refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { QuestionResult } from '../../../src-main/benchmark/question-result';
import type { ResultsTable } from '../../../src-main/benchmark/results-table';
import { runDwb, type CliResult } from '../../support/cli';
import { devQuestions, questionOfRequest, simulate, techniqueModel, writeQuestionFile, type QuestionScript } from '../../support/dqa-technique-model';
import type { ReceivedChatRequest, ScriptStep, ScriptedTurn } from '../../support/scripted-openai/script';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { useScriptedOpenAiServers } from '../../support/lifecycle';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
const serve = useScriptedOpenAiServers();

const solve = (args: string[]): Promise<CliResult> => runDwb(['dqa', 'solve', ...args], { timeoutMs: 240_000, maxBuffer: 32 * 1024 * 1024 });
const readResult = (dir: string, id: string): QuestionResult => JSON.parse(readFileSync(join(dir, id, 'result.json'), 'utf8')) as QuestionResult;

const questions = devQuestions('locating', ['L1', 'L2']);
let questionsFile = '';
beforeAll(() => {
  questionsFile = writeQuestionFile(join(suiteDir(), 'locating.json'), 'locating', questions);
});

const offersProgram = (request: ReceivedChatRequest): boolean => (request.chat?.tools ?? []).some((tool) => tool.function.name === 'program');
/** A program Pearl's parser refuses: an action no library has. */
const refusedProgram = 'New actions:\n- None\n\n1. out1 = NO_SUCH_ACTION(DB) : nothing';

/**
 * Pearl's planner always gets a program its parser refuses, so after 8 attempts PlanRAG answers
 * each question with the simulator's best; the server names itself "served-7b", not the
 * configured "scripted".
 */
function pearlFallingBack(): ScriptStep[] {
  const turn = (request: ReceivedChatRequest): ScriptedTurn => {
    if (offersProgram(request)) return { label: 'refused program', model: 'served-7b', toolCalls: [{ name: 'program', arguments: { program: refusedProgram } }] };
    const question = questionOfRequest(request, questions);
    const stage = (request.chat?.messages ?? []).filter((message) => message.role === 'assistant').length;
    const call = stage === 0 ? { name: 'plan', arguments: { steps: ['Compare the upstream nodes', 'Decide'] } } : { name: 'answer', arguments: { decision: simulate('locating', question).best, rationale: 'the fallback decides' } };
    return { label: `${question.id} fallback turn ${stage + 1}`, model: 'served-7b', toolCalls: [call] };
  };
  return Array.from({ length: 40 }, () => turn);
}

describe('dwb dqa solve --engine pearl when every program is refused', () => {
  it('counts each decision as PlanRAG\'s, made as Pearl\'s fallback, in result.json, results.json, results.md and on stdout, and names the model as served', async () => {
    const server = await serve(pearlFallingBack());
    const out = tempDir();
    // Product fidelity: PlanRAG is the product's fallback (the paper's, a zero-shot answer, is
    // tested in test/integration/engine/fidelity-cli.test.ts).
    const result = await solve(['--questions', questionsFile, '--engine', 'pearl', '--fidelity', 'product', '--db', 'rdb', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--max-steps', '30', '--concurrency', '1', '--out', out]);
    expect(server.failures).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('accuracy: 2/2');
    expect(result.stdout.split('\n')[0]).toMatch(/^L1 {2}decision=krakow .* {2}decided-by=pearl → planrag fallback$/);

    for (const question of questions) {
      const recorded = readResult(out, question.id);
      expect(recorded.technique).toBe('pearl');
      expect(recorded.decidedBy).toBe('pearl → planrag fallback');
      expect(recorded.toolAssisted).toBe(false);
      expect(recorded.producedBy).toMatchObject({
        technique: 'pearl',
        decidedBy: { technique: 'planrag', label: 'PlanRAG', fallback: { of: 'pearl', ofLabel: 'Pearl', reason: 'after 8 refused programs' }, toolAssisted: null },
        fallbacks: [{ from: 'pearl', to: 'planrag', reason: 'after 8 refused programs' }],
        model: { configured: 'scripted', served: ['served-7b'], endpoint: server.baseUrl, file: null },
        maxSteps: 30,
        toolMode: 'tools',
      });
      expect(recorded.producedBy?.structuredOutput).toHaveLength(10);
    }

    const table = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsTable;
    expect(table.rows).toHaveLength(1);
    expect(table.rows[0]?.deciders).toEqual([{ key: 'pearl → planrag fallback', label: "PlanRAG as Pearl's fallback", questions: 2, correct: 2, correctWithTies: 2 }]);
    expect(table.rows[0]?.models).toEqual(['served-7b (configured as scripted)']);
    expect(table.rows[0]?.producedBy).toContainEqual({ label: 'Fallbacks', value: '2 of 2 runs: pearl → planrag after 8 refused programs' });

    const markdown = readFileSync(join(out, 'results.md'), 'utf8');
    // Pearl's accuracy cell says who earned it; the fallback's decisions have their own row.
    expect(markdown).toContain("| Pearl | 100.0% (2/2; ties 2/2; PlanRAG as Pearl's fallback decided 2) |");
    expect(markdown).toContain("| Pearl | locating | rdb | PlanRAG as Pearl's fallback | 2 | 2/2 (100.0%) | 2/2 | 0 |");
    expect(markdown).toContain('| Model | served-7b (configured as scripted) |');
    expect(markdown).toContain(`| Endpoint | ${server.baseUrl} |`);
    expect(markdown).toContain('| Step limit | 30 |');
    expect(markdown).toMatch(/\| Product version \| \d+\.\d+\.\d+/);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('PlanRAG as Pearl&#39;s fallback');
    expect(html).toContain('<td>served-7b (configured as scripted)</td>');
  }, 300_000);
});

describe('dwb dqa solve resumed into the same --out', () => {
  it('refuses other settings, naming each that differs and what to do, keeps the earlier answers, and resumes with the same ones', async () => {
    const scripts = new Map<string, QuestionScript>(questions.map((question) => [question.id, { queries: [`SELECT '${question.id}' AS question, count(*) AS nodes FROM trade_node`], answer: simulate('locating', question).best }]));
    const server = await serve(techniqueModel(questions, scripts));
    const out = tempDir();
    const args = (model: string, steps: string): string[] => ['--questions', questionsFile, '--engine', 'iterrag', '--db', 'rdb', '--base-url', server.baseUrl, '--model', model, '--tool-mode', 'tools', '--max-steps', steps, '--out', out];
    const first = await solve(args('scripted', '20'));
    expect(first.code, first.stderr).toBe(0);
    const before = readFileSync(join(out, 'L1', 'result.json'), 'utf8');
    const calls = server.chatRequests().length;

    const other = await solve(args('another-model', '5'));
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain(`${join(out, 'L1')} was decided with other settings (model scripted, now another-model; step limit 20, now 5)`);
    expect(other.stderr).toContain('Give another --out directory for the new settings, or run again with the recorded ones.');
    expect(other.stdout).toBe('');
    expect(server.chatRequests()).toHaveLength(calls);
    expect(readFileSync(join(out, 'L1', 'result.json'), 'utf8')).toBe(before);

    const same = await solve(args('scripted', '20'));
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toContain('2 question(s) were decided by an earlier run and not asked again');
    expect(same.stdout.trim().split('\n').slice(-2)).toEqual(['accuracy: 2/2', 'accuracy (ties counted): 2/2']);
    expect(server.chatRequests()).toHaveLength(calls);
  }, 300_000);
});
