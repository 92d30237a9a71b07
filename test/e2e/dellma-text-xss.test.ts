import { describe, expect, it } from 'vitest';
import { rankingPreferring, isForecast } from '../integration/dellma/scripted-dellma-model';
import { agricultureDatabase } from '../support/agriculture-database';
import { configureScriptedModel, screenshot, useAppWithScriptedModel } from '../support/browser';
import { liveFindings } from '../support/live-markup';
import { messageText, type ReceivedChatRequest, type ScriptedTurn } from '../support/scripted-openai';
import type { ScriptStep } from '../support/scripted-openai/script';
import { useSuiteTempDir } from '../support/temp';

/**
 * Issue 26, item 8: DeLLMa's factors in the notebook stay text. The analyst's question names a
 * hostile unknown (the factor's name); the model's forecast gives hostile values; the run's
 * frame, forecast, sampling, ranking and expected-utility cells show them as text, and none
 * runs a script or leaves a live element in the page.
 */
const dataDir = useSuiteTempDir();

const hostileValue = (n: number): string => `<img src=x onerror="window.__pwned=${n}"><script>window.__pwned=${n + 100}</script> [x](javascript:window.__pwned=${n + 200})`;
const question = `Which fruit should I plant on my 10 acres in California next season to earn the most revenue per acre?\nOptions: apple; grape; pear\nUnknowns: climate ${hostileValue(1)}`;

const userText = (request: ReceivedChatRequest): string => messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });

/** The forecast names every unknown it was asked about, with values that carry payloads. */
function hostileForecast(request: ReceivedChatRequest): string {
  const names = (messageText(request.chat.messages[1] ?? { role: 'user', content: '' }).split('The unknowns:\n')[1] ?? '').split('\n\n')[0]?.split('\n').map((line) => line.replace(/^\d+\.\s*/, '')) ?? [];
  return JSON.stringify({
    factors: names.map((name) => ({
      name,
      values: [
        { value: `worse ${hostileValue(2)}`, likelihood: 'somewhat likely' },
        { value: `same ${hostileValue(3)}`, likelihood: 'Very_Likely' },
        { value: 'better', likelihood: 'unlikely' },
      ],
    })),
  });
}

const answer = (request: ReceivedChatRequest): ScriptedTurn => {
  if (userText(request).includes('Write one query that retrieves')) return { label: 'context query', content: '```sql\nSELECT commodity, yield_per_acre, price FROM fruit_2021\n```' };
  if (isForecast(request)) return { label: 'forecast', content: hostileForecast(request) };
  const rank = rankingPreferring(request, 'pear');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: `Pear leads. ${hostileValue(4)}` }) };
};

const script: ScriptStep[] = [{ content: 'ok' }, { toolCalls: [{ name: 'probe', arguments: {} }] }, { content: '{"status": "ok"}' }, ...Array.from({ length: 20 }, () => answer)];
const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1400, height: 950 } });

describe('DeLLMa factors in the notebook stay text', () => {
  it('a run whose unknown and forecast values carry payloads decides, shows them as text, and nothing is live', async () => {
    await app.page.goto(app.server.url);
    await configureScriptedModel(app.page, model());
    await app.page.getByTestId('add-connection').click();
    const connection = app.page.getByTestId('connection-dialog');
    await connection.getByTestId('kind-sqlite').click();
    await connection.getByLabel('Path').fill(agricultureDatabase(dataDir()));
    await connection.getByLabel('Connection name').fill('Agriculture 2021');
    await connection.getByTestId('save-connection').click();
    await expect.poll(() => app.page.getByTestId('connection-list').innerText()).toContain('Agriculture 2021');

    await app.page.getByTestId('new-run').click();
    const composer = app.page.getByTestId('run-composer');
    await composer.getByLabel('Decision question').fill(question);
    await composer.getByLabel('Run connection').selectOption({ label: 'Agriculture 2021' });
    await composer.getByLabel('Technique').selectOption('dellma');
    await composer.getByLabel('Samples per option').fill('8');
    await composer.getByTestId('start-run').click();
    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 60_000 }).toBe('Decided');
    expect(model().failures).toEqual([]);

    const forecast = app.page.getByTestId('dellma-forecast').first();
    const shown = await forecast.innerText();
    expect(shown).toContain('climate <img src=x onerror="window.__pwned=1">');
    expect(shown).toContain('worse <img src=x onerror="window.__pwned=2">');
    expect(shown).toContain('same <img src=x onerror="window.__pwned=3">');
    // The ranking cells show the model's explanation.
    expect(await app.page.getByTestId('dellma-rank').first().innerText()).toContain('Pear leads. <img src=x onerror="window.__pwned=4">');
    expect(await liveFindings(app.page)).toEqual({ pwned: null, elements: [], handlers: [], links: [] });
    await forecast.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'dellma-text-xss');
    console.log('dellma xss notebook: a factor name and two values per factor with payloads, a ranking explanation with one; window.__pwned unset, 0 live elements, 0 inline handlers, 0 script links');
    expect(app.pageErrors).toEqual([]);
  });
});
