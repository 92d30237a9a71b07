/**
 * [ext] DeLLMa's exact outcomes in the app: a SQLite file of sales per region, a question whose
 * what-if lines map the unknown "demand" (low, high) and the options (open the region's store)
 * to changes, and a scripted model that always ranks north first. The run decides north by
 * expected utility; the "exact outcomes" cell beside it computes each future × option in the
 * what-if sandbox, finds south best (2520/9 against 2100/9) and says it disagrees. The
 * database file is byte-identical afterwards.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { configureScriptedModel, screenshot, useAppWithScriptedModel } from '../support/browser';
import { messageText, type ReceivedChatRequest, type ScriptedTurn } from '../support/scripted-openai';
import type { ScriptStep } from '../support/scripted-openai/script';
import { useSuiteTempDir } from '../support/temp';
import { rankingPreferring } from '../integration/dellma/scripted-dellma-model';

const dataDir = useSuiteTempDir();
let databasePath = '';
let originalBytes = Buffer.alloc(0);

function salesDatabase(directory: string): string {
  const path = join(directory, 'sales.sqlite');
  const database = new Database(path);
  database.exec(`
    CREATE TABLE sales (region TEXT PRIMARY KEY, qty REAL NOT NULL, price REAL NOT NULL);
    CREATE TABLE store (region TEXT PRIMARY KEY, open INTEGER NOT NULL);
    INSERT INTO sales VALUES ('north', 100, 2), ('south', 80, 3);
    INSERT INTO store VALUES ('north', 0), ('south', 0);
  `);
  database.close();
  return path;
}

const userText = (request: ReceivedChatRequest): string => messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });

/** The context query; the forecast with the analyst's demand values (likely, somewhat likely); north first in every ranking. */
const prefersNorth = (request: ReceivedChatRequest): ScriptedTurn => {
  const text = userText(request);
  if (text.includes('Write one query that retrieves')) return { label: 'context query', content: '```sql\nSELECT region, qty, price FROM sales\n```' };
  if (text.includes('give exactly 3 distinct outcomes')) {
    const demand = /- demand: (.*)\n/.exec(text)?.[1]?.split('; ') ?? [];
    return {
      label: 'forecast',
      content: JSON.stringify({
        factors: [
          { name: 'demand', values: demand.map((value, index) => ({ value, likelihood: index === 0 ? 'likely' : 'somewhat likely' })) },
          ...['north', 'south'].map((option) => ({ name: `how ${option} turns out`, values: ['worse', 'same', 'better'].map((value) => ({ value, likelihood: 'likely' })) })),
        ],
      }),
    };
  }
  const rank = rankingPreferring(request, 'north');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'North first.' }) };
};

const script: ScriptStep[] = [
  // "Test connection": one tiny completion, a tool-calling probe, then a JSON-schema probe.
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
  ...Array.from({ length: 10 }, () => prefersNorth),
];

const question = [
  'Which region should get the new store?',
  'Options: north; south',
  'Unknowns: demand',
  'What-if demand = low: UPDATE sales SET qty = qty * 0.5',
  'What-if demand = high: UPDATE sales SET qty = qty * 2',
  'What-if option: UPDATE store SET open = 1 WHERE region = :candidate',
  'What-if objective: SELECT coalesce(sum(s.qty * s.price), 0) FROM sales s JOIN store t ON t.region = s.region WHERE t.open = 1',
].join('\n');

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1400, height: 950 } });

describe('DeLLMa exact outcomes in the app', () => {
  it('shows the exactly-computed outcomes beside the decision, never in it, and leaves the file untouched', async () => {
    databasePath = salesDatabase(dataDir());
    originalBytes = readFileSync(databasePath);
    await app.page.goto(app.server.url);
    await configureScriptedModel(app.page, model());
    await app.page.getByTestId('add-connection').click();
    const connection = app.page.getByTestId('connection-dialog');
    await connection.getByTestId('kind-sqlite').click();
    await connection.getByLabel('Path').fill(databasePath);
    await connection.getByLabel('Connection name').fill('Sales');
    await connection.getByTestId('save-connection').click();
    await expect.poll(() => app.page.getByTestId('connection-list').innerText()).toContain('Sales');

    await app.page.getByTestId('new-run').click();
    const composer = app.page.getByTestId('run-composer');
    await composer.getByLabel('Decision question').fill(question);
    await composer.getByLabel('Run connection').selectOption({ label: 'Sales' });
    await composer.getByLabel('Technique').selectOption('dellma');
    await composer.getByTestId('start-run').click();
    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 30_000 }).toBe('Decided');
    expect(model().failures).toEqual([]);

    // DeLLMa's decision, by expected utility: north (the scripted model prefers it).
    expect(await app.page.getByTestId('dellma-expected').getByTestId('dellma-decision').innerText()).toBe('north');
    // The forecast says whose values these are.
    expect(await app.page.getByTestId('forecast-mapped').innerText()).toBe('[ext] The values of “demand” are the analyst\'s, each mapped to a what-if change; the model gave only their likelihoods.');

    const exact = app.page.getByTestId('dellma-exact');
    await expect.poll(() => exact.count()).toBe(1);
    expect(await exact.locator('.dellma-title').innerText()).toBe('DeLLMa · exact outcomes in the what-if sandbox [ext]');
    expect(await exact.getByTestId('exact-verdict').innerText()).toBe("Exactly-computed best by the probability-weighted expected objective: south, which disagrees with DeLLMa's decision (north).");
    // 2100/9 and 2520/9, each over the whole forecast; then the four futures × options.
    const text = await exact.innerText();
    expect(text).toMatch(/north\s+233\.3/);
    expect(text).toMatch(/south\s+280/);
    for (const row of [/demand = low\s+0\.5555\d*\s+\d+\s+north\s+100\s+computed/, /demand = high\s+0\.4444\d*\s+\d+\s+south\s+480\s+computed/]) expect(text).toMatch(row);
    // Its own cell, after the expected utility and apart from it.
    const order = await app.page.locator('[data-testid^="dellma-"].dellma').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-testid')));
    expect(order.indexOf('dellma-exact')).toBe(order.indexOf('dellma-expected') + 1);
    await exact.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-exact-01-cell');
    // The mapping as the run read it, and the sandbox's proof that the source is unchanged.
    await exact.getByText('The mapping and the sandbox').click();
    const details = await exact.locator('details').innerText();
    expect(details).toContain('demand = low: UPDATE sales SET qty = qty * 0.5');
    expect(details).toContain('option south: UPDATE store SET open = 1 WHERE region = :candidate');
    expect(details).toMatch(/4 of at most 200 sandbox evaluations; objective on the data as it is: 0; source unchanged \(sha256:/);
    await exact.locator('details').scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-exact-02-mapping');

    expect(readFileSync(databasePath).equals(originalBytes)).toBe(true);
    expect(app.pageErrors).toEqual([]);
  });

  it('passes the full-page accessibility audit with the exact-outcomes cell open, in light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const audited = await app.browser.newPage({ bypassCSP: true, colorScheme, viewport: { width: 1400, height: 950 } });
      try {
        await audited.goto(app.server.url);
        const exact = audited.getByTestId('dellma-exact');
        await expect.poll(() => exact.count(), { timeout: 20_000 }).toBe(1);
        await exact.getByText('The mapping and the sandbox').click();
        expect(await seriousViolations(audited), colorScheme).toEqual([]);
      } finally {
        await audited.close();
      }
    }
  });
});
