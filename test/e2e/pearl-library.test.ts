import { describe, expect, it } from 'vitest';
import { configureScriptedModel, openRunComposer, screenshot, useAppWithScriptedModel } from '../support/browser';
import type { ScriptStep } from '../support/scripted-openai/script';

const planned =
  'New actions:\n- HOME_SHARE(nodes, country) : The node among these where the country gains most trade power.\n\n1. out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node\n2. out2 = HOME_SHARE(out1, "SWE") : the node where SWE gains most';

const refinedProgram = 'New actions:\n- None\n\n1. out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node';

const call = (name: string, args: Record<string, string>): ScriptStep => ({ expectTools: [name], toolCalls: [{ name, arguments: args }] });

const script: ScriptStep[] = [
  // "Test connection": one tiny completion, a tool-calling probe, then a JSON-schema probe.
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
  // The run plans with the edited library: the planner is shown the analyst's definition, not COMPARE.
  {
    ...call('program', { program: planned }),
    expect: (request) => {
      const system = JSON.stringify(request.chat.messages[0]);
      return system.includes('the trade nodes linked to a node, in or out') && !system.includes('COMPARE(') ? undefined : 'the planner was not shown the edited library';
    },
  },
  call('query', { query: "SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }),
  call('output', { output: 'krakow 0.56, novgorod 0.38' }),
  { ...call('output', { output: 'krakow' }), expectLastMessageContains: 'HOME_SHARE(nodes, country) : The node among these' },
  // Re-running out2: out1 keeps its output (no query); only out2 asks again, now as the library's HOME_SHARE.
  { ...call('output', { output: 'krakow' }), expectLastMessageContains: '(the output of out1)\nkrakow 0.56, novgorod 0.38' },
  // Mining from the past questions: the one question asked (three runs, one text), then its rules' formula terms.
  { content: 'New actions:\n- FEEDER_SHARE(DB, node, country) : The share of the value flowing into a node that a country steers.\n\n1. out1 = FEEDER_SHARE(DB, "baltic_sea", "SWE") : the share', expectLastMessageContains: 'Our home node is "baltic_sea"' },
  { content: 'New actions:\n- TRADE_POWER_SHARE(DB, node, country) : A country\'s share of the trading power on a node.\n\n1. out1 = TRADE_POWER_SHARE(DB, "baltic_sea", "SWE") : TPR', expectLastMessageContains: 'every quantity these business rules define' },
  // Refining the accepted library's demonstrations on that question: right on the first try.
  call('program', { program: refinedProgram }),
  call('query', { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }),
  call('output', { output: 'krakow' }),
];

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1400, height: 1000 } });

