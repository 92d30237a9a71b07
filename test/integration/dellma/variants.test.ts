/**
 * The DeLLMa variants and the paper's baselines over the real `openai` SDK against the
 * scripted model server: what each sends, how many calls it makes, how it reads answers,
 * and how unusable answers are re-asked.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAgriculture } from '../../../src-main/dellma-data/agriculture';
import { runBenchmark, type BenchmarkRun } from '../../../src-main/dellma-data/benchmark';
import type { DellmaEnvironment } from '../../../src-main/dellma-data/environment';
import { loadStocks } from '../../../src-main/dellma-data/stocks';
import { createModelCaller, type ModelCaller } from '../../../src-main/engine/techniques/dellma/model-calls';
import type { DellmaParameters, Variant } from '../../../src-main/engine/techniques/dellma/pipeline';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { parseProviderSettings } from '../../../src-main/llm/settings';
import { repoRoot } from '../../support/fixtures';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer, type ScriptStep } from '../../support/scripted-openai';
import { forecastAnswer, isForecast, lastUserText, preferring } from './scripted-dellma-model';

const agriculture = loadAgriculture(join(repoRoot, 'fixtures', 'dellma', 'agriculture')).environment;
let server: ScriptedOpenAiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const params = (variant: Variant, overrides: Partial<DellmaParameters> = {}): DellmaParameters => ({
  variant,
  perAction: 8,
  batch: 8,
  overlap: 0.25,
  naiveSamples: 12,
  alpha: 1e-3,
  softmaxTemperature: 1,
  seed: 5,
  bootstrapResamples: 200,
  selfConsistency: 5,
  selfConsistencyTemperature: 0.5,
  maxRepairs: 1,
  ...overrides,
});

async function run(script: ScriptStep[], variant: Variant, options: { environment?: DellmaEnvironment; problems?: number[]; overrides?: Partial<DellmaParameters> } = {}): Promise<{ run: BenchmarkRun; caller: ModelCaller }> {
  server = await startScriptedOpenAiServer(script);
  const provider = createOpenAiProvider(parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted' }));
  const caller = createModelCaller(provider);
  const environment = options.environment ?? agriculture;
  const wanted = options.problems ?? [1];
  const result = await runBenchmark({
    environment,
    problems: environment.problems.filter((problem) => wanted.includes(problem.id)),
    caller,
    modelDescription: provider.description,
    params: params(variant, options.overrides),
    concurrency: 1,
    forecastCache: new Map(),
  });
  server.verify();
  return { run: result, caller };
}

describe('DeLLMa variants', () => {
  it('Top-1 fits one choice per batch and follows the preferred action', async () => {
    const { run: result, caller } = await run([preferring('avocado'), ...Array.from({ length: 3 }, () => preferring('avocado'))], 'top1');
    const [problem] = result.results;
    expect(problem!.chosen).toBe('avocado');
    expect(problem!.dellma!.fit.kind).toBe('top1');
    expect(problem!.dellma!.fit.comparisons).toBe(3);
    expect(problem!.dellma!.batches.map((batch) => batch.comparisons)).toEqual([7, 7, 3]);
    expect(caller.calls.map((call) => call.purpose)).toEqual(['dellma.forecast', 'dellma.rank', 'dellma.rank', 'dellma.rank']);
  });

  it('Naive ranks all its items in one call, each with its own state', async () => {
    const { run: result } = await run([preferring('grape'), preferring('grape')], 'naive', { problems: [2] });
    const dellma = result.results[0]!.dellma!;
    expect(dellma.items).toHaveLength(12);
    expect(dellma.states).toHaveLength(12);
    expect(dellma.batches).toHaveLength(1);
    expect(dellma.batches[0]!.comparisons).toBe(66);
    // Unless the uniform draw gave grape no item at all, grape wins.
    if (dellma.items.some((item) => item.action === 1)) expect(result.results[0]!.chosen).toBe('grape');
  });

  it('shows only the factors of the offered actions and each scenario with its option', async () => {
    const seen: string[] = [];
    const spy: ScriptStep = (request) => {
      if (!isForecast(request)) seen.push(lastUserText(request));
      return preferring('lemon')(request);
    };
    await run([spy, spy, spy, spy], 'pairs', { problems: [4] });
    expect(seen[0]).toContain('lemon price change');
    expect(seen[0]).not.toContain('peach price change');
    expect(seen[0]).toContain('Option 2. lemon: plant lemon on all 10 acres');
    expect(seen[0]).toMatch(/Scenario 8\. Future: climate condition = \w+, supply chain disruptions = \w+, apple price change = \w+/);
  });

  it('re-asks once after an unusable ranking, and a batch that stays unusable adds nothing', async () => {
    const garbage: ScriptStep = { content: 'I would rather not rank these.' };
    const { run: result, caller } = await run([preferring('apple'), garbage, preferring('apple'), garbage, garbage, preferring('apple')], 'pairs');
    const batches = result.results[0]!.dellma!.batches;
    expect(batches.map((batch) => batch.attempts)).toEqual([2, 2, 1]);
    expect(batches.map((batch) => batch.order === null)).toEqual([false, true, false]);
    expect(batches[1]!.comparisons).toBe(0);
    expect(caller.calls.filter((call) => call.attempt === 1).map((call) => call.purpose)).toEqual(['dellma.rank', 'dellma.rank']);
    expect(result.results[0]!.chosen).toBe('apple');
  });

  it('re-asks an unusable forecast with its problems, then fails the run clearly', async () => {
    const badForecast: ScriptStep = { content: JSON.stringify({ factors: [{ name: 'climate condition', values: [{ value: 'dry', likelihood: 'probable' }] }] }) };
    let reasked = '';
    const capture: ScriptStep = (request) => {
      reasked = lastUserText(request);
      return badForecast as never;
    };
    await expect(run([badForecast, capture], 'pairs')).rejects.toThrow(/forecast is unusable after 2 answers: .*"climate condition" has 1 outcomes, not 3/);
    expect(reasked).toMatch(/That answer cannot be used: .*"supply chain disruptions" is missing/);
  });

  it('reuses one forecast for every problem (cached by context)', async () => {
    const { caller } = await run([preferring('peach'), ...Array.from({ length: 6 }, () => preferring('peach'))], 'pairs', { problems: [1, 2] });
    expect(caller.calls.filter((call) => call.purpose === 'dellma.forecast')).toHaveLength(1);
  });
});

describe('baselines', () => {
  const answer = (decision: string): ScriptStep => ({ content: JSON.stringify({ decision, explanation: 'because' }) });

  it('zero-shot: one call at temperature 0, the answer mapped to an action', async () => {
    const { run: result, caller } = await run([answer('Avocado')], 'zero-shot');
    expect(result.results[0]!.chosen).toBe('avocado');
    expect(result.results[0]!.correct).toBe(true);
    expect(caller.calls).toMatchObject([{ purpose: 'dellma.zero-shot', temperature: 0 }]);
  });

  it('chain of thought: factors, then likelihoods, then the decision, each carrying the earlier answers', async () => {
    const steps: ScriptStep[] = [
      { content: 'Unknown: avocado import volumes.' },
      (request) => ({ content: lastUserText(request).includes('avocado import volumes') ? 'Imports: likely to grow.' : 'missing' }),
      (request) => (lastUserText(request).includes('Imports: likely to grow.') ? { content: JSON.stringify({ decision: 'Option 1', explanation: '…' }) } : { content: '{}' }),
    ];
    const { run: result, caller } = await run(steps, 'cot');
    expect(caller.calls.map((call) => call.purpose)).toEqual(['dellma.cot-factors', 'dellma.cot-likelihoods', 'dellma.cot-decision']);
    expect(result.results[0]!.chosen).toBe('apple');
  });

  it('self-consistency: 5 answers at temperature 0.5, majority vote', async () => {
    const { run: result, caller } = await run([answer('apple'), answer('avocado'), answer('avocado'), answer('I cannot say'), answer('apple and avocado')], 'sc');
    expect(caller.calls.map((call) => call.temperature)).toEqual([0.5, 0.5, 0.5, 0.5, 0.5]);
    expect(result.results[0]!.baseline!.votes).toEqual({ apple: 1, avocado: 2 });
    expect(result.results[0]!.chosen).toBe('avocado');
  });
});

describe('stocks', () => {
  it('forecasts the 5 market and 5 per-stock factors and scores by the December return', async () => {
    const stocks = loadStocks(join(repoRoot, 'fixtures', 'dellma', 'stocks'));
    let asked = 0;
    const forecastSpy: ScriptStep = (request) => {
      asked = forecastAnswer(request).match(/"name"/g)!.length;
      return preferring('GME')(request);
    };
    // Problem 2 is AMD vs GME: 16 items, stride 4 at q = 0.5 → 3 windows.
    const { run: result } = await run([forecastSpy, preferring('GME'), preferring('GME'), preferring('GME')], 'pairs', {
      environment: stocks,
      problems: [2],
      overrides: { overlap: 0.5, alpha: 2e-8, softmaxTemperature: 0.1 },
    });
    expect(asked).toBe(40);
    const problem = result.results[0]!;
    expect(problem.actions).toEqual(['AMD', 'GME']);
    expect(problem.chosen).toBe('GME');
    expect(problem.best).toBe('AMD');
    expect(problem.normalisedUtility).toBeCloseTo(stocks.outcome.GME! / stocks.outcome.AMD!, 9);
  });
});
