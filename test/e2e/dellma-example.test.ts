/**
 * The DeLLMa agriculture example opened from the app, and documents attached to a notebook:
 * the command palette builds the database of the USDA 2021 figures and opens a notebook with
 * the USDA report attached and the composer set to DeLLMa; a scripted model that prefers
 * avocado's futures makes avocado the decision, its forecast prompt holds the report (cut,
 * with a note), and the cells name the document. Attaching refuses a binary file with the
 * reason, and the attachments survive a reload.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentLimits } from '../../src-main/contract/documents';
import { repoRoot } from '../support/fixtures';
import { seriousViolations } from '../support/axe';
import { configureScriptedModel, screenshot, useAppWithScriptedModel } from '../support/browser';
import { contrastRatio, shownColours } from '../support/contrast';
import { messageText, type ReceivedChatRequest, type ScriptedTurn } from '../support/scripted-openai';
import type { ScriptStep } from '../support/scripted-openai/script';
import { forecastAnswer, isForecast, rankingReadingFutures } from '../integration/dellma/scripted-dellma-model';

const report = readFileSync(join(repoRoot, 'fixtures', 'dellma', 'agriculture', 'reports', 'fruit-sept-2021.txt'), 'utf8');
const userText = (request: ReceivedChatRequest): string => messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });

/** Writes the context query, forecasts every unknown, and ranks avocado's scenarios first. */
const prefersAvocado = (request: ReceivedChatRequest): ScriptedTurn => {
  if (userText(request).includes('Write one query that retrieves')) return { label: 'context query', content: '```sql\nSELECT commodity, yield_per_acre, yield_unit, price, price_unit FROM ca_crop_stats_2021\n```' };
  if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
  const rank = rankingReadingFutures(request, 'avocado');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'Every future where I plant avocado beats the others.' }) };
};

const script: ScriptStep[] = [
  // "Test connection": one tiny completion, a tool-calling probe, then a JSON-schema probe.
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
  ...Array.from({ length: 30 }, () => prefersAvocado),
];

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1400, height: 950 } });

