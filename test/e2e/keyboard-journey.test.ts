import { readFileSync } from 'node:fs';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runPaletteCommand, screenshot, useAppWithScriptedModel } from '../support/browser';
import type { ScriptStep } from '../support/scripted-openai/script';

/**
 * Issue 15's Done-when "a keyboard-only E2E journey completes": from an empty page to an
 * exported, signed-off report without the mouse. Every step is a key press (Tab, arrows,
 * shortcuts, typing); nothing is clicked and no element is focused by script.
 */
const script: ScriptStep[] = [
  { expectTools: ['plan'], toolCalls: [{ name: 'plan', arguments: { steps: ['Read SWE trading power per node', 'Compare the nodes upstream of baltic_sea'] } }] },
  { toolCalls: [{ name: 'query', arguments: { query: "SELECT trade_node, base_trading_power FROM node_country WHERE country_name = 'SWE'" } }] },
  {
    expectToolResultContains: ['The analyst replaced your query', 'krakow | 4.777', 'Analyst note: Only krakow matters here.'],
    toolCalls: [{ name: 'query', arguments: { query: "SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY flow DESC" } }],
  },
  { expectToolResultContains: 'krakow', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'krakow sends the most value into baltic_sea.' } }] },
];

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1440, height: 900 } });

const page = () => app.page;
const press = (keys: string): Promise<void> => page().keyboard.press(keys);
const type = (text: string): Promise<void> => page().keyboard.type(text);

/** What holds the focus: its accessible name (aria-label, else its text), tag and test id. */
const focused = () =>
  page()
    .locator(':focus')
    .evaluate((element) => ({
      name: element.getAttribute('aria-label') ?? element.closest('label')?.textContent?.trim() ?? element.textContent?.trim() ?? '',
      tag: element.tagName,
      testId: element.getAttribute('data-testid') ?? '',
      inEditor: element.closest('.monaco-editor') !== null,
    }))
    .catch(() => ({ name: '', tag: 'BODY', testId: '', inEditor: false }));

/** Tabs forward (at most `limit` times) until the focused control matches, as a keyboard user would. */
async function tabTo(matches: (target: Awaited<ReturnType<typeof focused>>) => boolean, what: string, limit = 40, key = 'Tab'): Promise<void> {
  for (let step = 0; step < limit; step++) {
    if (matches(await focused())) return;
    await press(key);
  }
  throw new Error(`Tab never reached ${what}; the focus is on ${JSON.stringify(await focused())}`);
}
const named = (name: string) => (target: { name: string }) => target.name === name;

/** Moves a focused drop-down down to the option, with the arrow key. */
async function chooseOption(select: Locator, text: string): Promise<void> {
  for (let step = 0; step < 10 && (await select.locator('option:checked').innerText()) !== text; step++) await press('ArrowDown');
  expect(await select.locator('option:checked').innerText()).toBe(text);
}

