/**
 * DeLLMa in the app on the paper's agriculture example: the USDA 2021 figures (parsed with
 * their units) in a SQLite database, a question listing three fruits, and a scripted model that
 * always ranks pear's futures first (and, within a fruit, its better futures first). The first run decides pear through the whole pipeline; the
 * second, in step-through, waits at the forecast, the analyst makes "pear turns out worse" very
 * likely in the forecast cell, and the sampled futures, utilities and expected utilities are
 * computed from the edit, which the report records as the analyst's.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAgriculture } from '../../src-main/dellma-data/agriculture';
import { repoRoot } from '../support/fixtures';
import { screenshot, useAppInBrowser } from '../support/browser';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptedTurn } from '../support/scripted-openai';
import type { ScriptStep } from '../support/scripted-openai/script';
import { useSuiteTempDir } from '../support/temp';
import { forecastAnswer, isForecast, rankingReadingFutures } from '../integration/dellma/scripted-dellma-model';

const dataDir = useSuiteTempDir();
let databasePath = '';

/** The USDA 2021 figures, one row per commodity, numbers and units apart. */
function agricultureDatabase(directory: string): string {
  const { stats2021 } = loadAgriculture(join(repoRoot, 'fixtures', 'dellma', 'agriculture'));
  const path = join(directory, 'agriculture.sqlite');
  const database = new Database(path);
  database.exec('CREATE TABLE fruit_2021 (commodity TEXT, yield_per_acre REAL, yield_unit TEXT, price REAL, price_unit TEXT)');
  const insert = database.prepare('INSERT INTO fruit_2021 VALUES (?, ?, ?, ?, ?)');
  for (const row of stats2021.rows) insert.run(row.commodity, row.yield.value, row.yield.unit, row.price.value, row.price.unit);
  database.close();
  return path;
}

const userText = (request: ReceivedChatRequest): string => messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });

/** Writes the context query, forecasts every unknown, and ranks pear's scenarios first. */
const prefersPear = (request: ReceivedChatRequest): ScriptedTurn => {
  if (userText(request).includes('Write one query that retrieves')) return { label: 'context query', content: '```sql\nSELECT commodity, yield_per_acre, yield_unit, price, price_unit FROM fruit_2021\n```' };
  if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
  const rank = rankingReadingFutures(request, 'pear');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'Every future where I plant pear beats the others.' }) };
};

const script: ScriptStep[] = [
  // "Test connection": one tiny completion, a tool-calling probe, then a JSON-schema probe.
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
  ...Array.from({ length: 40 }, () => prefersPear),
];

const question = 'Which fruit should I plant on my 10 acres in California next season to earn the most revenue per acre?\nOptions: apple; grape; pear\nUnknowns: climate condition';

let scriptedModel: ScriptedOpenAiServer | undefined;
const app = useAppInBrowser({
  viewport: { width: 1400, height: 950 },
  prepare: async () => {
    databasePath = agricultureDatabase(dataDir());
    scriptedModel = await startScriptedOpenAiServer(script, { models: ['scripted-model'] });
  },
});
afterAll(async () => {
  await scriptedModel?.close();
});
const model = (): ScriptedOpenAiServer => {
  if (!scriptedModel) throw new Error('the scripted model is not started');
  return scriptedModel;
};

/** The text of every DeLLMa cell of one step, in notebook order. */
const stepTexts = (step: string): Promise<string[]> => app.page.getByTestId(`dellma-${step}`).allInnerTexts();

async function startRun(mode: 'auto' | 'step'): Promise<void> {
  await app.page.getByTestId('new-run').click();
  const composer = app.page.getByTestId('run-composer');
  await composer.getByLabel('Decision question').fill(question);
  await composer.getByLabel('Run connection').selectOption({ label: 'Agriculture 2021' });
  await composer.getByLabel('Technique').selectOption('dellma');
  if (mode === 'step') await composer.getByLabel('Step-through').check();
  await composer.getByTestId('start-run').click();
}

