import { describe, expect, it } from 'vitest';
import { configureScriptedModel, screenshot, useAppWithScriptedModel } from '../support/browser';
import { tinySqlite } from '../support/fixtures';
import type { ScriptStep } from '../support/scripted-openai/script';
import { connectSocket } from '../support/serve';
import { useSuiteTempDir } from '../support/temp';

/**
 * A question typed into "Ask the model to decide…" (Chromium, `dwb serve`): on the demo
 * Locating database the composer shows the parameters read from the question, checks them
 * against the data, and the run's decision gets the simulator's verdict (a non-candidate
 * answer is asked again); on data no simulator fits, the composer, the run bar and the
 * decision cell say "not checked: no simulator recognises this schema".
 */
const script: ScriptStep[] = [
  // "Test connection": one tiny completion, a tool-calling probe, then a JSON-schema probe.
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
  // The typed Locating question.
  { toolCalls: [{ name: 'plan', arguments: { steps: ['Find the nodes upstream of baltic_sea', 'Decide'] } }] },
  { toolCalls: [{ name: 'answer', arguments: { decision: 'unknown', rationale: 'No trade node was read.' } }] },
  { expectToolResultContains: '"unknown" is not one of the candidates', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'krakow feeds baltic_sea.' } }] },
  // The question on the shops database.
  { toolCalls: [{ name: 'plan', arguments: { steps: ['Compare the regions', 'Decide'] } }] },
  { toolCalls: [{ name: 'answer', arguments: { decision: 'north', rationale: 'north has the most revenue.' } }] },
];

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1400, height: 950 } });
const suiteDir = useSuiteTempDir();

const typedQuestion = 'We are the country named "SWE" and our home node is "baltic_sea". Where should we place our one merchant?';

