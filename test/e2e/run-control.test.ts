import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { openRunComposer, screenshot, setModelInApp, useAppInBrowser } from '../support/browser';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../support/scripted-openai';
import type { ScriptStep } from '../support/scripted-openai/script';
import { startServe, type ServeProcess } from '../support/serve';
import { useTempDirs } from '../support/temp';

/**
 * Controlling a live run from the notebook: pausing an automatic run so that it waits at the
 * next query, letting it run on, the model's own what-if experiment as a cell the analyst can
 * copy and re-run, and resuming a run after the app was killed in the middle of it.
 */

const change = 'UPDATE supply SET current_output = current_output * (level + 5.0) / level WHERE building_id = :candidate AND goods_id = 7';
const objective = 'SELECT sum(current_output) FROM supply WHERE goods_id = 7';
const candidatesQuery = 'SELECT building_id FROM supply WHERE goods_id = 7 ORDER BY building_id';

const models: ScriptedOpenAiServer[] = [];
afterAll(async () => {
  await Promise.all(models.map((model) => model.close()));
});
const tempDir = useTempDirs();

async function scriptedModel(script: ScriptStep[]): Promise<ScriptedOpenAiServer> {
  const model = await startScriptedOpenAiServer(script, { models: ['scripted-model'] });
  models.push(model);
  return model;
}

/** Points the workspace at the scripted model, as the analyst would. */
async function useModel(page: Page, model: ScriptedOpenAiServer): Promise<void> {
  await setModelInApp(page, model.baseUrl);
  await expect.poll(() => page.getByTestId('model-summary').innerText()).toContain('scripted-model');
}

/** The run bar's text with what the scripted model found wrong, so a failing poll says why. */
async function runBarText(page: Page, model: ScriptedOpenAiServer): Promise<string> {
  const bar = page.getByTestId('run-bar').last();
  const text = (await bar.count()) ? await bar.innerText() : '(no run bar)';
  return `${text.replaceAll('\u00a0', ' ')} ${model.failures.join(' ')}`;
}

const app = useAppInBrowser({ viewport: { width: 1400, height: 1000 } });