describe('DeLLMa on the agriculture example', () => {
  it('sets up the model and the agriculture database', async () => {
    await app.page.goto(app.server.url);
    await app.page.getByTestId('open-model-settings').click();
    const dialog = app.page.getByTestId('model-settings');
    await dialog.getByLabel('Base URL').fill(model().baseUrl);
    await dialog.getByLabel('Model').fill('scripted-model');
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => dialog.getByTestId('model-test-report').innerText()).toContain('Connected');
    await dialog.getByTestId('save-model').click();
    await app.page.getByTestId('add-connection').click();
    const connection = app.page.getByTestId('connection-dialog');
    await connection.getByTestId('kind-sqlite').click();
    await connection.getByLabel('Path').fill(databasePath);
    await connection.getByLabel('Connection name').fill('Agriculture 2021');
    await connection.getByTestId('save-connection').click();
    await expect.poll(() => app.page.getByTestId('connection-list').innerText()).toContain('Agriculture 2021');
  });

  it('a model that always prefers pear futures makes pear the decision, every step shown as a cell', async () => {
    // Before the run: the cost from |A| = 3, s, b, q, recomputed as a size changes.
    await app.page.getByTestId('new-run').click();
    const composer = app.page.getByTestId('run-composer');
    await composer.getByLabel('Decision question').fill(question);
    await composer.getByLabel('Technique').selectOption('dellma');
    const estimate = composer.getByTestId('dellma-estimate');
    // 48 scenarios in windows of 32 at stride 24: 2 ranking calls, with the forecast and the context query.
    await expect.poll(() => estimate.innerText()).toContain('Estimated cost: 4 model call(s) (1 forecast, 2 ranking, 1 other)');
    await composer.getByLabel('Samples per option').fill('8');
    await expect.poll(() => estimate.innerText()).toContain('Estimated cost: 3 model call(s) (1 forecast, 1 ranking, 1 other)');
    await composer.getByLabel('Overlap').fill('0.99');
    await expect.poll(() => estimate.innerText()).toContain('the overlap must be at most 0.9');
    await composer.getByLabel('Close').click();
    await startRun('auto');
    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 30_000 }).toBe('Decided');
    expect(model().failures).toEqual([]);
    expect(await app.page.getByTestId('decision').locator('.decision-value').innerText()).toBe('pear');
    // DeLLMa decides in code: the decision cell is the engine's, not the model's.
    expect(await app.page.locator('[data-cell-kind="decision"]').first().locator('.author').innerText()).toBe('engine');
    const frame = (await stepTexts('frame'))[0] ?? '';
    expect(frame).toContain('apple, grape, pear');
    // Forecast: 1 shared unknown + 1 per fruit, 3 values each; the scripted likelihoods 4, 6, 2 → 1/3, 1/2, 1/6.
    const forecast = app.page.getByTestId('dellma-forecast').first();
    expect(await forecast.getByTestId('forecast-probability').allInnerTexts()).toEqual(Array.from({ length: 4 }, () => ['0.333', '0.500', '0.167']).flat());
    expect(await forecast.locator('select').count()).toBe(0);
    // 3 fruits × 16 futures = 48 scenarios in batches of 32 with stride 24: 2 ranking cells.
    expect((await stepTexts('sampling'))[0]).toMatch(/DeLLMa-Pairs, seed \d+: 16 futures/);
    expect((await stepTexts('sampling'))[0]).toContain('16 futures drawn from the forecast, each paired with every option → 48 scenarios');
    expect(await app.page.getByTestId('dellma-sampling').first().locator('[role="row"], tr').count()).toBeGreaterThan(1);
    expect(await app.page.getByTestId('dellma-rank').count()).toBe(2);
    await app.page.getByTestId('dellma-sampling').first().scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-00-sampling-and-ranking');
    expect((await stepTexts('fit'))[0]).toMatch(/ILSR over \d+ pairwise comparisons, alpha 0\.002/);
    const expected = app.page.getByTestId('dellma-expected').first();
    expect(await expected.getByTestId('dellma-decision').innerText()).toBe('pear');
    await expected.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-01-expected-utility');
    expect(app.pageErrors).toEqual([]);
  });

  it('in step-through the run waits at the forecast; the analyst’s edit drives every later step and is in the report', async () => {
    const firstSampling = (await stepTexts('rank')).join('\n');
    const firstExpected = await app.page.getByTestId('dellma-expected').first().getByTestId('expected-values').innerText();
    expect(firstExpected).toMatch(/^Expected utility: apple [\d.e-]+ · grape [\d.e-]+ · pear [\d.e-]+$/);
    await startRun('step');
    // The context query waits first: approve it as written.
    const review = app.page.getByTestId('review-panel');
    await expect.poll(() => review.innerText(), { timeout: 20_000 }).toContain('The model wants to run this query');
    await review.getByTestId('review-approve').click();
    // Then the forecast: editable in its cell while the run waits.
    await expect.poll(() => review.innerText(), { timeout: 20_000 }).toContain('The forecast waits for you');
    const forecast = app.page.getByTestId('dellma-forecast').nth(1);
    await forecast.scrollIntoViewIfNeeded();
    await forecast.getByLabel('Likelihood of how pear turns out: worse').selectOption('very likely');
    await forecast.getByLabel('Likelihood of how pear turns out: same').selectOption('very unlikely');
    // Probabilities follow at once: 6, 1, 2 → 0.667, 0.111, 0.222.
    expect((await forecast.getByTestId('forecast-probability').allInnerTexts()).slice(-3)).toEqual(['0.667', '0.111', '0.222']);
    await forecast.getByLabel('Likelihood of how pear turns out: better').scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-02-forecast-edit');
    await forecast.getByTestId('forecast-continue').click();
    // Each ranking batch waits after the model's answer: batch 1 as the model ranked it…
    await expect.poll(() => review.innerText(), { timeout: 20_000 }).toContain("Batch 1: the model's ranking");
    await review.getByTestId('review-approve').click();
    // …batch 2 ranked by hand: the analyst moves the model's last scenario to the top.
    await expect.poll(() => review.innerText(), { timeout: 20_000 }).toContain("Batch 2: the model's ranking");
    const rankingLines = review.getByLabel('Ranking, best first');
    const modelLines = (await rankingLines.inputValue()).split('\n');
    const handLines = [modelLines.at(-1) ?? '', ...modelLines.slice(0, -1)];
    await rankingLines.fill(handLines.join('\n'));
    await review.getByRole('button', { name: 'Use my ranking' }).click();
    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 30_000 }).toBe('Decided');
    const handRanked = app.page.getByTestId('dellma-analyst-ranking');
    await expect.poll(() => handRanked.count()).toBe(1);
    expect(await handRanked.innerText()).toContain('The analyst ranked this batch by hand');
    await handRanked.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-02b-hand-ranking');
    expect(model().failures).toEqual([]);

    // The analyst's forecast is a cell of its own; every later step is computed from it.
    const forecasts = await stepTexts('forecast');
    expect(forecasts).toHaveLength(3);
    expect(forecasts[2]).toContain("The analyst's forecast");
    const ranks = await stepTexts('rank');
    const secondRanks = ranks.slice(2).join('\n');
    expect(secondRanks).not.toBe(firstSampling);
    const share = (text: string, value: string): number => (text.match(new RegExp(`how pear turns out = ${value}`, 'g')) ?? []).length;
    // Pear "worse" is drawn far more often after the edit (2/3 against 1/3).
    expect(share(secondRanks, 'worse')).toBeGreaterThan(share(firstSampling, 'worse'));
    const secondExpected = await app.page.getByTestId('dellma-expected').nth(1).getByTestId('expected-values').innerText();
    expect(secondExpected).not.toBe(firstExpected);
    expect(await app.page.getByTestId('dellma-expected').nth(1).getByTestId('dellma-decision').innerText()).toBe('pear');
    await app.page.getByTestId('dellma-expected').nth(1).scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-03-after-edit');

    // The report names the analyst's edit of the forecast, with the version used.
    await app.page.getByTestId('export-report').click();
    const preview = app.page.frameLocator('[data-testid="report-preview"]');
    await expect.poll(() => preview.locator('body').innerText(), { timeout: 20_000 }).toMatch(/analyst edited the forecast/i);
    const report = await preview.locator('body').innerText();
    expect(report).toContain("The analyst's forecast:");
    expect(report).toContain('how pear turns out | worse | very likely');
    expect(report).toContain('how pear turns out | same | very unlikely');
    // …and the batch the analyst ranked by hand, labelled as the analyst's.
    expect(report).toContain('Batch 2 ranked by the analyst');
    await screenshot(app.page, 'dellma-04-report');
    expect(app.pageErrors).toEqual([]);
  });
});