describe('the simulator check of a typed question', () => {
  it('configures the model endpoint', async () => {
    const api = await connectSocket(app.server);
    await api.invoke('connections/add', { name: 'Shops', target: { engine: 'sqlite', path: tinySqlite(suiteDir()) } });
    await app.page.goto(app.server.url);
    await configureScriptedModel(app.page, model());
  });

  it('shows the parameters read from the question, checks them against the data, and the decision gets the verdict', async () => {
    const { page } = app;
    await page.getByTestId('new-run').click();
    const composer = page.getByTestId('run-composer');
    await composer.getByLabel('Run connection').selectOption({ label: 'DQA Locating 1445 (demo)' });
    await composer.getByLabel('Simulator check').selectOption('compat');
    const check = composer.getByTestId('check-plan');
    // Written as an analyst would: the one who should place is the country, where the profit is made the home node.
    await composer.getByLabel('Decision question').fill('Where should SWE place its merchant to maximise profit at baltic_sea?');
    await expect.poll(() => check.getByTestId('check-plan-note').innerText()).toBe('The simulator checks the decision (country SWE, home node baltic_sea).');
    expect(await check.getByLabel('Country').inputValue()).toBe('SWE');
    expect(await check.getByLabel('Home node').inputValue()).toBe('baltic_sea');
    // A question naming neither leaves both to the analyst.
    await composer.getByLabel('Decision question').fill('Where should I place my merchant?');
    await expect.poll(() => check.getByTestId('check-plan-note').innerText()).toBe('Not checked: the question names no country; the question names no home node.');
    expect(await check.getByLabel('Country').inputValue()).toBe('');
    expect(await check.getByLabel('Home node').inputValue()).toBe('');
    await composer.getByLabel('Decision question').fill(typedQuestion);
    await expect.poll(() => check.getByLabel('Country').inputValue()).toBe('SWE');
    expect(await check.getByLabel('Home node').inputValue()).toBe('baltic_sea');
    await expect.poll(() => check.getByTestId('check-plan-note').innerText()).toBe('The simulator checks the decision (country SWE, home node baltic_sea).');
    await screenshot(page, 'typed-check-01-parameters');

    // A country the data does not have is said at once, and the field is marked.
    await check.getByLabel('Country').fill('ATL');
    await expect.poll(() => check.getByTestId('check-plan-note').innerText()).toBe('Not checked: the country "ATL" given is not in this data.');
    expect(await check.getByLabel('Country').getAttribute('aria-invalid')).toBe('true');
    await check.getByLabel('Country').fill('SWE');
    await expect.poll(() => check.getByTestId('check-plan-note').innerText()).toBe('The simulator checks the decision (country SWE, home node baltic_sea).');

    await composer.getByTestId('start-run').click();
    await expect.poll(() => page.getByTestId('run-status').innerText(), { timeout: 20_000 }).toBe('Decided');
    expect(await page.getByTestId('run-check').innerText()).toBe('✓ simulator agrees');
    const decision = page.getByTestId('decision').last();
    expect(await decision.locator('.decision-value').innerText()).toBe('krakow');
    expect(await decision.getByTestId('verification').innerText()).toContain('The simulator confirms this is the best decision');
    expect(await decision.getAttribute('class')).toContain('verdict-agrees');
    await decision.scrollIntoViewIfNeeded();
    await screenshot(page, 'typed-check-02-verdict');
    expect(app.pageErrors).toEqual([]);
  });

  it('says "not checked: <reason>" on data no simulator fits, in the composer, the run bar and the decision cell', async () => {
    const { page } = app;
    await page.getByTestId('new-run').click();
    const composer = page.getByTestId('run-composer');
    await composer.getByLabel('Run connection').selectOption({ label: 'Shops' });
    await composer.getByLabel('Decision question').fill('Which region should we open the next store in?');
    const check = composer.getByTestId('check-plan');
    await expect.poll(() => check.getByTestId('check-plan-note').innerText()).toBe('Not checked: no simulator recognises this schema.');
    expect(await check.getByLabel('Country').count()).toBe(0);
    await composer.getByTestId('start-run').click();

    await expect.poll(() => page.getByTestId('decision').last().locator('.decision-value').innerText(), { timeout: 20_000 }).toBe('north');
    await expect.poll(() => page.getByTestId('run-check').innerText()).toBe('not checked: no simulator recognises this schema');
    const bar = page.getByTestId('run-bar');
    expect(await page.getByTestId('run-status').innerText()).toBe('Decided');
    // Not the green of a checked decision.
    expect(await bar.getAttribute('class')).toContain('run-unchecked');
    expect(await bar.evaluate((element) => (globalThis as unknown as { getComputedStyle(target: unknown): { backgroundColor: string } }).getComputedStyle(element).backgroundColor)).not.toBe('rgb(29, 77, 54)');
    const decision = page.getByTestId('decision').last();
    expect(await decision.getByTestId('verification').innerText()).toBe('Not checked: no simulator recognises this schema.');
    expect(await decision.getAttribute('class')).toContain('verdict-unchecked');
    model().verify();
    await decision.scrollIntoViewIfNeeded();
    await screenshot(page, 'typed-check-03-not-checked');

    // The run histories say the same of each run, newest first: not a bare "Decided".
    await bar.getByTestId('show-run-history').click();
    const checks = page.getByTestId('run-history').getByTestId('run-history-row').getByTestId('run-check-cell');
    await expect.poll(() => checks.allInnerTexts()).toEqual(['not checked: no simulator recognises this schema', '✓ simulator agrees']);
    expect(await checks.first().getAttribute('class')).toContain('unchecked');
    await screenshot(page, 'typed-check-04-run-history');
    await page.getByTestId('open-history').click();
    const view = page.getByTestId('history-view');
    await view.getByTestId('history-tab-runs').click();
    await expect.poll(() => view.getByTestId('all-runs-row').getByTestId('run-check-cell').allInnerTexts()).toEqual(['not checked: no simulator recognises this schema', '✓ simulator agrees']);
    await screenshot(page, 'typed-check-05-all-runs');
    expect(app.pageErrors).toEqual([]);
  });
});
