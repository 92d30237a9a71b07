import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from '../support/browser';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../support/scripted-openai';
import { startServe, type ServeProcess } from '../support/serve';
import { useSuiteTempDir } from '../support/temp';

const workspace = useSuiteTempDir();
let server: ServeProcess;
let model: ScriptedOpenAiServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  model = await startScriptedOpenAiServer(
    [
      // "Test connection": one tiny completion, then a tool-calling probe.
      { content: 'ok' },
      { toolCalls: [{ name: 'probe', arguments: {} }] },
      { expectTools: ['plan'], toolCalls: [{ name: 'plan', arguments: { steps: ['Read SWE trading power per node', 'Compare the nodes upstream of baltic_sea'] } }] },
      { content: 'Start with SWE power.', toolCalls: [{ name: 'query', arguments: { query: "SELECT trade_node, base_trading_power FROM node_country WHERE country_name = 'SWE'" } }] },
      {
        expectToolResultContains: ['The analyst replaced your query', 'krakow | 4.777'],
        toolCalls: [{ name: 'query', arguments: { query: "SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY flow DESC" } }],
      },
      {
        expectToolResultContains: 'krakow',
        toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'krakow sends the most value into **baltic_sea** and SWE can steer it.' } }],
      },
    ],
    { models: ['scripted-model'] },
  );
  server = await startServe(workspace());
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 950 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await model?.close();
});

describe('a decision run in step-through mode', () => {
  it('configures the model endpoint and tests the connection', async () => {
    await page.goto(server.url);
    await page.getByTestId('open-model-settings').click();
    const dialog = page.getByTestId('model-settings');
    await dialog.getByLabel('Base URL').fill(model.baseUrl);
    await dialog.getByLabel('Model').fill('scripted-model');
    await dialog.getByLabel('Tool calling').selectOption('tools');
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => dialog.getByTestId('model-test-report').innerText()).toContain('Connected');
    expect(await dialog.innerText()).toContain('kept in memory only');
    await screenshot(page, 'run-01-model-settings');
    await dialog.getByTestId('save-model').click();
    await expect.poll(() => page.getByTestId('model-summary').innerText()).toContain('scripted-model');
  });

  it('runs PlanRAG on the demo question, with the analyst editing one generated query', async () => {
    await page.getByTestId('run-question').first().click();
    const composer = page.getByTestId('run-composer');
    expect(await composer.getByLabel('Decision question').inputValue()).toContain('baltic_sea');
    expect(await composer.getByLabel('Run connection').locator('option:checked').innerText()).toBe('DQA Locating 1445 (demo)');
    await composer.getByLabel('Step-through').check();
    await composer.getByTestId('start-run').click();

    const review = page.getByTestId('review-panel');
    await review.waitFor();
    await expect.poll(() => review.innerText()).toContain('The model wants to run this query');
    await screenshot(page, 'run-02-review');
    await review.getByTestId('query-editor').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type("SELECT trade_node, local_value FROM trade_node WHERE trade_node = 'krakow'");
    await page.keyboard.press('Escape');
    expect(await review.getByTestId('review-approve').innerText()).toBe('Run my version');
    await review.getByTestId('review-approve').click();
    // The model's next query waits for review in turn; approve it as it is.
    await expect
      .poll(async () => `${(await page.getByTestId('run-bar').innerText()).replaceAll('\u00a0', ' ')} ${model.failures.join(' ')}`)
      .toMatch(/FROM flow WHERE dest/);
    expect(await page.getByTestId('review-approve').innerText()).toBe('Approve');
    await page.getByTestId('review-approve').click();

    await expect.poll(() => page.getByTestId('run-status').innerText(), { timeout: 20_000 }).toBe('Decided');
    const decision = page.getByTestId('decision');
    expect(await decision.locator('.decision-value').innerText()).toBe('krakow');
    expect(await decision.locator('strong').innerText()).toBe('baltic_sea');
    expect(await decision.getByTestId('evidence-link').count()).toBe(2);
    model.verify();

    const kinds = await page.getByTestId('cell').evaluateAll((cells) => cells.map((cell) => `${cell.getAttribute('data-cell-kind')}`));
    // The demo question names SWE and baltic_sea, so the decision is checked by the simulator.
    expect(kinds.slice(-9)).toEqual(['question', 'plan', 'thought', 'query', 'observation', 'query', 'observation', 'simulation', 'decision']);
    expect(await decision.getByTestId('verification').innerText()).toMatch(/simulator/i);
    const edited = page.locator('[data-cell-kind="query"]').nth(-2);
    expect(await edited.locator('.author').innerText()).toBe('analyst');
    await expect.poll(() => edited.getByTestId('result-summary').innerText()).toMatch(/^1 row/);
    await decision.scrollIntoViewIfNeeded();
    await screenshot(page, 'run-03-decision');
    expect(pageErrors).toEqual([]);
  });

  it('keeps the run’s cells after a reload', async () => {
    await page.reload();
    await expect.poll(() => page.getByTestId('decision').count()).toBe(1);
    expect(await page.getByTestId('decision').locator('.decision-value').innerText()).toBe('krakow');
  });
});
