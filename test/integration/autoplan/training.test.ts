import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { trainDqaPlaybook, type PlaybookTrainingResult } from '../../../src-main/benchmark/playbook-training';
import { dqaQuestionText } from '../../../src-main/benchmark/dqa-question-text';
import { readQuestionSet } from '../../../src-main/dqa/question-file';
import type { PlaybookVersion } from '../../../src-main/engine/techniques/autoplan/playbook';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { parseProviderSettings } from '../../../src-main/llm/settings';
import { autoplanScript, purposeOf, questionIdOf, type AutoplanPurpose } from '../../support/autoplan-script';
import { devQuestions, simulate, writeQuestionFile } from '../../support/dqa-technique-model';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import { messageText, type ReceivedChatRequest } from '../../support/scripted-openai/script';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const ids = ['L1', 'L2', 'L3', 'L4', 'L5', 'L6', 'L7', 'L8'];
const questions = devQuestions('locating', ids);
const PLAYBOOK_1 = '1. Query the home node and the nodes that flow into it.\n2. Finish with the node that adds most to the home node.';
const PLAYBOOK_2 = '1. Query the home node, its upstream nodes and their ingoing value and total power.\n2. Compare the candidates by the rules.\n3. Finish with the best node.';
let questionsFile = '';
const answers = new Map<string, string>();

beforeAll(() => {
  questionsFile = writeQuestionFile(join(suiteDir(), 'locating.json'), 'locating', questions);
  // Odd questions right (the simulator's best), even ones wrong.
  questions.forEach((question, index) => answers.set(question.id, index % 2 === 0 ? simulate('locating', question).best : 'nowhere_node'));
});

async function train(options: { reflection?: 'sir' | 'summary-only'; playbooks?: string[] } = {}): Promise<{ result: PlaybookTrainingResult; requests: ReceivedChatRequest[]; outDir: string }> {
  const server = await startScriptedOpenAiServer(autoplanScript({ questions, answers, playbooks: options.playbooks ?? [PLAYBOOK_1, PLAYBOOK_2] }));
  servers.push(server);
  const outDir = tempDir();
  const result = await trainDqaPlaybook({
    set: readQuestionSet(questionsFile),
    db: 'rdb',
    batchSize: 4,
    model: createOpenAiProvider(parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'text' })),
    modelName: 'scripted',
    temperature: 0.7,
    maxActions: 5,
    reflection: options.reflection ?? 'sir',
    outDir,
  });
  expect(server.failures).toEqual([]);
  return { result, requests: server.chatRequests(), outDir };
}

const count = (requests: ReceivedChatRequest[], purpose: AutoplanPurpose, id?: string): number =>
  requests.filter((request) => purposeOf(request) === purpose && (id === undefined || (purpose !== 'update' && purpose !== 'formalizer' && questionIdOf(request, questions) === id))).length;

