/**
 * DeLLMa in the app on the paper's agriculture example: the USDA 2021 figures (parsed with
 * their units) in a SQLite database, a question listing three fruits, and a scripted model that
 * always ranks pear's futures first (and, within a fruit, its better futures first). The first run decides pear through the whole pipeline; the
 * second, in step-through, waits at the forecast, the analyst makes "pear turns out worse" very
 * likely in the forecast cell, and the sampled futures, utilities and expected utilities are
 * computed from the edit, which the report records as the analyst's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configureScriptedModel, screenshot, useAppWithScriptedModel } from '../support/browser';
import { messageText, type ReceivedChatRequest, type ScriptedTurn } from '../support/scripted-openai';
import type { ScriptStep } from '../support/scripted-openai/script';
import { agricultureDatabase } from '../support/agriculture-database';
import { useSuiteTempDir } from '../support/temp';
import { forecastAnswer, isForecast, rankingReadingFutures } from '../integration/dellma/scripted-dellma-model';

const dataDir = useSuiteTempDir();
let databasePath = '';


const userText = (request: ReceivedChatRequest): string => messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });

/**
 * The last test's model weighs the futures: a scenario scores its option's outlook (worse 0,
 * same 1, better 2) plus 0.25 for pear, so pear leads unless another option's futures are likelier to turn out better.
 */
let weighsFutures = false;
function rankingWeighingFutures(request: ReceivedChatRequest): number[] {
  const scenarios = [...userText(request).matchAll(/^Scenario (\d+)\. Future: (.*)\. Option: (\S+) \(/gm)].map((match) => ({ number: Number(match[1]), future: match[2] ?? '', option: match[3] ?? '' }));
  const score = (scenario: { future: string; option: string }): number => (scenario.option === 'pear' ? 0.25 : 0) + ['worse', 'same', 'better'].findIndex((value) => scenario.future.includes(`how ${scenario.option} turns out = ${value}`));
  return [...scenarios].sort((a, b) => score(b) - score(a) || a.number - b.number).map((scenario) => scenario.number);
}

/** Writes the context query, forecasts every unknown, and ranks pear's scenarios first. */
const prefersPear = (request: ReceivedChatRequest): ScriptedTurn => {
  if (userText(request).includes('Write one query that retrieves')) return { label: 'context query', content: '```sql\nSELECT commodity, yield_per_acre, yield_unit, price, price_unit FROM fruit_2021\n```' };
  if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
  const rank = weighsFutures ? rankingWeighingFutures(request) : rankingReadingFutures(request, 'pear');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: weighsFutures ? 'Pear leads unless its season turns out worse.' : 'Every future where I plant pear beats the others.' }) };
};

const script: ScriptStep[] = [
  // "Test connection": one tiny completion, a tool-calling probe, then a JSON-schema probe.
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
  ...Array.from({ length: 40 }, () => prefersPear),
];