describe('pausing a run and the model’s what-if experiment', () => {
  it('pauses an automatic run at its next query, runs on, and shows the model’s what-if as a cell', async () => {
    const { page } = app;
    // The model plans only once the analyst has pressed Pause, however slow the machine.
    let pressedPause = (): void => undefined;
    const pausePressed = new Promise<void>((resolve) => (pressedPause = resolve));
    const model = await scriptedModel([
      { holdUntil: pausePressed, expectTools: ['plan'], toolCalls: [{ name: 'plan', arguments: { steps: ['Count the grain producers', 'Try expanding each one on a copy'] } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS producers FROM supply WHERE goods_id = 7' } }] },
      {
        expectToolResultContains: 'rows: 1 (complete)',
        expectTools: ['query', 'replan', 'simulate', 'whatif', 'answer'],
        toolCalls: [{ name: 'whatif', arguments: { change, objective, candidatesQuery } }],
      },
      {
        expectToolResultContains: ['best: 1458 (tied with 1518, 1588, 1595)', 'database itself is unchanged'],
        toolCalls: [{ name: 'answer', arguments: { decision: '1458', rationale: 'The what-if ranks 1458 first, tied with three equal buildings.' } }],
      },
    ]);
    await page.goto(app.server.url);
    await useModel(page, model);

    // The demo's second question is about the Building data.
    const composer = await openRunComposer(page, { question: 1 });
    expect(await composer.getByLabel('Run connection').locator('option:checked').innerText()).toBe('DQA Building USA 1836 (demo)');
    expect(await composer.getByLabel('Offer what-if experiments').isChecked()).toBe(true);
    // Step-through says what it stops for, as each technique declares it.
    const stops = composer.getByTestId('step-through-reviews');
    await expect.poll(() => stops.innerText()).toBe('(review each query and each re-plan)');
    const technique = composer.getByLabel('Technique');
    await technique.selectOption('pearl');
    await expect.poll(() => stops.innerText()).toBe('(review the program before it runs and each step’s query)');
    await technique.selectOption('dellma');
    await expect.poll(() => stops.innerText()).toBe('(review each query, the forecast, and each ranking batch)');
    await stops.scrollIntoViewIfNeeded();
    await screenshot(page, 'control-00-step-through-stops');
    await technique.selectOption('planrag');
    await expect.poll(() => stops.innerText()).toBe('(review each query and each re-plan)');
    await composer.getByTestId('start-run').click();

    const pause = page.getByTestId('pause-run');
    await expect.poll(() => pause.innerText()).toBe('❚❚ Pause');
    await pause.click();
    await expect.poll(() => pause.innerText()).toBe('▶ Run automatically');
    expect(await page.getByTestId('run-bar').innerText()).toContain('step-through: waits for you at each query and each re-plan');
    pressedPause();

    // Paused: the model's query waits for the analyst.
    const review = page.getByTestId('review-panel');
    await expect.poll(async () => ((await review.count()) ? review.innerText() : runBarText(page, model)), { timeout: 15_000 }).toContain('The model wants to run this query');
    await screenshot(page, 'control-01-paused');
    await pause.click();

    await expect.poll(async () => runBarText(page, model), { timeout: 20_000 }).toMatch(/^Decided/);
    model.verify();
    const experiment = page.locator('[data-cell-kind="whatif"]').last();
    expect(await experiment.locator('.author').innerText()).toBe('model');
    expect(await experiment.getByTestId('run-whatif').count()).toBe(0); // the model's cell is a record, not a form
    expect(await experiment.getByTestId('whatif-winner').innerText()).toContain('Best: 1458');
    expect(await experiment.innerText()).toContain(candidatesQuery);
    await experiment.scrollIntoViewIfNeeded();
    await screenshot(page, 'control-02-model-whatif');
    // The model's experiment as a record (its SQL in read-only blocks) passes the full-page audit in light and dark.
    for (const colorScheme of ['light', 'dark'] as const) {
      const audited = await app.browser.newPage({ bypassCSP: true, colorScheme, viewport: { width: 1400, height: 1000 } });
      try {
        await audited.goto(app.server.url);
        const record = audited.locator('[data-cell-kind="whatif"] .whatif-readonly').last();
        await record.waitFor({ timeout: 15_000 });
        await record.scrollIntoViewIfNeeded();
        expect(await seriousViolations(audited), colorScheme).toEqual([]);
      } finally {
        await audited.close();
      }
    }

    // The analyst re-runs it with a change of their own: an editable copy right below.
    await experiment.getByTestId('copy-to-edit').click();
    const copy = page.locator('[data-cell-kind="whatif"]').last();
    await expect.poll(() => copy.locator('.author').innerText()).toBe('analyst');
    await copy.getByLabel('Direction').selectOption('minimize');
    await copy.getByTestId('run-whatif').click();
    await expect.poll(() => copy.getByTestId('whatif-winner').innerText()).toMatch(/^Best: \d+/);
    expect(await copy.getByTestId('whatif-winner').innerText()).toContain('objective minimized');
    expect(app.pageErrors).toEqual([]);
  });
});

describe('a run interrupted by the app being killed', () => {
  let server: ServeProcess | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('offers “Resume run” after a restart and finishes the run', async () => {
    const model = await scriptedModel([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Count the nodes'] } }] },
      // The app is killed while the model is answering this call (it never answers: the kill
      // closes the socket, which ends the wait)…
      { delayMs: Number.POSITIVE_INFINITY, toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS nodes FROM trade_node' } }] },
      // …so after the restart the same call is made again, from the same conversation.
      { expectLastMessageContains: 'Plan recorded', toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS nodes FROM trade_node' } }] },
      { expectToolResultContains: 'rows: 1 (complete)', toolCalls: [{ name: 'answer', arguments: { decision: '80', rationale: 'There are 80 trade nodes.' } }] },
    ]);
    const workspace = tempDir();
    server = await startServe(workspace);
    const page = await app.browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (error) => app.pageErrors.push(error.message));
    await page.goto(server.url);
    await useModel(page, model);
    await page.getByTestId('new-notebook').click();
    await expect.poll(() => page.getByTestId('notebook-title').textContent()).toBe('Untitled 1');
    await page.getByTestId('new-run').click();
    const composer = page.getByTestId('run-composer');
    await composer.getByLabel('Decision question').fill('How many trade nodes are there?');
    await composer.getByLabel('Run connection').selectOption({ label: 'DQA Locating 1445 (demo)' });
    await composer.getByTestId('start-run').click();
    await expect.poll(() => page.locator('[data-cell-kind="plan"]').count(), { timeout: 10_000 }).toBe(1);
    // The kill must come while the second model call is under way, not before it was made.
    await expect.poll(() => model.chatRequests().length, { timeout: 10_000 }).toBe(2);

    await server.stop('SIGKILL');
    server = await startServe(workspace);
    await page.goto(server.url);
    await page.getByTestId('notebook-list').getByText('Untitled 1').click();
    await expect.poll(() => page.getByTestId('notebook-title').textContent()).toBe('Untitled 1');
    const banner = page.getByTestId('interrupted-run');
    await expect.poll(() => banner.count()).toBe(1);
    expect(await banner.innerText()).toContain('The app stopped during the run “How many trade nodes are there?”');
    await screenshot(page, 'control-03-interrupted');
    await banner.getByRole('button', { name: 'Resume run' }).click();

    await expect.poll(async () => runBarText(page, model), { timeout: 20_000 }).toMatch(/^Decided/);
    expect(await banner.count()).toBe(0);
    expect(await page.getByTestId('decision').last().locator('.decision-value').innerText()).toBe('80');
    const kinds = await page.getByTestId('cell').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-cell-kind')));
    expect(kinds).toEqual(['question', 'plan', 'note', 'query', 'observation', 'decision']);
    expect(await page.locator('[data-cell-kind="note"]').filter({ hasText: 'Run resumed' }).count()).toBe(1);
    model.verify();
    await page.close();
    expect(app.pageErrors).toEqual([]);
  });
});
