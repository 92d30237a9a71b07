/**
 * `dwb dellma solve` end to end: the built CLI, the real `openai` SDK and the scripted model
 * server. The model always ranks one fruit's futures first; the whole pipeline (forecast,
 * paired sampling, minibatches, rankings, Bradley–Terry, expected utility) must turn that into
 * the decision, with one forecast call and one ranking call per minibatch.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAgriculture } from '../../../src-main/dellma-data/agriculture';
import { windows } from '../../../src-main/engine/techniques/dellma/minibatch';
import { repoRoot } from '../../support/fixtures';
import { runDwb } from '../../support/cli';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { isForecast, preferring } from './scripted-dellma-model';

const tempDir = useTempDirs();
let server: ScriptedOpenAiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const repeat = <T>(count: number, step: T): T[] => Array.from({ length: count }, () => step);

describe('dwb dellma solve --problems agriculture', () => {
  it('--dry-run prints only the cost estimate', async () => {
    const result = await runDwb(['dellma', 'solve', '--problems', 'agriculture', '--limit', '6', '--samples', '8', '--batch', '8', '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    // 6 problems of 2 fruits: 16 items each, stride 6 → 3 windows each, plus one forecast.
    expect(result.stderr).toContain('cost estimate for 6 agriculture problem(s) with pairs (s=8, b=8, q=0.25): 19 model calls (1 forecast, 18 ranking, 0 other)');
  });

  it('takes the API key from DWB_API_KEY or --api-key-file, never from argv', async () => {
    const apiKey = 'sk-dellma-Qe4-not-in-argv';
    const perProblem = windows(2 * 8, 8, 0.25).length;
    server = await startScriptedOpenAiServer([preferring('apple'), ...repeat(perProblem, preferring('apple'))], { requireApiKey: apiKey });
    const args = ['dellma', 'solve', '--problems', 'agriculture', '--limit', '1', '--samples', '8', '--batch', '8', '--base-url', server.baseUrl, '--model', 'scripted'];
    const result = await runDwb(args, { env: { DWB_API_KEY: apiKey } });
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual(repeat(1 + perProblem, `Bearer ${apiKey}`));
    const inArgv = await runDwb([...args, '--api-key', apiKey]);
    expect(inArgv.code).toBe(2);
    expect(inArgv.stderr.trim()).toBe('dwb dellma: invalid-request: --api-key would put the key on the command line, where other users of this machine can read it (ps, shell history): use --api-key-file F or the environment variable DWB_API_KEY');
  });

  it('a model that always prefers apple futures makes apple the decision, through the whole pipeline', async () => {
    const perProblem = windows(2 * 8, 8, 0.25).length;
    expect(perProblem).toBe(3);
    // The first ranking answer is partial (only apple scenarios): repair appends the rest.
    // The forecast is answered under a dated model name, as a server that routes an alias does: the record names both.
    const dated = (request: Parameters<ReturnType<typeof preferring>>[0]) => ({ ...preferring('apple')(request), model: 'scripted-2026-11-30' });
    server = await startScriptedOpenAiServer([dated, preferring('apple', { partial: true }), ...repeat(6 * perProblem - 1, preferring('apple'))]);
    const out = tempDir();
    const result = await runDwb(['dellma', 'solve', '--problems', 'agriculture', '--limit', '6', '--samples', '8', '--batch', '8', '--seed', '11', '--base-url', server.baseUrl, '--model', 'scripted', '--out', out]);
    expect(result.stderr).toMatch(/^cost estimate for 6 agriculture problem\(s\)/);
    expect(result.code, result.stderr).toBe(0);
    server.verify();
    const lines = result.stdout.trim().split('\n');
    expect(lines.slice(0, 6)).toEqual([
      expect.stringMatching(/^problem 1 \[apple, avocado\]: decision=apple best=avocado wrong utility=0\.515/),
      expect.stringMatching(/^problem 2 \[apple, grape\]: decision=apple best=grape wrong/),
      expect.stringMatching(/^problem 3 \[apple, grapefruit\]: decision=apple best=apple correct utility=1\.000/),
      expect.stringMatching(/^problem 4 \[apple, lemon\]: decision=apple best=lemon wrong/),
      expect.stringMatching(/^problem 5 \[apple, peach\]: decision=apple best=peach wrong/),
      expect.stringMatching(/^problem 6 \[apple, pear\]: decision=apple best=pear wrong/),
    ]);
    expect(lines[6]).toBe('accuracy: 1/6 (16.7%)');
    expect(lines[7]).toMatch(/^normalised utility: \d+\.\d% \(mean over 6 problems\)$/);
    // Two actions per problem: τ is +1 where apple is truly better (problem 3), −1 elsewhere: (1 − 5) / 6.
    expect(lines[8]).toBe('kendall tau [ext]: -0.667 (mean over 6 problems: expected utilities against the true outcomes)');

    // One forecast for all problems, then exactly one ranking call per minibatch.
    const requests = server.chatRequests();
    expect(requests).toHaveLength(1 + 6 * perProblem);
    expect(requests.filter(isForecast)).toHaveLength(1);
    expect(isForecast(requests[0]!)).toBe(true);
    expect(requests.every((request) => request.chat.temperature === 0)).toBe(true);

    const record = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as {
      model: { served: string[]; file: unknown };
      productVersion: string | null;
      parameters: { seed: number; perAction: number; batch: number; overlap: number; alpha: number };
      forecast: { factors: { name: string; probabilities: number[] }[] };
      calls: { purpose: string; problem: number | null }[];
      results: {
        problem: number;
        chosen: string;
        dellma: {
          items: { stateId: number; action: number }[];
          batches: { repair: { missing: number[] } | null; comparisons: number }[];
          expected: number[];
          fit: { components: number; converged: boolean };
          interval: { intervals: { low: number; high: number }[] };
          sensitivity: unknown[];
        };
      }[];
    };
    expect(record.parameters).toMatchObject({ seed: 11, perAction: 8, batch: 8, overlap: 0.25, alpha: 2e-3 });
    // What produced the results (issue 25): the names the server answered with, in the order first seen, and this install's version.
    expect(record.model).toMatchObject({ served: ['scripted-2026-11-30', 'scripted'], file: null });
    expect(record.productVersion).toBe((JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version);
    expect(record.forecast.factors).toHaveLength(16);
    // "somewhat likely, Very_Likely, unlikely" → 4, 6, 2 of 12.
    expect(record.forecast.factors[0]!.probabilities).toEqual([4 / 12, 6 / 12, 2 / 12]);
    expect(record.calls.map((call) => call.purpose)).toEqual(['dellma.forecast', ...repeat(18, 'dellma.rank')]);
    for (const problem of record.results) {
      const { dellma } = problem;
      expect(dellma.items).toHaveLength(16);
      expect(dellma.fit.converged).toBe(true);
      expect(dellma.fit.components).toBe(1);
      // The pitfall guard, end to end: the preferred action's expected utility is clearly higher.
      expect(dellma.expected[0]!).toBeGreaterThan(dellma.expected[1]! * 10);
      expect(dellma.interval.intervals[0]!.low).toBeGreaterThan(dellma.interval.intervals[1]!.high);
    }
    // The run record's call log names the purpose of each transcript exchange, index for index.
    const exchanges = readFileSync(join(out, 'transcript.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; index?: number; request?: { messages: { content: string }[] } })
      .filter((line) => line.type === 'exchange')
      .sort((a, b) => a.index! - b.index!);
    expect(exchanges).toHaveLength(record.calls.length);
    exchanges.forEach((exchange, index) => {
      const forecastPrompt = exchange.request!.messages[1]!.content.includes('give exactly 3 distinct outcomes');
      expect(record.calls[index]!.purpose).toBe(forecastPrompt ? 'dellma.forecast' : 'dellma.rank');
    });
    expect(result.stderr).toMatch(/solved problem 1: apple, expected utility \S+, \[ext\] 95% interval \S+–\S+, same decision in 100% of resamples; \[ext\] /);

    const repaired = record.results.flatMap((r) => r.dellma.batches).filter((batch) => (batch.repair?.missing.length ?? 0) > 0);
    expect(repaired).toHaveLength(1);
    expect(repaired[0]!.comparisons).toBe(28);

    // The transcript replays the run exactly, without a model.
    const replay = await runDwb(['dellma', 'solve', '--problems', 'agriculture', '--limit', '6', '--samples', '8', '--batch', '8', '--seed', '11', '--replay', join(out, 'transcript.jsonl')]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(result.stdout);
  });

  it('the decision follows the preferred fruit, not the data: pear wins when pear futures rank first (3 problems at a time)', async () => {
    // Problems 1..11 are the pairs in order; 6 (apple, pear) and 11 (avocado, pear) offer pear.
    server = await startScriptedOpenAiServer([preferring('pear'), ...repeat(11 * 3, preferring('pear'))]);
    // Three problems at a time: each problem's seed is its own, so the order calls interleave in changes nothing.
    const result = await runDwb(['dellma', 'solve', '--problems', 'agriculture', '--limit', '11', '--samples', '8', '--batch', '8', '--concurrency', '3', '--base-url', server.baseUrl, '--model', 'scripted']);
    expect(result.code, result.stderr).toBe(0);
    server.verify();
    const withPear = result.stdout.split('\n').filter((line) => /^problem \d+ \[.*pear.*\]/.test(line));
    expect(withPear).toEqual([expect.stringMatching(/^problem 6 \[apple, pear\]: decision=pear best=pear correct/), expect.stringMatching(/^problem 11 \[avocado, pear\]: decision=pear best=pear correct/)]);
  });

  it('[ext] --forecast uses an analyst\'s forecast instead of the forecast call, checked like the model\'s', async () => {
    const { environment } = loadAgriculture(join(repoRoot, 'fixtures', 'dellma', 'agriculture'));
    const dir = tempDir();
    const file = join(dir, 'forecast.json');
    const factors = environment.factors.map((factor) => ({
      name: factor.name,
      values: [
        { value: 'down', likelihood: 'unlikely' },
        { value: 'flat', likelihood: 'likely' },
        { value: 'up', likelihood: 'somewhat likely' },
      ],
    }));
    writeFileSync(file, JSON.stringify({ factors }));
    server = await startScriptedOpenAiServer(repeat(3, preferring('grape')));
    const out = join(dir, 'out');
    const result = await runDwb(['dellma', 'solve', '--problems', 'agriculture', '--limit', '1', '--samples', '8', '--batch', '8', '--forecast', file, '--base-url', server.baseUrl, '--model', 'scripted', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    server.verify();
    expect(result.stderr).toContain('3 model calls (0 forecast, 3 ranking, 0 other)');
    expect(result.stderr).toContain("[ext] using the analyst's forecast from");
    const record = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as { forecast: { source: string; factors: { probabilities: number[] }[] }; calls: { purpose: string }[] };
    expect(record.forecast.source).toBe('analyst');
    expect(record.forecast.factors[0]!.probabilities).toEqual([2 / 11, 5 / 11, 4 / 11]);
    expect(record.calls.every((call) => call.purpose === 'dellma.rank')).toBe(true);

    writeFileSync(file, JSON.stringify({ factors: factors.slice(1) }));
    const bad = await runDwb(['dellma', 'solve', '--problems', 'agriculture', '--forecast', file, '--dry-run']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('The forecast file cannot be used: "climate condition" is missing');
  });

  it('refuses bad options with a clear message', async () => {
    const bad = await runDwb(['dellma', 'solve', '--problems', 'orchards', '--dry-run']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--problems must be agriculture or stocks, got "orchards"');
    const overlap = await runDwb(['dellma', 'solve', '--problems', 'stocks', '--overlap', '1', '--dry-run']);
    expect(overlap.code).toBe(2);
    expect(overlap.stderr).toContain('--overlap takes a number from 0 up to (not including) 1, got "1"');
    const model = await runDwb(['dellma', 'solve', '--problems', 'stocks', '--limit', '1']);
    expect(model.code).toBe(2);
    expect(model.stderr).toContain('--base-url and --model are required');
  });
});
