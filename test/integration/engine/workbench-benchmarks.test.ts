import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchmarkSummary } from '../../../src-main/contract/benchmarks';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { devQuestions, questionOfRequest, techniqueModel, writeQuestionFile } from '../../support/dqa-technique-model';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(...args: Parameters<typeof techniqueModel>): Promise<ScriptedOpenAiServer> {
  const server = await startScriptedOpenAiServer(techniqueModel(...args));
  cleanups.push(() => server.close());
  return server;
}

function open(workspaceDir: string): Workbench {
  const workbench = openWorkbench({ workspaceDir, platform: { transport: 'websocket' }, installDemo: false });
  cleanups.push(() => workbench.close());
  return workbench;
}

/** Resolves with the first pushed summary of `id` that satisfies `test`. */
function progressOf(workbench: Workbench, test: (summary: BenchmarkSummary) => boolean): Promise<BenchmarkSummary> {
  return new Promise((resolve) => {
    const stop = workbench.subscribe((event, payload) => {
      if (event === 'benchmark-progress' && test(payload as BenchmarkSummary)) {
        stop();
        resolve(payload as BenchmarkSummary);
      }
    });
  });
}

const questions = devQuestions('locating', ['L1', 'L2', 'L3', 'L4']);
const scripts = new Map(
  questions.map((question, index) => [question.id, { queries: [`SELECT '${question.id}' AS question, count(*) AS nodes FROM trade_node`], answer: index < 3 ? question.answer : 'krakow' }]),
);
const settings = (baseUrl: string) => ({ baseUrl, model: 'scripted', temperature: 0, maxTokens: 100, requestTimeoutMs: 10_000, maxRetries: 0, stream: true, toolMode: 'tools' as const });