describe('AutoPlan playbook training over DQA (relational dumps, SQLite, scripted model)', () => {
  it('runs 8 training questions in 2 sequential batches of 4 with one update each, the SIR call pattern per question and the playbook injected only once it exists', async () => {
    const { result, requests, outDir } = await train();
    expect(result.versions).toHaveLength(2);
    expect(result.versions.map((version) => version.batch.questionIds)).toEqual([ids.slice(0, 4), ids.slice(4)]);
    expect(result.versions.map((version) => version.playbook)).toEqual([PLAYBOOK_1, PLAYBOOK_2]);
    expect(result.versions[1]?.parent).toBe(result.versions[0]?.hash);
    expect(result.versions.map((version) => version.successRate)).toEqual([0.5, 0.5]);
    expect(result.versions[0]?.jobs.map((job) => job.success)).toEqual([true, false, true, false]);

    for (const [index, id] of ids.entries()) {
      const withPlaybook = index >= 4;
      // Two steps: a free-form query (formalizer call) and a valid Finish (fast path).
      expect(count(requests, 'thought', id)).toBe(2);
      expect(count(requests, 'action', id)).toBe(2);
      expect(count(requests, 'summary', id)).toBe(1);
      expect(count(requests, 'flaws', id)).toBe(1);
      expect(count(requests, 'revision', id)).toBe(withPlaybook ? 1 : 0);
      const job = result.versions[withPlaybook ? 1 : 0]?.jobs.find((candidate) => candidate.questionId === id);
      expect(job?.steps.map((step) => step.formalizerCalled)).toEqual([true, false]);
      // The formalizer's second action is dropped; the query ran against the real database.
      expect(job?.steps[0]?.action).toBe(`Query[SELECT '${id}' AS question, count(*) AS nodes FROM trade_node]`);
      expect(job?.steps[0]?.observation).toContain(id);
      expect(job?.steps[0]?.thought).not.toContain('extra line');
      for (const request of requests.filter((r) => purposeOf(r) !== 'update' && purposeOf(r) !== 'formalizer' && questionIdOf(r, questions) === id)) {
        const opening = messageText(request.chat.messages[1] ?? { role: 'user', content: '' });
        if (withPlaybook) {
          expect(opening.split(PLAYBOOK_1)).toHaveLength(2);
          expect(opening.indexOf('# Business rules')).toBeLessThan(opening.indexOf('# Playbook'));
          expect(opening.indexOf('# Playbook')).toBeLessThan(opening.indexOf('# Question'));
        } else expect(opening).not.toContain('# Playbook');
      }
      const thought = requests.find((r) => purposeOf(r) === 'thought' && questionIdOf(r, questions) === id) as ReceivedChatRequest;
      expect(messageText(thought.chat.messages.at(-1) ?? { role: 'user', content: '' })).toMatch(withPlaybook ? /\nThought: in one line, say which playbook step[^\n]*$/ : /\nThought: in one line, your thought about[^\n]*$/);
    }
    expect(count(requests, 'formalizer')).toBe(8);
    expect(count(requests, 'update')).toBe(2);

    // Sampling while collecting experience; greedy reflection, formalizer and update.
    for (const request of requests) {
      const purpose = purposeOf(request);
      expect(request.chat.temperature, purpose).toBe(purpose === 'thought' || purpose === 'action' ? 0.7 : 0);
    }

    // Reflection sees the whole trajectory and the outcome; the hints appear in the summary request only.
    const summary = requests.find((r) => purposeOf(r) === 'summary' && questionIdOf(r, questions) === 'L1') as ReceivedChatRequest;
    const summaryText = summary.chat.messages.map(messageText).join('\n');
    expect(summaryText).toContain("Query[SELECT 'L1' AS question");
    expect(summaryText).toContain('Observation:');
    expect(summaryText).toContain(`Finish[${answers.get('L1') ?? ''}] is the best decision`);
    expect(summaryText).toContain(`the best decision was ${simulate('locating', questions[0] as (typeof questions)[0]).best}`);
    for (const request of requests.filter((r) => purposeOf(r) === 'thought' || purposeOf(r) === 'action')) {
      expect(request.chat.messages.map(messageText).join('\n')).not.toContain('Training hint');
    }

    // The update: a fresh conversation with the current playbook and every job of its batch, in job order.
    const updates = requests.filter((r) => purposeOf(r) === 'update');
    for (const [batch, update] of updates.entries()) {
      expect(update.chat.messages.map((message) => message.role)).toEqual(['system', 'user']);
      const text = messageText(update.chat.messages[1] ?? { role: 'user', content: '' });
      expect(text).not.toContain('Observation');
      expect(text).not.toContain('Training hint');
      expect(text).toContain(batch === 0 ? '(none yet)' : PLAYBOOK_1);
      expect(text).toMatch(/Never name specific nodes, buildings/);
      const batchIds = ids.slice(batch * 4, batch * 4 + 4);
      const positions = batchIds.map((id) => text.indexOf(`Summary of ${id}`));
      expect(positions.every((position) => position > text.indexOf('Experiences begin') && position < text.indexOf('Experiences end'))).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      for (const [index, id] of batchIds.entries()) {
        const question = questions.find((q) => q.id === id) as (typeof questions)[0];
        expect(text).toContain(`## Job ${index + 1}\nObjective: ${dqaQuestionText(question)}\nResult: ${index % 2 === 0 ? 'success' : 'fail'}\nSummary of ${id}`.replace('Summary of', 'Summary: Summary of'));
        expect(text).toContain(`Flaws: Flaws of ${id}`);
        if (batch === 1) expect(text).toContain(`Suggested revision: Revision of ${id}`);
        else expect(text).not.toContain('Suggested revision');
      }
      for (const other of ids.filter((id) => !batchIds.includes(id))) expect(text).not.toContain(`Summary of ${other}`);
    }

    // Every version on disk: JSON, Markdown, and the diff from the previous version.
    const stored = JSON.parse(readFileSync(join(outDir, 'v002.json'), 'utf8')) as PlaybookVersion;
    expect(stored).toEqual(result.versions[1]);
    expect(readFileSync(join(outDir, 'v002.md'), 'utf8')).toContain(PLAYBOOK_2);
    const diff = readFileSync(join(outDir, 'v002.diff'), 'utf8');
    expect(diff).toContain('-2. Finish with the node that adds most to the home node.');
    expect(diff).toContain('+3. Finish with the best node.');
    expect(readFileSync(join(outDir, 'v001.diff'), 'utf8')).toContain('+1. Query the home node and the nodes that flow into it.');
    expect(result.versions.every((version) => version.cost.calls > 0 && version.specifics.length === 0)).toBe(true);
  }, 120_000);

  it('reproduces identical versions and hashes on a re-run', async () => {
    const first = await train();
    const second = await train();
    expect(second.result.versions.map((version) => version.hash)).toEqual(first.result.versions.map((version) => version.hash));
    expect(second.result.versions).toEqual(first.result.versions);
  }, 120_000);

  it('keeps only Summarize in the no-reflection ablation, and flags a playbook that names a candidate of its batch', async () => {
    const best = simulate('locating', questions[0] as (typeof questions)[0]).best;
    const { result, requests } = await train({ reflection: 'summary-only', playbooks: [`1. Always pick ${best}.`, PLAYBOOK_2] });
    expect(count(requests, 'flaws')).toBe(0);
    expect(count(requests, 'revision')).toBe(0);
    expect(count(requests, 'summary')).toBe(8);
    for (const update of requests.filter((r) => purposeOf(r) === 'update')) {
      const text = messageText(update.chat.messages[1] ?? { role: 'user', content: '' });
      expect(text).not.toContain('Flaws:');
      expect(text).not.toContain('Suggested revision:');
    }
    expect(result.versions[0]?.settings.reflection).toBe('summary-only');
    expect(result.versions[0]?.specifics).toEqual([best]);
    expect(result.versions[1]?.specifics).toEqual([]);
  }, 120_000);
});