const question = 'Which fruit should I plant on my 10 acres in California next season to earn the most revenue per acre?\nOptions: apple; grape; pear\nUnknowns: climate condition';

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1400, height: 950 } });

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
    databasePath = agricultureDatabase(dataDir());
    await app.page.goto(app.server.url);
    await configureScriptedModel(app.page, model());
    await app.page.getByTestId('add-connection').click();
    const connection = app.page.getByTestId('connection-dialog');
    await connection.getByTestId('kind-sqlite').click();
    await connection.getByLabel('Path').fill(databasePath);
    await connection.getByLabel('Connection name').fill('Agriculture 2021');
    await connection.getByTestId('save-connection').click();
    await expect.poll(() => app.page.getByTestId('connection-list').innerText()).toContain('Agriculture 2021');
  });

  it('keeps Start disabled, saying why, until the question lists two options (no model call spent)', async () => {
    const requestsBefore = model().requests.length;
    await app.page.getByTestId('new-run').click();
    const composer = app.page.getByTestId('run-composer');
    await composer.getByLabel('Run connection').selectOption({ label: 'Agriculture 2021' });
    await composer.getByLabel('Technique').selectOption('dellma');
    await composer.getByLabel('Decision question').fill('Which fruit should I plant next season?');
    const start = composer.getByTestId('start-run');
    await expect.poll(() => start.isDisabled()).toBe(true);
    expect(await composer.getByTestId('start-blocked').innerText()).toBe('DeLLMa needs at least two options: list them on a line of the question, "Options: a; b; c" (the question lists none).');
    expect(await start.getAttribute('aria-describedby')).toBe('start-blocked');
    // Ctrl+Enter does not start it either.
    await composer.getByLabel('Decision question').press('Control+Enter');
    await composer.getByLabel('Decision question').fill('Which fruit should I plant next season?\nOptions: pear');
    await expect.poll(() => composer.getByTestId('start-blocked').innerText()).toContain('(the question lists one)');
    await composer.getByLabel('Decision question').fill('Which fruit should I plant next season?\nOptions: apple; pear');
    await expect.poll(() => start.isDisabled()).toBe(false);
    expect(await composer.getByTestId('start-blocked').count()).toBe(0);
    await composer.getByLabel('Close').click();
    expect(model().requests.length).toBe(requestsBefore);
    expect(await app.page.getByTestId('run-status').count()).toBe(0);
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
    // The first run's forecast is kept in the workspace with the run that made it.
    const stored = Object.values(JSON.parse(readFileSync(join(app.workspaceDir, 'dellma-forecasts.json'), 'utf8')) as Record<string, { runId: string }>);
    expect(stored).toHaveLength(1);
    const firstRunId = stored[0]?.runId ?? '';
    expect(firstRunId).not.toBe('');
    const forecastCalls = (): number => model().chatRequests().filter(isForecast).length;
    expect(forecastCalls()).toBe(1);
    await startRun('step');
    // The context query waits first: approve it as written.
    const review = app.page.getByTestId('review-panel');
    await expect.poll(() => review.innerText(), { timeout: 20_000 }).toContain('The model wants to run this query');
    await review.getByTestId('review-approve').click();
    // Then the forecast: editable in its cell while the run waits.
    await expect.poll(() => review.innerText(), { timeout: 20_000 }).toContain('The forecast waits for you');
    const forecast = app.page.getByTestId('dellma-forecast').nth(1);
    await forecast.scrollIntoViewIfNeeded();
    // The same context as the first run: the model's forecast is reused without a call, and the cell says whose it is.
    expect(await forecast.innerText()).toContain(`reused without a model call: made by ${firstRunId} at `);
    expect(forecastCalls()).toBe(1);
    await screenshot(app.page, 'dellma-01b-forecast-reused');
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

  it('editing the forecast in the app updates the decision and the sensitivity the analyst reads', async () => {
    weighsFutures = true;
    await app.page.keyboard.press('Escape');
    await expect.poll(() => app.page.getByTestId('export-dialog').count()).toBe(0);
    const expectedCells = app.page.getByTestId('dellma-expected');
    const before = await expectedCells.count();
    await startRun('auto');
    await expect.poll(() => expectedCells.count(), { timeout: 30_000 }).toBe(before + 1);
    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 30_000 }).toBe('Decided');
    const unedited = expectedCells.nth(before);
    const decisionBefore = await unedited.getByTestId('dellma-decision').innerText();
    const sensitivityBefore = await unedited.getByTestId('dellma-sensitivity').innerText();
    await unedited.getByTestId('dellma-sensitivity').scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-05-sensitivity-before-edit');

    const flipsOf = (text: string): { key: string; from: number; to: number; decision: string }[] =>
      [...text.matchAll(/“(.+?)” = “(.+?)” from p=([\d.]+) to ([\d.]+) makes (\w+) the decision/g)].map((match) => ({ key: `${match[1]} = ${match[2]}`, from: Number(match[3]), to: Number(match[4]), decision: match[5] ?? '' }));
    // The same question in step-through: at the forecast, the analyst makes the move the sensitivity
    // names for grape's season turning out better, and beyond it, and pear's better season very unlikely.
    const predicted = flipsOf(sensitivityBefore).find((flip) => flip.key === 'how grape turns out = better');
    expect(predicted).toBeDefined();
    expect(predicted?.to ?? 1).toBeLessThan(0.75);
    await startRun('step');
    const review = app.page.getByTestId('review-panel');
    await expect.poll(() => review.innerText(), { timeout: 20_000 }).toContain('The model wants to run this query');
    await review.getByTestId('review-approve').click();
    await expect.poll(() => review.innerText(), { timeout: 20_000 }).toContain('The forecast waits for you');
    const forecast = app.page.getByTestId('dellma-forecast').last();
    await forecast.getByLabel('Likelihood of how grape turns out: worse').selectOption('very unlikely');
    await forecast.getByLabel('Likelihood of how grape turns out: same').selectOption('very unlikely');
    await forecast.getByLabel('Likelihood of how grape turns out: better').selectOption('very likely');
    await forecast.getByLabel('Likelihood of how pear turns out: better').selectOption('very unlikely');
    await forecast.getByTestId('forecast-continue').click();
    for (const batch of [1, 2]) {
      await expect.poll(() => review.innerText(), { timeout: 20_000 }).toContain(`Batch ${batch}: the model's ranking`);
      await review.getByTestId('review-approve').click();
    }
    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 30_000 }).toBe('Decided');
    const edited = expectedCells.nth(before + 1);
    const decisionAfter = await edited.getByTestId('dellma-decision').innerText();
    const sensitivityAfter = await edited.getByTestId('dellma-sensitivity').innerText();
    await edited.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-06-decision-and-sensitivity-after-edit');

    // What the analyst reads follows the computation: the decision is the option with the
    // highest expected utility shown, and each flip starts from the probability the forecast
    // in force shows (3 decimals there, 2 here).
    const argmax = async (cell: typeof edited): Promise<string> => {
      const shown = [...(await cell.getByTestId('expected-values').innerText()).matchAll(/(\w+) ([\d.e-]+)/g)].map((match) => ({ option: match[1] ?? '', value: Number(match[2]) }));
      return shown.reduce((best, row) => (row.value > best.value ? row : best)).option;
    };
    expect(decisionBefore).toBe(await argmax(unedited));
    expect(decisionAfter).toBe(await argmax(edited));
    // Pear leads on the model's forecast; with grape's better season very likely (p 0.75, past the
    // sensitivity's flip point) and pear's very unlikely, the decision is the one the sensitivity named.
    expect(decisionBefore).toBe('pear');
    expect(decisionAfter).toBe(predicted?.decision);
    const probabilities = async (cell: number): Promise<Map<string, number>> => {
      const rows = await app.page.getByTestId('dellma-forecast').nth(cell).getByTestId('forecast-table').locator('tbody tr').allInnerTexts();
      const shown = new Map<string, number>();
      let factor = '';
      for (const row of rows) {
        const columns = row.split('\t').map((column) => column.trim());
        if (columns.length === 4) factor = columns.shift() ?? '';
        shown.set(`${factor} = ${columns[0] ?? ''}`, Number(columns[2]));
      }
      return shown;
    };
    const forecastCells = await app.page.getByTestId('dellma-forecast').count();
    const flipsBefore = flipsOf(sensitivityBefore);
    const flipsAfter = flipsOf(sensitivityAfter);
    expect(flipsBefore.length).toBeGreaterThan(0);
    const modelForecast = await probabilities(forecastCells - 3);
    const analystForecast = await probabilities(forecastCells - 1);
    for (const flip of flipsBefore) expect(modelForecast.get(flip.key)).toBeCloseTo(flip.from, 1);
    for (const flip of flipsAfter) expect(analystForecast.get(flip.key)).toBeCloseTo(flip.from, 1);
    for (const flip of flipsBefore) expect(flip.decision).not.toBe(decisionBefore);
    for (const flip of flipsAfter) expect(flip.decision).not.toBe(decisionAfter);
    expect(analystForecast.get('how grape turns out = better')).toBeCloseTo(0.75, 3);
    // Pear: somewhat likely 4, very likely 6, very unlikely 1 → better 1/11.
    expect(analystForecast.get('how pear turns out = better')).toBeCloseTo(1 / 11, 3);
    expect(sensitivityAfter).not.toBe(sensitivityBefore);
    expect(model().failures).toEqual([]);
    expect(app.pageErrors).toEqual([]);
  });

  it('after the run, the analyst ranks a batch by hand with the keyboard and gets a re-fit that persists and can be removed [ext]', async () => {
    const callsBefore = model().chatRequests().length;
    const expectedCells = app.page.getByTestId('dellma-expected');
    const runExpected = await expectedCells.last().innerText();
    const batch = app.page.getByTestId('dellma-rank').last();
    await batch.scrollIntoViewIfNeeded();
    await batch.getByTestId('rank-batch-yourself').click();
    const items = batch.getByTestId('rank-yourself-item');
    const linesShown = async (): Promise<string[]> => (await items.allInnerTexts()).map((text) => text.replace(/^\s*\d+\.\s*/, '').replace(/\s*↑\s*↓\s*$/, '').trim());
    const modelLines = await linesShown();
    expect(modelLines.length).toBeGreaterThan(2);
    // The model's last scenario carried to the top with Alt+↑ (the row keeps the focus), then the new second one moved down by its button.
    await items.last().focus();
    for (let moves = 0; moves < modelLines.length - 1; moves++) await app.page.keyboard.press('Alt+ArrowUp');
    const carried = modelLines.at(-1) ?? '';
    expect((await linesShown())[0]).toBe(carried);
    const second = modelLines[0] ?? '';
    await batch.getByRole('button', { name: `Move scenario ${second.split(' | ')[0] ?? ''} down` }).click();
    const mine = [carried, modelLines[1] ?? '', second, ...modelLines.slice(2, -1)];
    expect(await linesShown()).toEqual(mine);
    await screenshot(app.page, 'dellma-07-rank-yourself');
    await batch.getByTestId('refit-submit').click();

    // The re-fit: three new cells labelled as the analyst's, computed without a model call; the run's own stay.
    const refitNotes = app.page.getByTestId('dellma-refit-note');
    await expect.poll(() => refitNotes.count(), { timeout: 20_000 }).toBe(3);
    expect(model().chatRequests().length).toBe(callsBefore);
    const refitRank = app.page.getByTestId('dellma-rank').filter({ has: app.page.getByTestId('dellma-refit-note') });
    expect(await refitRank.locator('.dellma-title').innerText()).toContain("ranked by the analyst · the analyst's re-fit [ext]");
    const refitExpected = expectedCells.last();
    expect(await refitExpected.innerText()).toContain("The analyst's re-fit: batch");
    expect(await expectedCells.nth((await expectedCells.count()) - 2).innerText()).toBe(runExpected);
    const refitValues = await refitExpected.getByTestId('expected-values').innerText();
    expect(refitValues).toMatch(/^Expected utility: apple [\d.e-]+ · grape [\d.e-]+ · pear [\d.e-]+$/);
    const shown = [...refitValues.matchAll(/(\w+) ([\d.e-]+)/g)].map((match) => ({ option: match[1] ?? '', value: Number(match[2]) }));
    expect(await refitExpected.getByTestId('dellma-decision').innerText()).toBe(shown.reduce((best, row) => (row.value > best.value ? row : best)).option);
    await refitExpected.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-08-refit');

    // It is kept: after a reload the re-fit is still there.
    await app.page.reload();
    await expect.poll(() => app.page.getByTestId('dellma-refit-note').count(), { timeout: 20_000 }).toBe(3);
    expect(await app.page.getByTestId('dellma-expected').last().getByTestId('expected-values').innerText()).toBe(refitValues);

    // Undo: removing the re-fit leaves the run's cells as they were.
    await app.page.getByTestId('withdraw-refit').click();
    await expect.poll(() => app.page.getByTestId('dellma-refit-note').count()).toBe(0);
    expect(await app.page.getByTestId('dellma-expected').last().innerText()).toBe(runExpected);
    expect(app.pageErrors).toEqual([]);
  });
});
