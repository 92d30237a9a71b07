import { afterAll, describe, expect, it } from 'vitest';
import { openRunComposer, screenshot, setModelInApp, useAppInBrowser } from '../support/browser';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../support/scripted-openai';

/**
 * A decision copied from the `simulate` tool's ranking, or made by Pearl's PlanRAG fallback,
 * says so where the analyst reads it: the run bar ("Decided by …") and the decision cell, in
 * Chromium, on the demo's Locating question (a simulator fits, so the model is offered `simulate`).
 */
const models: ScriptedOpenAiServer[] = [];
afterAll(async () => {
  await Promise.all(models.map((model) => model.close()));
});

const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });
const said = 'PlanRAG, tool-assisted: copied from simulate at step 2';

describe('a tool-assisted decision', () => {
  it('is labelled as such in the run bar and in the decision cell, also after a reload', async () => {
    const { page } = app;
    const model = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Simulate the candidates', 'Take the best'] } }] },
      { toolCalls: [{ name: 'simulate', arguments: { country: 'SWE', home: 'baltic_sea' } }] },
      { expectToolResultContains: 'krakow', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'The simulator ranks krakow first.' } }] },
    ]);
    models.push(model);
    await page.goto(app.server.url);
    await setModelInApp(page, model.baseUrl);
    const composer = await openRunComposer(page);
    await composer.getByTestId('start-run').click();

    const bar = page.getByTestId('run-bar');
    await expect.poll(() => bar.getByTestId('run-status').innerText(), { timeout: 30_000 }).toBe('Decided');
    model.verify();
    expect(await bar.getByTestId('run-decided-by').innerText()).toBe(`by ${said}`);
    // Status and maker read as one phrase: "Decided by PlanRAG, tool-assisted: …".
    expect((await bar.innerText()).replace(/\s+/g, ' ')).toContain(`Decided by ${said}`);
    const decision = page.getByTestId('decision');
    expect(await decision.locator('.decision-value').innerText()).toBe('krakow');
    expect(await decision.getByTestId('decided-by').innerText()).toBe(`Decided by ${said}`);
    expect(await decision.getByTestId('decided-by').getAttribute('class')).toContain('notable');
    await decision.scrollIntoViewIfNeeded();
    await screenshot(page, 'provenance-01-tool-assisted');

    await bar.getByTestId('show-run-history').click();
    const row = page.getByTestId('run-history').getByTestId('run-history-row').first();
    await expect.poll(() => row.getByTestId('run-made-by').innerText()).toBe('PlanRAG, tool-assisted (simulate)');

    await page.reload();
    await expect.poll(() => page.getByTestId('decided-by').count()).toBe(1);
    expect(await page.getByTestId('decided-by').innerText()).toBe(`Decided by ${said}`);
    expect(app.pageErrors).toEqual([]);
  });
});

describe('a decision made by Pearl\'s fallback', () => {
  it('says PlanRAG made it as Pearl\'s fallback, in the run bar and the decision cell', async () => {
    const { page } = app;
    const refused = { toolCalls: [{ name: 'program', arguments: { program: 'New actions:\n- None\n\n1. out1 = NO_SUCH_ACTION(DB) : nothing' } }] };
    const model = await startScriptedOpenAiServer([
      ...Array.from({ length: 8 }, () => refused),
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Compare the upstream nodes', 'Decide'] } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'It feeds the home node.' } }] },
    ]);
    models.push(model);
    await page.goto(app.server.url);
    await setModelInApp(page, model.baseUrl);
    const composer = await openRunComposer(page, { technique: 'pearl' });
    await composer.getByTestId('start-run').click();

    const bar = page.getByTestId('run-bar');
    await expect.poll(() => bar.getByTestId('run-status').innerText(), { timeout: 60_000 }).toBe('Decided');
    model.verify();
    const fallback = "PlanRAG (Pearl's fallback after 8 refused programs)";
    expect((await bar.innerText()).replace(/\s+/g, ' ')).toContain(`Decided by ${fallback}`);
    const decision = page.getByTestId('decision').last();
    expect(await decision.getByTestId('decided-by').innerText()).toBe(`Decided by ${fallback}`);
    await decision.scrollIntoViewIfNeeded();
    await screenshot(page, 'provenance-02-pearl-fallback');
    // The run history names who decided, not only the technique started, in the notebook's and the workspace's.
    await bar.getByTestId('show-run-history').click();
    const row = page.getByTestId('run-history').getByTestId('run-history-row').first();
    await expect.poll(() => row.getByTestId('run-made-by').innerText()).toBe("PlanRAG as Pearl's fallback");
    expect(await row.getByTestId('run-made-by').getAttribute('title')).toBe(`Started as pearl; decided by ${fallback}`);
    await page.getByTestId('open-history').click();
    const view = page.getByTestId('history-view');
    await view.getByTestId('history-tab-runs').click();
    await expect.poll(() => view.getByTestId('all-runs-row').first().getByTestId('run-made-by').innerText()).toBe("PlanRAG as Pearl's fallback");
    await screenshot(page, 'provenance-03-history-decider');
    expect(app.pageErrors).toEqual([]);
  });
});
