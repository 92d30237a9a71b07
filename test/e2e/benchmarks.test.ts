import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { devQuestions, techniqueModel, writeQuestionFile } from '../support/dqa-technique-model';
import { editorText, screenshot, setModelInApp, useAppInBrowser } from '../support/browser';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../support/scripted-openai';
import { useSuiteTempDir } from '../support/temp';
import { dqaPrefersBest } from '../integration/dellma/scripted-dellma-model';

const app = useAppInBrowser({ viewport: { width: 1500, height: 1100 } });
const suiteDir = useSuiteTempDir();
let server: ScriptedOpenAiServer | null = null;
let dellmaServer: ScriptedOpenAiServer | null = null;
afterAll(async () => {
  await server?.close();
  await dellmaServer?.close();
});

describe('benchmarks in the app', () => {
  it('starts a small benchmark, shows its progress, table and charts, and opens a question as a notebook', async () => {
    const questions = devQuestions('locating', ['L1', 'L2', 'L3']);
    const file = writeQuestionFile(join(suiteDir(), 'questions.json'), 'locating', questions);
    // L1 and L2 answered right, L3 wrong.
    const scripts = new Map(questions.map((question, index) => [question.id, { queries: [`SELECT '${question.id}' AS question, count(*) AS nodes FROM trade_node`], answer: index < 2 ? question.answer : 'krakow' }]));
    server = await startScriptedOpenAiServer(techniqueModel(questions, scripts));
    const { page } = app;
    await page.goto(app.server.url);
    await setModelInApp(page, server.baseUrl);

    await page.getByTestId('open-benchmarks').click();
    const view = page.getByTestId('benchmarks-view');
    await expect.poll(() => view.getByTestId('benchmark-model').innerText()).toContain('scripted-model');
    // Every technique's box is inside the form, none pushed out of the view (the last is DeLLMa).
    const form = await view.locator('.benchmark-form').boundingBox();
    const last = await view.locator('.benchmark-form fieldset').first().locator('label').last().boundingBox();
    expect(form && last && last.x + last.width <= form.x + form.width).toBe(true);
    expect(await view.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    await view.getByLabel('Questions file').fill(file);
    await view.getByLabel('PlanRAG', { exact: true }).uncheck();
    await view.getByLabel('IterRAG (ReAct)', { exact: true }).check();
    // A benchmark measures the techniques at the papers' settings unless the analyst chooses the product's.
    const fidelity = view.getByTestId('fidelity-setting');
    expect(await fidelity.getByLabel('Fidelity').locator('option:checked').innerText()).toBe('Paper settings');
    await expect.poll(() => fidelity.locator('[data-extension="query-feedback"]').innerText()).toBe('[ext] Richer database feedback: off');
    await view.getByTestId('start-benchmark').click();

    const item = view.getByTestId('benchmark-item').first();
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 60_000 }).toBe('finished');
    expect(await item.locator('button.link').innerText()).toMatch(/ · paper fidelity$/);
    expect(await item.getByTestId('benchmark-progress').innerText()).toBe('finished: 3/3 questions · accuracy so far 2/3 (66.7%) · 660 tokens');
    const rows = view.getByTestId('results-table').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().innerText()).toMatch(/^iterrag\s+locating\s+rdb\s+3\s+2\/3 \(66\.7%\)\s+2\/3 \(66\.7%\)\s+2\/3\s+2\.0\s+200\s+20\s/);
    expect(await view.getByTestId('question-row').count()).toBe(3);
    // Who decided, and what produced the row: the model as the server named it, the step limit, the version.
    expect(await rows.first().getByTestId('row-deciders').innerText()).toBe('IterRAG (ReAct) 3');
    expect(await view.locator('[data-question="L1"]').getByTestId('question-decider').innerText()).toBe('IterRAG (ReAct)');
    const producedBy = view.getByTestId('produced-by');
    expect(await producedBy.count()).toBe(1);
    expect(await producedBy.locator('summary').innerText()).toBe('iterrag · locating · rdb: scripted-model');
    const produced = await producedBy.locator('table').innerText();
    expect(produced).toMatch(/Model\s+scripted-model/);
    expect(produced).toMatch(/Step limit\s+20/);
    expect(produced).toMatch(/Product version\s+\d+\.\d+\.\d+/);
    // Settings in words, as the run said them, not as JSON.
    expect(produced).toMatch(/Fidelity\s+paper \(temperature 0; extensions on: none\)/);
    expect(produced).not.toMatch(/[{}]/);
    expect(await view.locator('[data-question="L3"]').innerText()).toMatch(/L3\s+iterrag\s+rdb\s+krakow\s+\S+\s+no/);
    for (const chart of ['chart-accuracy', 'chart-tokens', 'chart-ended']) expect(await view.getByTestId(chart).locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
    await screenshot(page, 'benchmarks-01-finished');

    // The analyst labels the wrong answer the log could not tell apart.
    const l3 = view.locator('[data-question="L3"]');
    expect(await l3.getByLabel('Category of L3').inputValue()).toBe('MIS');
    await l3.getByLabel('Category of L3').selectOption('DEEP');
    await expect.poll(() => l3.innerText()).toContain('labelled by the analyst: DEEP');
    expect(await l3.getByLabel('Category of L3').inputValue()).toBe('DEEP');

    await view.locator('[data-question="L2"]').getByTestId('open-question').click();
    await expect.poll(() => page.getByTestId('notebook-title').textContent()).toBe('L2 · iterrag · rdb (benchmark)');
    await expect.poll(() => page.locator('[data-cell-kind]').count()).toBe(4);
    await expect.poll(() => editorText(page.locator('[data-cell-kind="query"]').first())).toBe("SELECT 'L2' AS question, count(*) AS nodes FROM trade_node");
    await screenshot(page, 'benchmarks-02-question');
    expect(app.pageErrors).toEqual([]);
  });

  it('offers DeLLMa’s variant and sizes when DeLLMa is chosen, runs with them and shows them in the results', async () => {
    const questions = devQuestions('locating', ['L1', 'L2']);
    const file = writeQuestionFile(join(suiteDir(), 'dellma-questions.json'), 'locating', questions);
    dellmaServer = await startScriptedOpenAiServer(Array.from({ length: 30 }, () => dqaPrefersBest(questions)));
    const { page } = app;
    await setModelInApp(page, dellmaServer.baseUrl);
    await page.getByTestId('open-benchmarks').click();
    const view = page.getByTestId('benchmarks-view');
    await view.getByLabel('Questions file').fill(file);
    await view.getByLabel('PlanRAG', { exact: true }).uncheck();
    expect(await view.getByTestId('benchmark-dellma').count()).toBe(0);
    await view.getByLabel('DeLLMa', { exact: true }).check();
    // DeLLMa's own extension, declared on its definition, is listed by the Fidelity setting: on even at paper fidelity, as it declares.
    const fidelity = view.getByTestId('fidelity-setting');
    await expect.poll(() => fidelity.locator('[data-extension="dellma-option-factors"]').innerText()).toBe('[ext] DeLLMa: a factor per option on a database: on');
    expect(await fidelity.locator('[data-extension="dellma-option-factors"]').getAttribute('title')).toMatch(/^The paper: Hand-written factor templates per environment/);
    const settings = view.getByTestId('benchmark-dellma');
    await settings.getByLabel('DeLLMa variant').selectOption('top1');
    await settings.getByLabel('Samples per option').fill('4');
    await settings.getByLabel('Minibatch size').fill('8');
    await settings.getByLabel('Overlap').fill('0.5');
    // The estimate follows the sizes: 7 options at most × 4 futures = 28 scenarios in windows of 8 at stride 4, 6 ranking calls.
    await expect.poll(() => settings.getByTestId('dellma-estimate').innerText()).toContain('6 ranking');
    await screenshot(page, 'benchmarks-03-dellma-settings');
    await view.getByTestId('start-benchmark').click();

    const item = view.getByTestId('benchmark-item').first();
    await expect.poll(() => item.innerText()).toContain('dellma');
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 60_000 }).toBe('finished');
    expect(await item.getByTestId('benchmark-progress').innerText()).toMatch(/^finished: 2\/2 questions · accuracy so far 2\/2 \(100\.0%\)/);
    const rows = view.getByTestId('results-table').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().innerText()).toMatch(/^dellma \(top1, s=4, b=8, q=0\.5\)\s+locating\s+rdb\s+2\s+2\/2 \(100\.0%\)/);
    expect(await view.locator('[data-question="L1"]').innerText()).toMatch(/^L1\s+dellma \(top1, s=4, b=8, q=0\.5\)\s+rdb/);
    // Per question: candidates, shortlist, context, forecast and the 6 ranking calls.
    expect(dellmaServer.chatRequests()).toHaveLength(2 * 10);
    expect(dellmaServer.failures).toEqual([]);
    await screenshot(page, 'benchmarks-04-dellma-results');
    expect(app.pageErrors).toEqual([]);
  });
});