describe('the DeLLMa agriculture example in the app', () => {
  it('sets up the model', async () => {
    await app.page.goto(app.server.url);
    await configureScriptedModel(app.page, model());
  });

  it('opens from the command palette: the database, the attached report, the question with DeLLMa preselected', async () => {
    await app.page.getByTestId('model-settings').waitFor({ state: 'detached' });
    await app.page.getByTestId('notebook-title').waitFor();
    await app.page.keyboard.press('Control+K');
    const palette = app.page.getByTestId('command-palette');
    await palette.waitFor();
    await app.page.keyboard.type('DeLLMa agriculture');
    await palette.getByTestId('palette-item').filter({ hasText: 'Open the DeLLMa agriculture example' }).click();

    await expect.poll(() => app.page.getByTestId('connection-list').innerText()).toContain('DeLLMa agriculture: California crops 2021');
    await expect.poll(() => app.page.getByTestId('notebook-title').innerText()).toBe('DeLLMa example: which fruit to plant (agriculture)');
    const documents = app.page.getByTestId('notebook-documents');
    await expect.poll(() => documents.getByTestId('attached-document').allInnerTexts()).toEqual([expect.stringContaining('fruit-sept-2021.txt')]);
    // The import outcome the analyst sees: rows, units as numbers, no malformed rows.
    await expect.poll(() => app.page.getByTestId('cell').first().innerText()).toContain('40 commodities with yield and price as numbers with their units; no malformed rows');

    // The composer opened with the example's question and DeLLMa; it says DeLLMa reads the report.
    const composer = app.page.getByTestId('run-composer');
    expect(await composer.getByLabel('Decision question').inputValue()).toContain('Options: apple; avocado; grape; grapefruit; lemon; peach; pear');
    // Every line of the question is in view (Options and Unknowns are read line by line): nothing scrolled out of the box.
    const questionBox = await composer.getByLabel('Decision question').evaluate((box) => ({ scroll: (box as unknown as { scrollHeight: number }).scrollHeight, client: (box as unknown as { clientHeight: number }).clientHeight }));
    expect(questionBox.scroll).toBeLessThanOrEqual(questionBox.client);
    expect(await composer.getByLabel('Technique').inputValue()).toBe('dellma');
    expect(await composer.getByLabel('Run connection').locator('option:checked').innerText()).toBe('DeLLMa agriculture: California crops 2021');
    expect(await composer.getByTestId('run-documents-note').innerText()).toContain('DeLLMa reads the attached document(s) into its context: fruit-sept-2021.txt');
    await composer.getByLabel('Technique').selectOption('planrag');
    expect(await composer.getByTestId('run-documents-note').innerText()).toContain('are used by DeLLMa only');
    await composer.getByLabel('Technique').selectOption('dellma');
    await screenshot(app.page, 'dellma-example-00-opened');
    // Token counts read with thousands separators, like the 1,000 beside them.
    await expect.poll(() => composer.getByTestId('dellma-estimate').innerText()).toMatch(/about \d{1,3}(,\d{3})+ prompt \+ [\d,]+ answer tokens/);
    // The start button stays on one line beside DeLLMa's long summary.
    const startBox = await composer.getByTestId('start-run').boundingBox();
    expect(startBox?.height ?? 0).toBeLessThan(2 * 18);

    // The database: the example's query of the seven fruits runs on it.
    await app.page.getByTestId('run-query').first().click();
    await expect.poll(() => app.page.getByTestId('result-summary').first().innerText()).toMatch(/^7 rows/);
    expect(await app.page.getByTestId('result-grid').first().innerText()).toContain('19,000');
  });

  it('runs DeLLMa: the forecast prompt holds the report, the cells name it, avocado is the decision', async () => {
    const composer = app.page.getByTestId('run-composer');
    await composer.getByLabel('Samples per option').fill('4');
    await composer.getByTestId('start-run').click();
    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 60_000 }).toBe('Decided');
    expect(model().failures).toEqual([]);
    expect(await app.page.getByTestId('decision').locator('.decision-value').innerText()).toBe('avocado');
    // The question cell keeps its lines: Options and Unknowns are read line by line, so they show that way.
    const questionCell = app.page.locator('.cell-question').last();
    expect(await questionCell.locator('.markdown').innerText()).toMatch(/\nOptions: apple; avocado; grape; grapefruit; lemon; peach; pear\nUnknowns: /);

    const forecastPrompt = userText(model().chatRequests().find(isForecast) as ReceivedChatRequest);
    const used = documentLimits.contextChars;
    expect(forecastPrompt).toContain(`Document "fruit-sept-2021.txt" (attached by the analyst):\n${report.slice(0, used)}\n[Document truncated: the first ${used.toLocaleString('en-US')} of ${report.length.toLocaleString('en-US')} characters are used.]`);

    const named = `fruit-sept-2021.txt (${used.toLocaleString('en-US')} of ${report.length.toLocaleString('en-US')} characters, truncated)`;
    // The context step, drawn from its typed record: the documents used, how much of each, the cut.
    const contextStep = app.page.getByTestId('dellma-context');
    expect(await contextStep.locator('.dellma-title').innerText()).toBe('DeLLMa · context for the forecast and the rankings');
    expect(await contextStep.getByTestId('context-summary').innerText()).toMatch(
      new RegExp(`^[\\d,]+ characters in all: 1 attached document \\(${used.toLocaleString('en-US')} of at most ${used.toLocaleString('en-US')} characters; 1 cut to fit, marked so in the prompt\\) and [\\d,]+ characters of query rows\\.$`),
    );
    const contextRows = (await contextStep.getByTestId('result-grid').locator('[role="row"]').allInnerTexts()).map((row) => row.split(/\s+/).join(' '));
    expect(contextRows).toEqual(['# document characters used of truncated', `1 fruit-sept-2021.txt ${used.toLocaleString('en-US')} ${report.length.toLocaleString('en-US')} yes`]);
    await contextStep.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-example-01a-context-step');
    const forecastDocuments = app.page.getByTestId('forecast-documents').first();
    expect(await forecastDocuments.innerText()).toContain(named);
    await forecastDocuments.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-example-01-forecast-names-the-report');
  });

  it('passes the full-page accessibility audit of the notebook after the run and a re-fit by hand, in light and dark', async () => {
    // A re-fit by hand [ext]: the last batch with its first scenario moved down one place.
    const batch = app.page.getByTestId('dellma-rank').last();
    await batch.scrollIntoViewIfNeeded();
    await batch.getByTestId('rank-batch-yourself').click();
    await batch.getByTestId('rank-yourself-item').first().getByRole('button', { name: /down$/ }).click();
    await batch.getByTestId('refit-submit').click();
    await expect.poll(() => app.page.getByTestId('dellma-refit-note').count(), { timeout: 20_000 }).toBe(3);

    for (const colorScheme of ['light', 'dark'] as const) {
      const audited = await app.browser.newPage({ bypassCSP: true, colorScheme, viewport: { width: 1400, height: 950 } });
      try {
        await audited.goto(app.server.url);
        await expect.poll(() => audited.getByTestId('notebook-title').innerText()).toBe('DeLLMa example: which fruit to plant (agriculture)');
        await expect.poll(() => audited.getByTestId('dellma-refit-note').count(), { timeout: 20_000 }).toBe(3);
        await audited.getByTestId('expected-chart').last().scrollIntoViewIfNeeded();
        await screenshot(audited, `dellma-example-01b-audited-${colorScheme}`);
        expect(await seriousViolations(audited), colorScheme).toEqual([]);
        // The intervals' bars are drawn in the theme's text colour: visible (3:1, WCAG 1.4.11) on light and dark.
        const chart = audited.getByTestId('expected-chart').last();
        const stroke = await chart.locator('.recharts-errorBar line').first().evaluate((line) => (globalThis as unknown as { getComputedStyle(node: unknown): { stroke: string } }).getComputedStyle(line).stroke);
        expect(contrastRatio(stroke, (await shownColours(chart)).background), `${colorScheme}: error bars ${stroke}`).toBeGreaterThanOrEqual(3);
      } finally {
        await audited.close();
      }
    }
  });

  it('attaches a Markdown note, refuses a binary file with the reason, and keeps the documents across a reload', async () => {
    const input = app.page.getByTestId('document-file');
    await input.setInputFiles({ name: 'scan.pdf', mimeType: 'application/pdf', buffer: Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0x01]) });
    await expect.poll(() => app.page.getByTestId('document-error').innerText()).toContain('"scan.pdf" looks binary');
    // Readable on the page, not in the sidebar's light red.
    expect((await shownColours(app.page.getByTestId('document-error'))).ratio).toBeGreaterThanOrEqual(4.5);
    await input.setInputFiles({ name: 'frost.md', mimeType: 'text/markdown', buffer: Buffer.from('# Frost\n<b>Late frost</b> in March hurt the almond bloom.\n') });
    const documents = app.page.getByTestId('attached-document');
    await expect.poll(() => documents.allInnerTexts()).toEqual([expect.stringContaining('fruit-sept-2021.txt'), expect.stringContaining('frost.md')]);
    expect(await app.page.getByTestId('document-error').count()).toBe(0);
    await app.page.getByTestId('notebook-documents').scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-example-02-documents');

    await app.page.reload();
    await expect.poll(() => app.page.getByTestId('attached-document').allInnerTexts()).toEqual([expect.stringContaining('fruit-sept-2021.txt'), expect.stringContaining('frost.md')]);
    await app.page.getByLabel('Remove document frost.md').click();
    await expect.poll(() => app.page.getByTestId('attached-document').allInnerTexts()).toEqual([expect.stringContaining('fruit-sept-2021.txt')]);

    // Nothing lost: the notice's Undo puts it back…
    const notice = app.page.getByTestId('toast').filter({ hasText: 'frost.md removed — in the trash; Ctrl+Z restores it' });
    await screenshot(app.page, 'dellma-example-02b-document-removed');
    await notice.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => app.page.getByTestId('attached-document').allInnerTexts()).toEqual([expect.stringContaining('fruit-sept-2021.txt'), expect.stringContaining('frost.md')]);
    // …and so does the trash, where a removed document waits with its notebook's name.
    await app.page.getByLabel('Remove document frost.md').click();
    await expect.poll(() => app.page.getByTestId('attached-document').count()).toBe(1);
    await app.page.getByTestId('open-trash').click();
    const trashed = app.page.getByTestId('trash-item').and(app.page.locator('[data-kind="document"]'));
    await expect.poll(() => trashed.allInnerTexts()).toEqual([expect.stringMatching(/^frost\.md\s+attached to “DeLLMa example: which fruit to plant \(agriculture\)” · 58 characters · removed /)]);
    await screenshot(app.page, 'dellma-example-02c-document-in-trash');
    await trashed.getByRole('button', { name: 'Restore document frost.md' }).click();
    await expect.poll(() => trashed.count()).toBe(0);
    await app.page.getByTestId('open-trash').click();
    await expect.poll(() => app.page.getByTestId('attached-document').allInnerTexts()).toEqual([expect.stringContaining('fruit-sept-2021.txt'), expect.stringContaining('frost.md')]);
    expect(app.pageErrors).toEqual([]);
  });

  it('passes the accessibility audit with the documents row and the composer’s note', async () => {
    const audited = await app.browser.newPage({ bypassCSP: true, viewport: { width: 1400, height: 950 } });
    try {
      // A notebook of its own, so the audit sees the documents row rather than the run's cells.
      await audited.goto(app.server.url);
      await audited.getByTestId('new-notebook').click();
      await expect.poll(() => audited.getByTestId('notebook-title').innerText()).toMatch(/^Untitled/);
      await audited.getByTestId('document-file').setInputFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Notes\nDemand for pears rises.') });
      await expect.poll(() => audited.getByTestId('attached-document').count()).toBe(1);
      await audited.getByTestId('new-run').click();
      await audited.getByTestId('run-composer').getByLabel('Technique').selectOption('dellma');
      await audited.getByTestId('run-documents-note').waitFor();
      expect(await seriousViolations(audited)).toEqual([]);

      // The cost estimate follows the documents while the composer stays open: a long one attached raises it, removed brings it back.
      const estimate = audited.getByTestId('dellma-estimate');
      const promptTokens = async (): Promise<number> => Number(/about ([\d,]+) prompt/.exec(await estimate.innerText())?.[1]?.replace(/,/g, '') ?? Number.NaN);
      await expect.poll(promptTokens).toBeGreaterThan(0);
      const before = await promptTokens();
      await audited.getByTestId('document-file').setInputFiles({ name: 'outlook.txt', mimeType: 'text/plain', buffer: Buffer.from('Pear demand rises. '.repeat(300)) });
      await expect.poll(() => audited.getByTestId('attached-document').count()).toBe(2);
      await expect.poll(promptTokens).toBeGreaterThan(before);
      await audited.getByLabel('Remove document outlook.txt').click();
      await expect.poll(() => audited.getByTestId('attached-document').count()).toBe(1);
      await expect.poll(promptTokens).toBe(before);
    } finally {
      await audited.close();
    }
  });
});