describe('benchmarks in the workbench', () => {
  it('runs techniques × database kinds on the configured model, reports progress and the table, and opens a question as a notebook', async () => {
    const server = await serve(questions, scripts);
    const file = writeQuestionFile(join(tempDir(), 'questions.json'), 'locating', questions);
    const workspace = tempDir();
    const workbench = open(workspace);
    await expect(workbench.invoke('benchmarks/start', { questionsFile: file, techniques: ['iterrag'], dbs: ['rdb'] })).rejects.toThrow(/No model is set up/);
    await workbench.invoke('model/save', { settings: settings(server.baseUrl) });

    const finished = progressOf(workbench, (summary) => summary.status === 'finished');
    const seen: number[] = [];
    workbench.subscribe((event, payload) => {
      if (event === 'benchmark-progress') seen.push((payload as BenchmarkSummary).progress.done);
    });
    const started = await workbench.invoke('benchmarks/start', { questionsFile: file, techniques: ['iterrag', 'singlerag'], dbs: ['rdb'], concurrency: 2 });
    expect(started).toMatchObject({ status: 'running', progress: { done: 0, total: 8 }, model: `scripted at ${server.baseUrl.replace(/\/$/, '')}` });
    const done = await finished;
    expect(done.progress).toEqual({ done: 8, total: 8, correct: 6, correctWithTies: 6, tokens: 8 * 2 * 110 });
    expect(seen).toEqual(expect.arrayContaining([1, 2, 3, 4, 5, 6, 7, 8]));
    expect(server.chatRequests()).toHaveLength(16);

    const table = await workbench.invoke('benchmarks/results', { id: started.id });
    expect(table.rows.map((row) => [row.technique, row.db, row.questions, row.correct])).toEqual([
      ['singlerag', 'rdb', 4, 3],
      ['iterrag', 'rdb', 4, 3],
    ]);
    expect(table.questions.find((result) => result.id === 'L4' && result.technique === 'iterrag')?.failure.category).toBe('MIS');

    // The analyst labels what the log could not tell; the reports follow.
    const labelled = await workbench.invoke('benchmarks/label', { id: started.id, technique: 'iterrag', db: 'rdb', questionId: 'L4', category: 'DEEP' });
    expect(labelled.failure).toMatchObject({ category: 'DEEP', automatic: false });
    expect(labelled.failure.evidence.at(-1)).toBe('labelled by the analyst: DEEP');
    const relabelled = await workbench.invoke('benchmarks/label', { id: started.id, technique: 'iterrag', db: 'rdb', questionId: 'L4', category: 'OTH' });
    expect(relabelled.failure.evidence.filter((line) => line.startsWith('labelled by the analyst'))).toEqual(['labelled by the analyst: OTH']);
    expect((await workbench.invoke('benchmarks/results', { id: started.id })).rows.find((row) => row.technique === 'iterrag')?.failures).toEqual({ OTH: 1 });
    expect(readFileSync(join(started.directory, 'results.md'), 'utf8')).toMatch(/\| L4 \| IterRAG \(ReAct\) \| rdb \|.*\| OTH \|/);
    await expect(workbench.invoke('benchmarks/label', { id: started.id, technique: 'iterrag', db: 'rdb', questionId: 'L1', category: 'DEEP' })).rejects.toThrow(/answered right: it has no failure to label/);

    const { notebookId } = await workbench.invoke('benchmarks/open-question', { id: started.id, technique: 'iterrag', db: 'rdb', questionId: 'L2' });
    const notebook = await workbench.invoke('notebooks/get', { id: notebookId });
    expect(notebook.title).toBe('L2 · iterrag · rdb (benchmark)');
    expect(notebook.cells.map((cell) => cell.kind)).toEqual(['question', 'query', 'observation', 'decision']);
    expect(notebook.cells[1]?.source).toBe("SELECT 'L2' AS question, count(*) AS nodes FROM trade_node");
    expect(notebook.cells[1]?.output?.status).toBe('ok');
    await expect(workbench.invoke('benchmarks/open-question', { id: started.id, technique: 'iterrag', db: 'rdb', questionId: '../../etc' })).rejects.toThrow(/has no decided question/);

    // Runs persist in the workspace.
    await workbench.close();
    cleanups.pop();
    const reopened = open(workspace);
    expect((await reopened.invoke('benchmarks/list', {})).map((summary) => [summary.id, summary.status, summary.progress.done])).toEqual([[started.id, 'finished', 8]]);
  });

  it('runs at paper fidelity unless the start form chooses otherwise, stores the choice with the spec and records it in every run', async () => {
    const one = questions.slice(0, 1);
    const server = await serve(one, scripts);
    const file = writeQuestionFile(join(tempDir(), 'one.json'), 'locating', one);
    const workbench = open(tempDir());
    await workbench.invoke('model/save', { settings: { ...settings(server.baseUrl), temperature: 0.5 } });
    const runStartOf = (summary: BenchmarkSummary): { fidelity?: { fidelity: string; temperature: number | null } } =>
      readFileSync(join(summary.directory, 'iterrag-rdb', 'L1', 'run-log.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { event: { type: string; fidelity?: { fidelity: string; temperature: number | null } } }).event)
        .find((event) => event.type === 'run-start') ?? {};

    const paperDone = progressOf(workbench, (summary) => summary.status === 'finished');
    const paper = await workbench.invoke('benchmarks/start', { questionsFile: file, techniques: ['iterrag'], dbs: ['rdb'] });
    expect(paper.spec.fidelity).toBe('paper');
    await paperDone;
    expect(runStartOf(paper).fidelity).toMatchObject({ fidelity: 'paper', temperature: 0 });

    const productDone = progressOf(workbench, (summary) => summary.status === 'finished' && summary.id !== paper.id);
    const product = await workbench.invoke('benchmarks/start', { questionsFile: file, techniques: ['iterrag'], dbs: ['rdb'], fidelity: 'product', temperature: 0.7 });
    expect(product.spec).toMatchObject({ fidelity: 'product', temperature: 0.7 });
    await productDone;
    expect(runStartOf(product).fidelity).toMatchObject({ fidelity: 'product', temperature: 0.7 });
    expect(server.chatRequests().map((request) => request.chat.temperature)).toEqual([0, 0, 0.7, 0.7]);
  });

  it('stops with the decided questions kept, and resumes without asking them again', async () => {
    const slow = await serve(questions, scripts, { delayMs: 400 });
    const file = writeQuestionFile(join(tempDir(), 'questions.json'), 'locating', questions);
    const workbench = open(tempDir());
    await workbench.invoke('model/save', { settings: settings(slow.baseUrl) });
    const oneDone = progressOf(workbench, (summary) => summary.progress.done >= 1);
    const started = await workbench.invoke('benchmarks/start', { questionsFile: file, techniques: ['iterrag'], dbs: ['rdb'], concurrency: 1 });
    await oneDone;
    const stopped = await workbench.invoke('benchmarks/stop', { id: started.id });
    expect(stopped.status).toBe('stopped');
    const decided = stopped.progress.done;
    expect(decided).toBeGreaterThanOrEqual(1);
    expect(decided).toBeLessThan(4);
    const decidedBefore = (await workbench.invoke('benchmarks/results', { id: started.id })).questions.map((result) => result.id);
    expect(decidedBefore).toHaveLength(decided);
    expect(slow.chatRequests().length).toBeGreaterThanOrEqual(2 * decided);

    const fast = await serve(questions, scripts);
    await workbench.invoke('model/save', { settings: { ...settings(fast.baseUrl), model: 'another-model' } });
    await expect(workbench.invoke('benchmarks/resume', { id: started.id })).rejects.toThrow(/ran on scripted; the configured model is another-model/);
    // The same model behind another endpoint (a restarted server) is the same benchmark.
    await workbench.invoke('model/save', { settings: settings(fast.baseUrl) });
    const finished = progressOf(workbench, (summary) => summary.status === 'finished');
    const resumed = await workbench.invoke('benchmarks/resume', { id: started.id });
    expect(resumed.status).toBe('running');
    const done = await finished;
    expect(done.progress).toMatchObject({ done: 4, total: 4, correct: 3 });
    const askedAfter = fast.chatRequests().map((request) => questionOfRequest(request, questions).id);
    expect(askedAfter).toHaveLength(2 * (4 - decided));
    const decidedIds = (await workbench.invoke('benchmarks/results', { id: started.id })).questions.map((result) => result.id);
    expect(decidedIds.sort()).toEqual(['L1', 'L2', 'L3', 'L4']);
    // The questions decided before the stop were not asked again.
    expect(askedAfter.filter((id) => decidedBefore.includes(id))).toEqual([]);
    await expect(workbench.invoke('benchmarks/stop', { id: started.id })).rejects.toThrow(/is not running/);
  });
});
