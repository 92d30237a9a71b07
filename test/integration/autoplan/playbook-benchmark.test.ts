import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../src-main/contract/api';
import type { BenchmarkSummary } from '../../../src-main/contract/benchmarks';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { autoplanScript } from '../../support/autoplan-script';
import { devQuestions, questionOfRequest, simulate, writeQuestionFile } from '../../support/dqa-technique-model';
import { useCleanups } from '../../support/lifecycle';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import { messageText, type ReceivedChatRequest, type ScriptedTurn } from '../../support/scripted-openai/script';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const onCleanup = useCleanups();

const ids = ['L1', 'L2', 'L3', 'L4', 'L5', 'L6', 'L7', 'L8'];
const questions = devQuestions('locating', ids);
const answers = new Map(questions.map((question) => [question.id, simulate('locating', question).best]));
const PLAYBOOK_1 = '1. Query the home node and the nodes that flow into it.\n2. Finish with the node that adds most to the home node.';
const PLAYBOOK_2 = '1. Query the upstream nodes of the home node with their ingoing value and total power.\n2. Compare them by the rules.\n3. Finish with the best node.';

function waitFor<E extends EventName>(workbench: Workbench, event: E, test: (payload: EventPayload<E>) => boolean, timeoutMs = 200_000): Promise<EventPayload<E>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} in time`)), timeoutMs);
    const stop = workbench.subscribe((name, payload) => {
      const typed = payload as unknown as EventPayload<E>;
      if ((name as EventName) === event && test(typed)) {
        clearTimeout(timer);
        stop();
        resolve(typed);
      }
    });
  });
}

/**
 * A model that finds the best node only when a playbook guides it (the prompt has a
 * `# Playbook` section) and otherwise answers with a node that is never a candidate; a plan
 * comes first where the technique offers the plan tool (PlanRAG).
 */
function comparisonModel(request: ReceivedChatRequest): ScriptedTurn {
  const question = questionOfRequest(request, questions);
  const opening = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
  const offered = (request.chat.tools ?? []).map((tool) => tool.function.name);
  const stage = request.chat.messages.filter((message) => message.role === 'assistant').length;
  const calls = [
    ...(offered.includes('plan') ? [{ name: 'plan', arguments: { steps: ['Look at the home node'] } }] : []),
    { name: 'query', arguments: { query: `SELECT '${question.id}' AS question, count(*) AS nodes FROM trade_node` } },
    { name: 'answer', arguments: { decision: opening.includes('# Playbook') ? (answers.get(question.id) ?? '') : 'atlantis', rationale: 'scripted' } },
  ];
  const call = calls[Math.min(stage, calls.length - 1)] as { name: string; arguments: Record<string, unknown> };
  return { content: opening.includes('# Playbook') ? `Step ${stage + 1}: following the playbook` : '', toolCalls: [call], usage: { promptTokens: 100, completionTokens: 10 } };
}

describe('AutoPlan trained, reviewed and pinned in the workspace, benchmarked against PlanRAG and IterRAG', () => {
  it('trains on part of the dev questions, and the benchmark of the held-out part runs autoplan with the pinned version beside planrag and iterrag', async () => {
    const dir = tempDir();
    const file = writeQuestionFile(join(dir, 'locating.json'), 'locating', questions);
    const trainer = await startScriptedOpenAiServer(autoplanScript({ questions, answers, playbooks: [PLAYBOOK_1, PLAYBOOK_2] }));
    const runner = await startScriptedOpenAiServer(Array.from({ length: 200 }, () => comparisonModel));
    const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' }, installDemo: false });
    onCleanup(() => trainer.close(), () => runner.close(), () => workbench.close());
    const settings = (baseUrl: string) => ({ baseUrl, model: 'scripted', temperature: 0, maxTokens: 100, requestTimeoutMs: 10_000, maxRetries: 0, stream: false, toolMode: 'tools' as const });
    await workbench.invoke('model/save', { settings: settings(trainer.baseUrl) });

    const trained = waitFor(workbench, 'playbooks-change', (payload) => payload.training?.status === 'finished' || payload.training?.status === 'failed');
    const training = await workbench.invoke('playbooks/train', { questionsFile: file, db: 'rdb', batchSize: 2, split: '5:0.5' });
    expect(training.status).toBe('running');
    const ended = await trained;
    expect(trainer.failures).toEqual([]);
    expect(ended.training).toMatchObject({ status: 'finished', versions: 2 });
    const split = JSON.parse(readFileSync(join(training.directory, 'split.json'), 'utf8')) as { train: string[]; heldOut: string[] };
    expect(split.train).toHaveLength(4);
    expect(split.heldOut).toHaveLength(4);

    const task = (await workbench.invoke('playbooks/list', {})).find((entry) => entry.scenario === 'locating' && entry.db === 'rdb');
    expect(task?.versions.map((version) => [version.index, version.status, version.questionIds.length])).toEqual([
      [1, 'proposed', 2],
      [2, 'proposed', 2],
    ]);
    const trainedOn = task?.versions.flatMap((version) => version.questionIds) ?? [];
    expect([...trainedOn].sort()).toEqual([...split.train].sort());
    const v2 = task?.versions[1]?.hash ?? '';
    const detail = await workbench.invoke('playbooks/get', { hash: v2 });
    expect(detail.diff.filter((part) => part.kind === 'added').map((part) => part.text).join('')).toBe(`${PLAYBOOK_2}\n`);
    await workbench.invoke('playbooks/review', { hash: v2, action: 'accept' });
    await workbench.invoke('playbooks/pin', { hash: v2 });

    // The benchmark on the questions the playbook never saw.
    await workbench.invoke('model/save', { settings: settings(runner.baseUrl) });
    const finished = waitFor(workbench, 'benchmark-progress', (summary: BenchmarkSummary) => summary.status === 'finished' || summary.status === 'failed');
    const started = await workbench.invoke('benchmarks/start', { questionsFile: join(training.directory, 'held-out-questions.json'), techniques: ['autoplan', 'planrag', 'iterrag'], dbs: ['rdb'], concurrency: 2 });
    expect((await finished).status).toBe('finished');
    expect(runner.failures).toEqual([]);
    const table = await workbench.invoke('benchmarks/results', { id: started.id });
    expect(table.rows.map((row) => [row.technique, row.questions, row.correct])).toEqual([
      ['iterrag', 4, 0],
      ['planrag', 4, 0],
      ['autoplan', 4, 4],
    ]);
    expect(new Set(table.questions.map((result) => result.id))).toEqual(new Set(split.heldOut));
    expect(table.rows.map((row) => [row.technique, row.playbooks])).toEqual([
      ['iterrag', []],
      ['planrag', []],
      ['autoplan', [v2]],
    ]);

    // Every autoplan run's log names the pinned version; no training hint reached a prompt.
    for (const id of split.heldOut) {
      const log = readFileSync(join(started.directory, 'autoplan-rdb', id, 'run-log.jsonl'), 'utf8').split('\n').filter(Boolean);
      const start = (JSON.parse(log[0] ?? '{}') as { event: { type: string; playbook?: { version: string | null; text: string } } }).event;
      expect(start.playbook).toMatchObject({ version: v2, text: PLAYBOOK_2 });
    }
    for (const request of runner.chatRequests()) {
      const text = request.chat.messages.map(messageText).join('\n');
      for (const hint of ['Training hint', 'the best decision was', 'Summary of', 'Flaws of', 'Revision of']) expect(text).not.toContain(hint);
      for (const id of split.train) expect(text).not.toContain(`for ${id}`);
    }
  }, 300_000);
});