describe('a keyboard-only journey', () => {
  it('sets up the model from the palette', async () => {
    await page().goto(app.server.url);
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Welcome to Decision Workbench');
    await runPaletteCommand(page(), 'Set up the model');
    const dialog = page().getByTestId('model-settings');
    await dialog.waitFor();
    await tabTo(named('Base URL'), 'the Base URL field');
    await press('ControlOrMeta+A');
    await type(model().baseUrl);
    await tabTo(named('Model'), 'the Model field');
    await type('scripted-model');
    await tabTo(named('Tool calling'), 'the tool-calling choice');
    await press('ArrowDown'); // Auto-detect → Native tool calls
    expect(await dialog.getByLabel('Tool calling').inputValue()).toBe('tools');
    await screenshot(page(), 'journey-01-model-settings');
    await tabTo((target) => target.testId === 'save-model', 'Save');
    await press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page().getByTestId('model-summary').innerText()).toContain('scripted-model');
  });

  it('creates a notebook, writes and runs a query on the demo data, and adds a note', async () => {
    await press('Control+Alt+N');
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toMatch(/^Untitled/);
    await press('B');
    const cells = page().getByTestId('cell');
    await expect.poll(() => cells.count()).toBe(1);
    await expect.poll(async () => (await focused()).inEditor).toBe(true);
    // The new workspace has two demo databases; the query is for the Locating one. Esc hands the
    // keys to the cell, Tab reaches its connection, arrows choose, Esc and Enter go back to the editor.
    await press('Escape');
    await press('Tab');
    expect((await focused()).testId).toBe('cell-connection');
    await chooseOption(cells.first().getByTestId('cell-connection'), 'DQA Locating 1445 (demo)');
    await press('Escape');
    await press('Enter');
    await expect.poll(async () => (await focused()).inEditor).toBe(true);
    await type("SELECT trade_node, local_value FROM trade_node WHERE trade_node = 'krakow'");
    await press('Escape');
    await press('Shift+Enter');
    await expect.poll(() => cells.first().getByTestId('result-summary').textContent(), { timeout: 20_000 }).toMatch(/^1 row · /);
    await expect.poll(() => cells.count()).toBe(2);
    await press('Escape');
    await press('M');
    await expect.poll(() => cells.nth(1).getAttribute('data-cell-kind')).toBe('note');
    await type('krakow holds 4.777 of local value.');
    await press('Shift+Enter');
    await expect.poll(() => cells.nth(1).locator('.note-view').innerText()).toContain('krakow holds');
    // The title is renamed from the keyboard too: back to it with Shift+Tab, Enter, type, Enter.
    await tabTo((target) => target.testId === 'notebook-title', 'the notebook title', 40, 'Shift+Tab');
    await press('Enter');
    await expect.poll(async () => (await focused()).name).toBe('Notebook title');
    await press('ControlOrMeta+A');
    await type('Keyboard journey');
    await press('Enter');
    await expect.poll(() => page().getByTestId('notebook-title').textContent()).toBe('Keyboard journey');
    await screenshot(page(), 'journey-02-query-and-note');
  });

  it('starts a step-through run, edits one query with a note, approves the next', async () => {
    await runPaletteCommand(page(), 'Ask the model to decide');
    const composer = page().getByTestId('run-composer');
    await composer.waitFor();
    await expect.poll(async () => (await focused()).name).toBe('Decision question');
    await type('Where should SWE allocate its merchant to maximise profit at baltic_sea?');
    await tabTo(named('Run connection'), 'the data choice');
    await chooseOption(composer.getByLabel('Run connection'), 'DQA Locating 1445 (demo)');
    await tabTo((target) => target.tag === 'INPUT' && target.name.startsWith('Automatic'), 'the mode choice');
    await press('ArrowDown');
    expect(await composer.getByLabel('Step-through').isChecked()).toBe(true);
    await screenshot(page(), 'journey-03-composer');
    await press('Control+Enter');

    const review = page().getByTestId('review-panel');
    await review.waitFor({ timeout: 20_000 });
    await expect.poll(() => review.innerText()).toContain('The model wants to run this query');
    // The proposed query's editor has the keys: replace it, leave with Esc, write a note, Enter.
    await expect.poll(async () => (await focused()).inEditor).toBe(true);
    await press('ControlOrMeta+A');
    await type("SELECT trade_node, local_value FROM trade_node WHERE trade_node = 'krakow'");
    await press('Escape'); // the completion list
    await press('Escape'); // the editor
    await expect.poll(async () => (await focused()).name).toBe('Note for the model');
    await type('Only krakow matters here.');
    expect(await review.getByTestId('review-approve').innerText()).toBe('Run my version');
    await screenshot(page(), 'journey-04-review-edit');
    await press('Enter');
    // The next proposal: approved from its editor with Ctrl+Enter.
    // (Monaco shows spaces as no-break spaces and wraps long lines in the docked panel.)
    await expect
      .poll(async () => `${(await page().getByTestId('review-dock').innerText()).replace(/\s+/g, ' ')} ${model().failures.join(' ')}`, { timeout: 20_000 })
      .toMatch(/FROM flow WHERE dest/);
    await expect.poll(async () => (await focused()).inEditor).toBe(true);
    await press('Control+Enter');
    await expect.poll(() => page().getByTestId('run-status').innerText(), { timeout: 20_000 }).toBe('Decided');
    model().verify();
    expect(await page().getByTestId('decision').locator('.decision-value').innerText()).toBe('krakow');
    await runPaletteCommand(page(), 'Show the run history');
    await expect.poll(() => page().getByTestId('run-history').getByTestId('run-history-row').count()).toBe(1);
    expect(await page().getByTestId('run-history-row').innerText()).toContain('krakow');
    await screenshot(page(), 'journey-05-decided');
  });

  it('signs off and exports the report, which the browser downloads with the analyst’s inputs', async () => {
    await runPaletteCommand(page(), 'Export report');
    const dialog = page().getByTestId('export-dialog');
    await dialog.waitFor();
    await tabTo((target) => target.tag === 'INPUT' && target.name === 'HTML', 'the format choice');
    await press('ArrowDown'); // PDF
    await press('ArrowDown'); // Markdown
    expect(await dialog.getByLabel('Markdown').isChecked()).toBe(true);
    await tabTo(named('Signed off by'), 'the sign-off name');
    await type('Kim Keyboard');
    await press('Tab');
    expect((await focused()).name).toBe('Sign-off comment');
    await type('Checked krakow by hand.');
    await screenshot(page(), 'journey-06-export');
    const download = page().waitForEvent('download', { timeout: 30_000 });
    await press('Control+Enter');
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.md$/);
    const path = await file.path();
    const markdown = readFileSync(path, 'utf8');
    expect(markdown).toContain('Kim Keyboard');
    expect(markdown).toContain('Checked krakow by hand.');
    expect(markdown).toContain('edited the query');
    expect(markdown).toContain('approved the query');
    expect(markdown).toContain('Only krakow matters here.');
    expect(markdown).toMatch(/- SELECT trade_node, base_trading_power FROM node_country/);
    expect(await dialog.getByTestId('export-downloaded').innerText()).toBe(file.suggestedFilename());
    await press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(app.pageErrors).toEqual([]);
  });
});
