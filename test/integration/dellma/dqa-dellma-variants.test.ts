/**
 * DeLLMa's variants on the DQA benchmark: `dwb dqa solve --engine dellma --variant … --samples …
 * --batch … --overlap …` and the app's Benchmarks (`benchmarks/start` with `techniqueOptions.dellma`) hand the
 * variant and sizes to every run, and the results table names them. Real CLI and workbench,
 * the real `openai` SDK against a scripted model that ranks the simulator's best first.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkSummary } from '../../../src-main/contract/benchmarks';
import { dellmaSamplingSchema } from '../../../src-main/contract/dellma';
import { openWorkbench } from '../../../src-main/services/workbench';
import { runDwb } from '../../support/cli';
import { devQuestions, writeQuestionFile } from '../../support/dqa-technique-model';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { dqaPrefersBest } from './scripted-dellma-model';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const questions = devQuestions('locating', ['L1', 'L2']);
let file = '';
beforeAll(() => {
  file = writeQuestionFile(join(suiteDir(), 'locating.json'), 'locating', questions);
});

async function serve(turns: number): Promise<ScriptedOpenAiServer> {
  const server = await startScriptedOpenAiServer(Array.from({ length: turns }, () => dqaPrefersBest(questions)));
  cleanups.push(() => server.close());
  return server;
}

const samplingOf = (runLog: string) =>
  dellmaSamplingSchema.parse(
    readFileSync(runLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { event: { tool?: string; input?: unknown } }).event)
      .find((event) => event.tool === 'dellma.sampling')?.input,
  );

describe('DeLLMa variants on the DQA benchmark', () => {
  it('dwb dqa solve passes --variant, --samples, --batch and --overlap to every run and the results name them', async () => {
    const server = await serve(40);
    const out = tempDir();
    const args = ['dqa', 'solve', '--questions', file, '--engine', 'dellma', '--db', 'rdb', '--base-url', server.baseUrl, '--model', 'scripted', '--concurrency', '1', '--out', out];
    const result = await runDwb([...args, '--variant', 'top1', '--samples', '4', '--batch', '8', '--overlap', '0.5'], { timeoutMs: 240_000 });
    expect(server.failures).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('accuracy: 2/2');
    // 7 options × 4 futures = 28 scenarios in windows of 8 at stride 4: 6 ranking calls per question.
    const sampling = samplingOf(join(out, 'L1', 'run-log.jsonl'));
    expect(sampling).toMatchObject({ variant: 'top1', perAction: 4, batch: 8, overlap: 0.5, items: 28 });
    expect(sampling.windows).toHaveLength(6);
    const recorded = JSON.parse(readFileSync(join(out, 'L1', 'result.json'), 'utf8')) as { variant?: string };
    expect(recorded.variant).toBe('top1, s=4, b=8, q=0.5');
    const table = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { rows: { technique: string; variant?: string; correct: number }[] };
    expect(table.rows).toEqual([expect.objectContaining({ technique: 'dellma', variant: 'top1, s=4, b=8, q=0.5', correct: 2 })]);
    expect(readFileSync(join(out, 'results.md'), 'utf8')).toContain('| DeLLMa (top1, s=4, b=8, q=0.5) |');

    // The same directory with other settings is refused rather than mixed; a bad size or another engine too.
    const other = await runDwb([...args, '--variant', 'pairs'], { timeoutMs: 60_000 });
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/holds a run of dellma \(top1, s=4, b=8, q=0\.5\), not pairs, s=16, b=32, q=0\.25: use another --out directory/);
    const bad = await runDwb([...args.slice(0, -1), tempDir(), '--overlap', '0.95'], { timeoutMs: 60_000 });
    expect(bad.stderr).toContain('--overlap: the overlap must be at most 0.9');
    const wrongEngine = await runDwb(['dqa', 'solve', '--questions', file, '--engine', 'iterrag', '--base-url', server.baseUrl, '--model', 'scripted', '--variant', 'top1', '--out', tempDir()], { timeoutMs: 60_000 });
    expect(wrongEngine.stderr).toContain('--variant is for --engine dellma, not iterrag');
  });

  it('the app’s benchmark runs DeLLMa with the chosen variant and sizes, and its table shows them', async () => {
    const server = await serve(40);
    const workspaceDir = tempDir();
    const workbench = openWorkbench({ workspaceDir, platform: { transport: 'websocket' }, installDemo: false });
    cleanups.push(() => workbench.close());
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'scripted', temperature: 0, maxTokens: 400, requestTimeoutMs: 10_000, maxRetries: 0, stream: false, toolMode: 'tools' } });
    // The spec's technique options are each technique's own: for a technique it does not run, or refused by its schema, nothing starts.
    await expect(workbench.invoke('benchmarks/start', { questionsFile: file, techniques: ['iterrag'], dbs: ['rdb'], techniqueOptions: { dellma: { variant: 'naive', naiveSamples: 10 } } })).rejects.toThrow('Options for DeLLMa (dellma), which this benchmark does not run');
    await expect(workbench.invoke('benchmarks/start', { questionsFile: file, techniques: ['dellma'], dbs: ['rdb'], techniqueOptions: { dellma: { variant: 'pairs', batch: 'big' } } })).rejects.toThrow(/^DeLLMa \(dellma\) options: batch: /);
    await expect(workbench.invoke('benchmarks/start', { questionsFile: file, techniques: ['iterrag'], dbs: ['rdb'], techniqueOptions: { iterrag: { depth: 2 } } })).rejects.toThrow('IterRAG (ReAct) (iterrag) takes no options, got depth');
    expect(await workbench.invoke('benchmarks/list', {})).toEqual([]);
    const finished = new Promise<BenchmarkSummary>((resolve) => {
      const stop = workbench.subscribe((event, payload) => {
        if (event === 'benchmark-progress' && (payload as BenchmarkSummary).status !== 'running') {
          stop();
          resolve(payload as BenchmarkSummary);
        }
      });
    });
    const started = await workbench.invoke('benchmarks/start', { questionsFile: file, techniques: ['dellma'], dbs: ['rdb'], concurrency: 1, techniqueOptions: { dellma: { variant: 'pairs', perAction: 2, batch: 14, overlap: 0 } } });
    expect(started.spec.techniqueOptions?.['dellma']).toMatchObject({ variant: 'pairs', perAction: 2, batch: 14, overlap: 0 });
    expect((await finished).status).toBe('finished');
    expect(server.failures).toEqual([]);
    const table = await workbench.invoke('benchmarks/results', { id: started.id });
    expect(table.rows.map((row) => [row.technique, row.variant, row.questions, row.correct])).toEqual([['dellma', 'pairs, s=2, b=14, q=0', 2, 2]]);
    // 7 options × 2 futures = 14 scenarios in one batch: candidates, shortlist, context, forecast and one ranking per question.
    expect(server.chatRequests()).toHaveLength(2 * 5);
    expect(samplingOf(join(started.directory, 'dellma-rdb', 'L1', 'run-log.jsonl'))).toMatchObject({ variant: 'pairs', perAction: 2, items: 14, windows: [{ start: 0, size: 14 }] });

    // A spec stored before technique options kept DeLLMa's settings in a top-level `dellma`: still read as DeLLMa's options.
    const database = new Database(join(workspaceDir, 'workspace.sqlite'));
    const { techniqueOptions, ...rest } = JSON.parse(database.prepare('SELECT spec FROM benchmarks WHERE id = ?').pluck().get(started.id) as string) as Record<string, unknown> & { techniqueOptions: Record<string, unknown> };
    database.prepare('UPDATE benchmarks SET spec = ? WHERE id = ?').run(JSON.stringify({ ...rest, dellma: techniqueOptions['dellma'] }), started.id);
    database.close();
    const [listed] = await workbench.invoke('benchmarks/list', {});
    expect(listed?.spec.techniqueOptions).toEqual({ dellma: started.spec.techniqueOptions?.['dellma'] });
    expect(listed?.spec).not.toHaveProperty('dellma');
  });
});
