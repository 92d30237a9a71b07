import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { configureScriptedModel, openRunComposer, screenshot, useAppWithScriptedModel } from '../support/browser';
import { isDarkColour, shownColours } from '../support/contrast';
import type { ScriptStep } from '../support/scripted-openai/script';

const broken = 'New actions:\n- None\n\n1. out1 = LOOKUP(DB, "baltic_sea", "local_value, ingoing") : the home node values\n2. out2 = ARGMAX(out9, "SWE profit") : the best node';
const planned = 'New actions:\n- None\n\n1. out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node';
const fixedStep = '2. out2 = ARGMAX(out1, "SWE profit") : the best node';

const call = (name: string, args: Record<string, string>): ScriptStep => ({ expectTools: [name], toolCalls: [{ name, arguments: args }] });

const script: ScriptStep[] = [
  // "Test connection": one tiny completion, a tool-calling probe, then a JSON-schema probe.
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
  // The model's run: a program the parser refuses (out9), then one it accepts.
  call('program', { program: broken }),
  { ...call('program', { program: planned }), expectLastMessageContains: 'out9 is neither DB, a quoted string nor an earlier output' },
  call('query', { query: "SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }),
  call('output', { output: 'krakow' }),
  // The analyst's run of the first program, fixed by hand: no planner call, its two steps.
  { ...call('query', { query: "SELECT trade_node, local_value, ingoing FROM trade_node WHERE trade_node = 'baltic_sea'" }), expectLastMessageContains: 'attributes = "local_value, ingoing"' },
  call('output', { output: 'baltic_sea: local value 5.665, ingoing 0.98' }),
  { ...call('output', { output: 'krakow' }), expectLastMessageContains: '(the output of out1)\nbaltic_sea: local value 5.665' },
  // Step by step: the run waits before the program runs; the analyst's edited program, then out1's query (approved).
  { ...call('query', { query: "SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }), expectLastMessageContains: 'direction = "in"' },
  call('output', { output: 'krakow 0.56, novgorod 0.38' }),
  { ...call('output', { output: 'krakow' }), expectLastMessageContains: '(the output of out1)\nkrakow 0.56, novgorod 0.38' },
];

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1400, height: 1000 } });

describe('a Pearl program in the notebook', () => {
  it('configures the scripted model', async () => {
    await app.page.goto(app.server.url);
    await configureScriptedModel(app.page, model());
  });

  it('shows the refused program with a marker where the parser points; the analyst fixes it and runs it again', async () => {
    const composer = await openRunComposer(app.page, { technique: 'pearl' });
    // Pearl plans with an action library: the seed's actions, with their types, are shown here.
    await composer.getByTestId('view-action-library').click();
    const actions = composer.getByTestId('action-library-view');
    await expect.poll(() => actions.innerText()).toContain('NEIGHBORS(DB, node, relation, direction)');
    expect(await actions.innerText()).toContain('CONCAT(S1, S2, …)');
    await screenshot(app.page, 'pearl-00-library');
    await composer.getByTestId('start-run').click();
    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 30_000 }).toBe('Decided');

    const programs = app.page.getByTestId('program-cell');
    // The refused program and the accepted one are one cell: the accepted program in the editor, both attempts inside.
    await expect.poll(() => programs.count()).toBe(1);
    const first = programs.first();
    expect(await first.getByTestId('program-verdict').innerText()).toBe('the parser accepts it');
    expect(await first.locator('.program-heading').innerText()).toContain('attempt 2 of 8');
    const attempts = first.getByTestId('program-attempts');
    expect(await attempts.locator('summary').innerText()).toBe('2 attempts: 1 refused by the parser, then accepted');
    expect(await attempts.getByTestId('program-attempt').first().isVisible()).toBe(false);
    await attempts.locator('summary').click();
    const listed = attempts.getByTestId('program-attempt');
    await expect.poll(() => listed.first().isVisible()).toBe(true);
    expect(await listed.count()).toBe(2);
    const refused = await listed.nth(0).innerText();
    expect(refused).toContain('Attempt 1 of 8');
    expect(refused).toContain('refused (1 error)');
    expect(refused).toContain('line 5, column 18: out9 is neither DB, a quoted string nor an earlier output');
    expect(refused).toContain('2. out2 = ARGMAX(out9, "SWE profit") : the best node');
    expect(await listed.nth(1).innerText()).toMatch(/Attempt 2 of 8\s+accepted/);
    await first.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'pearl-00-attempts');

    // "Edit" puts the refused attempt into the editor: the parser's marker sits on out9, and the library's actions are highlighted as known.
    await listed.nth(0).getByTestId('program-attempt-edit').click();
    await expect.poll(() => first.getByTestId('program-verdict').innerText()).toBe('1 parser error');
    expect(await first.getByTestId('program-errors').innerText()).toContain('line 5, column 18: out9 is neither DB, a quoted string nor an earlier output');
    await expect.poll(() => first.locator('.squiggly-error').count()).toBeGreaterThan(0);
    expect(await first.getByTestId('program-run').isDisabled()).toBe(true);
    expect(await first.locator('.mtk1, [class*="mtk"]').filter({ hasText: 'LOOKUP' }).count()).toBeGreaterThan(0);
    await attempts.locator('summary').click();
    await first.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'pearl-01-marker');

    // Fix the last line by hand: the parser (in the main process) accepts it and the marker goes.
    await first.getByTestId('program-editor').click();
    await app.page.keyboard.press('ControlOrMeta+End');
    await app.page.keyboard.press('Shift+Home');
    await app.page.keyboard.type(fixedStep);
    await expect.poll(async () => `${await first.getByTestId('program-verdict').innerText()} ${(await first.getByTestId('program-errors').count()) ? await first.getByTestId('program-errors').innerText() : ''}`).toBe('the parser accepts it ');
    await expect.poll(() => first.locator('.squiggly-error').count()).toBe(0);
    await screenshot(app.page, 'pearl-02-fixed');

    await first.getByTestId('program-run').click();
    // A second run: its own program cell (the analyst's), each step, and the simulator's check.
    await expect.poll(() => programs.count(), { timeout: 20_000 }).toBe(2);
    await expect.poll(async () => (await app.page.getByTestId('decision').count()) === 2 && (await app.page.getByTestId('run-status').innerText()), { timeout: 30_000 }).toBe('Decided');
    expect(model().failures).toEqual([]);
    const third = programs.nth(1);
    expect(await third.innerText()).toContain('by the analyst');
    expect(await third.getByTestId('program-attempts').count()).toBe(0);
    expect(await third.getByTestId('program-verdict').innerText()).toBe('the parser accepts it');
    const decision = app.page.getByTestId('decision').last();
    expect(await decision.locator('.decision-value').innerText()).toBe('krakow');
    expect(await decision.getByTestId('verification').innerText()).toMatch(/simulator/i);
    const kinds = await app.page.getByTestId('cell').evaluateAll((cells) => cells.map((cell) => `${cell.getAttribute('data-cell-kind')}`));
    // The question, the analyst's program, its plan, out1's query and rows and record, out2's record, the simulation, the mapping, the decision.
    expect(kinds.slice(-10)).toEqual(['question', 'observation', 'plan', 'query', 'observation', 'observation', 'observation', 'simulation', 'observation', 'decision']);
    await decision.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'pearl-03-rerun');
    expect(app.pageErrors).toEqual([]);
  });

  it('runs a program step by step: the run waits before it runs, the analyst edits it, and the edit is the analyst’s', async () => {
    const programs = app.page.getByTestId('program-cell');
    // The editor completes the library's actions (with their signatures); Undo my edits puts the program back.
    const second = programs.first();
    await second.getByTestId('program-editor').click();
    await app.page.keyboard.press('ControlOrMeta+End');
    await app.page.keyboard.press('Enter');
    await app.page.keyboard.type('2. out2 = ARG');
    await app.page.keyboard.press('Control+Space');
    const suggestions = app.page.locator('.suggest-widget.visible');
    await expect.poll(() => suggestions.innerText()).toContain('ARGMAX');
    await app.page.keyboard.press('Escape');
    await second.getByTestId('program-revert').click();
    await expect.poll(() => second.getByTestId('program-verdict').innerText()).toBe('the parser accepts it');
    await second.getByTestId('program-run-step').click();
    const review = app.page.getByTestId('review-panel');
    await review.waitFor({ timeout: 20_000 });
    expect(await review.locator('.review-title').innerText()).toMatch(/^Review the Pearl program before it runs/);
    const plan = review.getByLabel('Proposed plan');
    expect(await plan.inputValue()).toBe('out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node');
    await plan.fill('out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node\nout2 = ARGMAX(out1, "SWE profit on baltic_sea") : the node for the merchant');
    await screenshot(app.page, 'pearl-04-step-review');
    await review.getByTestId('review-approve').click();
    // The query of out1 waits for review in turn.
    await expect.poll(async () => `${(await app.page.getByTestId('review-dock').innerText()).replace(/\s+/g, ' ')} ${model().failures.join(' ')}`, { timeout: 20_000 }).toMatch(/FROM flow WHERE dest/);
    await app.page.getByTestId('review-approve').click();
    await expect.poll(async () => (await app.page.getByTestId('decision').count()) === 3 && (await app.page.getByTestId('run-status').innerText()), { timeout: 30_000 }).toBe('Decided');
    model().verify();
    const edited = programs.last();
    expect(await edited.innerText()).toContain('by the analyst');
    expect((await edited.locator('.view-lines').innerText()).replaceAll('\u00a0', ' ')).toContain('2. out2 = ARGMAX(out1, "SWE profit on baltic_sea") : the node for the merchant');
    expect(await app.page.getByTestId('decision').last().locator('.decision-value').innerText()).toBe('krakow');
    expect(app.pageErrors).toEqual([]);
  });

  it('shows the program cells in the dark theme with readable colours, and passes the axe audit there', async () => {
    // The app's Content-Security-Policy refuses injected scripts; this page bypasses it for axe-core.
    const page = await app.browser.newPage({ bypassCSP: true, colorScheme: 'dark', viewport: { width: 1400, height: 1000 } });
    try {
      await page.goto(app.server.url);
      const programs = page.getByTestId('program-cell');
      // The model's two attempts (one cell), the analyst's fix, and the step-through run's program before and after the edit.
      await expect.poll(() => programs.count(), { timeout: 20_000 }).toBe(4);
      // The attempts open, so their refusal reasons are checked for contrast and by axe too.
      await programs.first().getByTestId('program-attempts').locator('summary').click();
      expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { dataset: Record<string, string> } } }).document.documentElement.dataset['theme'])).toBe('dark');
      // Every verdict, every parser error and each cell's heading: text on the cell's dark background, at least 4.5:1.
      const shown = [
        ...(await programs.getByTestId('program-verdict').all()),
        ...(await programs.locator('.program-errors').all()),
        ...(await programs.locator('.program-attempt-heading .program-verdict').all()),
        ...(await programs.locator('.program-heading').all()),
      ];
      const verdicts = await programs.getByTestId('program-verdict').allInnerTexts();
      expect(verdicts).toContain('the parser accepts it');
      expect(await programs.locator('.program-attempt-heading .program-verdict').allInnerTexts()).toEqual(['refused (1 error)', 'accepted']);
      for (const element of shown) {
        const colours = await shownColours(element);
        expect(colours.ratio, `${await element.innerText()}: ${colours.color} on ${colours.background}`).toBeGreaterThanOrEqual(4.5);
        expect(isDarkColour(colours.background), `a dark background behind the program cell, not ${colours.background}`).toBe(true);
      }
      // Every editor in the dark theme, the program editors' and the query cells' below them alike (Monaco's theme is global: one editor made in the light theme turned them all light).
      const editorBackgrounds = await page.locator('.monaco-editor .monaco-editor-background').evaluateAll((elements) => elements.map((element) => (globalThis as unknown as { getComputedStyle(target: unknown): { backgroundColor: string } }).getComputedStyle(element).backgroundColor));
      expect(editorBackgrounds.length).toBeGreaterThan(4);
      expect(new Set(editorBackgrounds)).toEqual(new Set(['rgb(26, 31, 43)']));
      await programs.first().scrollIntoViewIfNeeded();
      await screenshot(page, 'pearl-05-dark');
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
