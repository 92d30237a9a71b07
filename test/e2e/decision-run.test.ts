import { describe, expect, it } from 'vitest';
import { configureScriptedModel, openRunComposer, screenshot, useAppWithScriptedModel } from '../support/browser';
import type { ScriptStep } from '../support/scripted-openai/script';

const script: ScriptStep[] = [
  // "Test connection": one tiny completion, a tool-calling probe, then a JSON-schema probe.
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
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
];

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1400, height: 950 } });

describe('a decision run in step-through mode', () => {
  it('configures the model endpoint and tests the connection', async () => {
    await app.page.goto(app.server.url);
    await configureScriptedModel(app.page, model(), {
      beforeSave: async (dialog) => {
        expect(await dialog.innerText()).toContain('kept in memory only');
        await screenshot(app.page, 'run-01-model-settings');
      },
    });
  });

  it('runs PlanRAG on the demo question, with the analyst editing one generated query', async () => {
    const composer = await openRunComposer(app.page);
    expect(await composer.getByLabel('Decision question').inputValue()).toContain('baltic_sea');
    expect(await composer.getByLabel('Run connection').locator('option:checked').innerText()).toBe('DQA Locating 1445 (demo)');
    // The composer says which fidelity applies (app runs: the product's labelled extensions) and lets the analyst choose.
    const fidelity = composer.getByTestId('fidelity-setting');
    expect(await fidelity.getByLabel('Fidelity').locator('option:checked').innerText()).toBe('Product (labelled extensions on)');
    expect(await fidelity.getByTestId('fidelity-note').innerText()).toMatch(/^Product: /);
    expect(await fidelity.locator('[data-extension="simulate-tool"]').innerText()).toBe('[ext] Simulate tool offered: on');
    expect(await fidelity.locator('[data-extension="query-feedback"]').getAttribute('title')).toMatch(/^The paper: The database's own message only/);
    await fidelity.getByLabel('Fidelity').selectOption('paper');
    await expect.poll(() => fidelity.locator('[data-extension="simulate-tool"]').innerText()).toBe('[ext] Simulate tool offered: off');
    expect(await fidelity.getByTestId('fidelity-note').innerText()).toMatch(/^Paper: The papers' settings: temperature 0/);
    expect(await composer.getByLabel('Offer what-if experiments').isDisabled()).toBe(true);
    await fidelity.getByLabel('Temperature').fill('3');
    await expect.poll(() => fidelity.getByRole('alert').innerText()).toBe('Temperature: a number from 0 to 2, or blank');
    expect(await composer.getByTestId('start-run').isDisabled()).toBe(true);
    await fidelity.getByLabel('Temperature').fill('');
    await fidelity.getByLabel('Fidelity').selectOption('product');
    await expect.poll(() => fidelity.locator('[data-extension="simulate-tool"]').innerText()).toBe('[ext] Simulate tool offered: on');
    await screenshot(app.page, 'run-01b-composer-fidelity');
    await composer.getByLabel('Step-through').check();
    await composer.getByTestId('start-run').click();

    const review = app.page.getByTestId('review-panel');
    await review.waitFor();
    await expect.poll(() => review.innerText()).toContain('The model wants to run this query');
    await screenshot(app.page, 'run-02-review');
    await review.getByTestId('query-editor').click();
    await app.page.keyboard.press('ControlOrMeta+A');
    await app.page.keyboard.type("SELECT trade_node, local_value FROM trade_node WHERE trade_node = 'krakow'");
    await app.page.keyboard.press('Escape');
    expect(await review.getByTestId('review-approve').innerText()).toBe('Run my version');
    await review.getByTestId('review-approve').click();
    // The model's next query waits for review in turn; approve it as it is.
    await expect
      .poll(async () => `${(await app.page.getByTestId('review-dock').innerText()).replace(/\s+/g, ' ')} ${model().failures.join(' ')}`)
      .toMatch(/FROM flow WHERE dest/);
    expect(await app.page.getByTestId('review-approve').innerText()).toBe('Approve');
    await app.page.getByTestId('review-approve').click();

    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 20_000 }).toBe('Decided');
    const decision = app.page.getByTestId('decision');
    expect(await decision.locator('.decision-value').innerText()).toBe('krakow');
    expect(await decision.locator('strong').innerText()).toBe('baltic_sea');
    expect(await decision.getByTestId('evidence-link').count()).toBe(2);
    model().verify();

    const kinds = await app.page.getByTestId('cell').evaluateAll((cells) => cells.map((cell) => `${cell.getAttribute('data-cell-kind')}`));
    // The demo question names SWE and baltic_sea, so the decision is checked by the simulator.
    // The analyst's edit keeps the model's original query in a note just before the analyst's version.
    expect(kinds.slice(-10)).toEqual(['question', 'plan', 'thought', 'note', 'query', 'observation', 'query', 'observation', 'simulation', 'decision']);
    expect(await decision.getByTestId('verification').innerText()).toMatch(/simulator/i);
    const edited = app.page.locator('[data-cell-kind="query"]').nth(-2);
    expect(await edited.locator('.author').innerText()).toBe('analyst');
    await expect.poll(() => edited.getByTestId('result-summary').innerText()).toMatch(/^1 row/);
    await decision.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'run-03-decision');
    expect(app.pageErrors).toEqual([]);
  });

  it('leaves one compact bar and a history; labels match the report; the decision shows the simulator’s verdict', async () => {
    // The ended run is one line, dismissable; nothing else stays fixed over the notebook.
    const bars = app.page.getByTestId('run-bar');
    await expect.poll(() => bars.count()).toBe(1);
    expect(await bars.evaluate((bar) => bar.classList.contains('compact'))).toBe(true);
    expect((await bars.boundingBox())?.height).toBeLessThan(60);
    // The run's queries carry the report's names, and evidence links use them and go there.
    const labels = await app.page.getByTestId('cell-label').allInnerTexts();
    expect(labels.slice(-2)).toEqual(['q1', 'q2']);
    const decision = app.page.getByTestId('decision');
    const links = await decision.getByTestId('evidence-link').allInnerTexts();
    expect(links.every((link) => /^q\d+$/.test(link))).toBe(true);
    await decision.getByTestId('evidence-link').first().click();
    await expect.poll(() => app.page.locator('[data-testid="cell"].selected').getByTestId('cell-label').innerText()).toBe(links[0]);
    // Green only when the simulator agrees.
    const verdict = await decision.getByTestId('verification').innerText();
    const expected = verdict.includes('disagrees') ? 'verdict-disagrees' : 'verdict-agrees';
    expect(await decision.getAttribute('class')).toContain(expected);
    const color = await decision.locator('.decision-value').evaluate((element) => (globalThis as unknown as { getComputedStyle(target: unknown): { color: string } }).getComputedStyle(element).color);
    if (expected === 'verdict-disagrees') expect(color).not.toBe('rgb(29, 107, 69)');
    // The history lists the run with its outcome.
    await bars.getByTestId('show-run-history').click();
    const history = app.page.getByTestId('run-history');
    await expect.poll(() => history.getByTestId('run-history-row').count()).toBe(1);
    const row = await history.getByTestId('run-history-row').innerText();
    expect(row).toContain('Decided');
    // Who decided, by its label (the technique started is on hover).
    expect(await history.getByTestId('run-history-row').getByTestId('run-made-by').innerText()).toBe('PlanRAG');
    expect(row).toContain('krakow');
    await screenshot(app.page, 'run-04-compact-bar-and-history');
    await bars.getByTestId('dismiss-run').click();
    await expect.poll(() => bars.count()).toBe(0);
    await history.getByRole('button', { name: 'Go to decision' }).click();
    await expect.poll(() => app.page.locator('[data-testid="cell"].selected').getAttribute('data-cell-kind')).toBe('decision');
    expect(app.pageErrors).toEqual([]);
  });

  it('keeps the run’s cells after a reload', async () => {
    await app.page.reload();
    await expect.poll(() => app.page.getByTestId('decision').count()).toBe(1);
    expect(await app.page.getByTestId('decision').locator('.decision-value').innerText()).toBe('krakow');
  });
});