describe('a Pearl action library edited in the app', () => {
  it('configures the scripted model', async () => {
    await app.page.goto(app.server.url);
    await configureScriptedModel(app.page, model());
  });

  it('edits the seed into a library of its own, saves versions, plans with it, keeps a program’s new action and counts usage', async () => {
    const composer = await openRunComposer(app.page, { technique: 'pearl' });
    await composer.getByTestId('view-action-library').click();
    await composer.getByTestId('edit-action-library').click();
    const editor = composer.getByTestId('action-library-editor');
    // A bad name is refused with the reader's own message, and nothing is saved.
    await editor.getByLabel('Action name').first().fill('list candidates');
    await editor.getByTestId('save-action-library').click();
    await expect.poll(() => editor.getByTestId('action-library-error').innerText()).toContain('an action name is upper case letters, digits and underscores');
    await editor.getByLabel('Action name').first().fill('LIST_CANDIDATES');
    await editor.getByLabel('Definition of NEIGHBORS').fill('the trade nodes linked to a node, in or out');
    await editor.getByLabel('Remove COMPARE').click();
    await editor.getByLabel('What changed').fill('clearer NEIGHBORS, no COMPARE');
    await screenshot(app.page, 'pearl-library-00-edit');
    await editor.getByTestId('save-action-library').click();
    const view = composer.getByTestId('action-library-view');
    await expect.poll(() => view.innerText()).toContain('Seed library (edited) · version 1');
    expect(await view.innerText()).not.toContain('COMPARE(');
    expect(await composer.getByLabel('Action library', { exact: true }).inputValue()).toMatch(/^lib-/);

    // A second edit is version 2; version 1 stays readable.
    await composer.getByTestId('edit-action-library').click();
    await editor.getByTestId('add-library-action').click();
    await editor.getByLabel('Action name').last().fill('TOP_FEEDER');
    await editor.getByLabel('Parameters of TOP_FEEDER').fill('DB, node');
    await editor.getByLabel('Definition of TOP_FEEDER').fill('The node that sends most value into a node.');
    await editor.getByTestId('save-action-library').click();
    await expect.poll(() => view.innerText()).toContain('version 2');
    expect(await view.innerText()).toContain('TOP_FEEDER(DB, node)');
    await composer.getByLabel('Library version').selectOption('1');
    await expect.poll(() => view.innerText()).toContain('version 1');
    expect(await view.innerText()).not.toContain('TOP_FEEDER');
    expect(await composer.getByTestId('edit-action-library').isDisabled()).toBe(true);
    await composer.getByLabel('Library version').selectOption('2');
    await expect.poll(() => view.innerText()).toContain('version 2');
    await screenshot(app.page, 'pearl-library-01-versions');

    await composer.getByTestId('start-run').click();
    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 30_000 }).toBe('Decided');
    expect(model().failures).toEqual([]);

    // The program defined HOME_SHARE for itself; the analyst keeps it in the run's library (version 3).
    const program = app.page.getByTestId('program-cell').first();
    const promote = program.getByTestId('program-promote');
    expect(await promote.innerText()).toBe('Keep HOME_SHARE in the library');
    await promote.click();
    await expect.poll(() => program.getByTestId('program-promoted').innerText()).toBe('HOME_SHARE kept in Seed library (edited), now version 3.');
    await program.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'pearl-library-02-promoted');

    // The library now holds HOME_SHARE, and counts the run's use of NEIGHBORS.
    await openRunComposer(app.page, { technique: 'pearl' });
    const libraries = composer.getByLabel('Action library', { exact: true });
    const edited = await libraries.locator('option', { hasText: 'Seed library (edited)' }).getAttribute('value');
    await libraries.selectOption(edited ?? '');
    await composer.getByTestId('view-action-library').click();
    await expect.poll(() => view.innerText()).toContain('version 3');
    const rows = await view.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => (td as { textContent: string | null }).textContent ?? '')));
    expect(rows.find((row) => row[0]?.startsWith('NEIGHBORS('))?.[2]).toBe('1');
    expect(rows.find((row) => row[0]?.startsWith('HOME_SHARE('))).toEqual(['HOME_SHARE(nodes, country)', 'The node among these where the country gains most trade power.', '0', expect.stringMatching(/^analyst: promoted from run-/)]);
    await screenshot(app.page, 'pearl-library-03-usage');
    expect(app.pageErrors).toEqual([]);
  });

  it('re-runs one step from its cell: the step before it keeps its output, the step and the decision come again', async () => {
    await app.page.getByTestId('run-composer').getByRole('button', { name: 'Close', exact: true }).click();
    const rerun = app.page.getByTestId('rerun-step').filter({ hasText: 'Re-run out2' });
    await expect.poll(() => rerun.count()).toBe(1);
    await rerun.click();
    await expect.poll(async () => (await app.page.getByTestId('decision').count()) === 2 && (await app.page.getByTestId('run-status').innerText()), { timeout: 30_000 }).toBe('Decided');
    expect(model().failures).toEqual([]);
    const cells = app.page.getByTestId('cell');
    const texts = await cells.evaluateAll((all) => all.map((cell) => `${cell.getAttribute('data-cell-kind')}: ${(cell as { textContent: string | null }).textContent ?? ''}`));
    const last = texts.slice(texts.lastIndexOf(texts.filter((text) => text.startsWith('question:')).at(-1) ?? ''));
    expect(last.some((text) => text.includes('[kept from run-') && text.includes('out1 = NEIGHBORS'))).toBe(true);
    expect(last.filter((text) => text.startsWith('query:'))).toEqual([]);
    expect(await app.page.getByTestId('decision').last().locator('.decision-value').innerText()).toBe('krakow');
    await app.page.getByTestId('decision').last().scrollIntoViewIfNeeded();
    await screenshot(app.page, 'pearl-library-04-rerun');
    expect(app.pageErrors).toEqual([]);
  });

  it('mines a library from the questions asked so far; the analyst reviews the rounds and accepts it', async () => {
    const composer = await openRunComposer(app.page, { technique: 'pearl' });
    await composer.getByTestId('mine-action-library').click();
    const review = composer.getByTestId('mined-review');
    await expect.poll(() => review.innerText(), { timeout: 20_000 }).toContain('round 0 (proposals) 8 → 10 actions');
    expect(await review.innerText()).toContain('mined from 1 past question and their rules');
    const view = composer.getByTestId('action-library-view');
    expect(await view.innerText()).toContain('TRADE_POWER_SHARE(DB, node, country)');
    expect(await view.innerText()).toContain('mined: rules-1');
    // Waiting for review, it cannot be chosen for a run.
    const mined = composer.getByLabel('Action library', { exact: true }).locator('option', { hasText: 'waiting for review' });
    expect(await mined.evaluate((option) => (option as { disabled: boolean }).disabled)).toBe(true);
    await screenshot(app.page, 'pearl-library-05-mined');
    await review.getByTestId('accept-mined').click();
    await expect.poll(() => review.count()).toBe(0);
    expect(await mined.count()).toBe(0);
    expect(await composer.getByLabel('Action library', { exact: true }).locator('option:checked').innerText()).toMatch(/^Mined .* 10 actions$/);
    // Every mining turn used as scripted; the 3 left are the next test's refinement.
    expect(model().failures).toEqual([]);
    expect(model().remainingTurns()).toBe(3);
    expect(app.pageErrors).toEqual([]);
  });
  it('refines the chosen library\'s demonstrations on the questions asked so far and saves them as its next version', async () => {
    const composer = await openRunComposer(app.page, { technique: 'pearl' });
    await composer.getByTestId('refine-action-library').click();
    const outcome = composer.getByTestId('refine-outcome');
    await expect.poll(() => outcome.count(), { timeout: 20_000 }).toBe(1);
    expect(await outcome.innerText()).toMatch(/^1 of 1 demonstrations kept as version 2 of Mined \d{4}-\d{2}-\d{2}\.$/);
    await screenshot(app.page, 'pearl-library-06-refined');
    model().verify();
    expect(app.pageErrors).toEqual([]);
  });
});
