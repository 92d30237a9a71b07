/**
 * What a DeLLMa run looks like in the notebook and the reports (HTML, Markdown): the decision
 * is the engine's, computed from the expected utilities (never labelled as the model's), and a
 * batch the analyst ranked by hand is labelled as the analyst's, with the review named.
 * In process with the real `openai` SDK against the scripted server and the real report code.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import { openSqliteConnector } from '../../../src-main/connectors/sqlite/sqlite-connector';
import { defaultRunLimits, runDecision } from '../../../src-main/engine/decision-run';
import type { ReviewGate } from '../../../src-main/engine/review-gate';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { buildReport } from '../../../src-main/reports/report-model';
import { renderHtmlReport } from '../../../src-main/reports/render-html';
import { renderMarkdownReport } from '../../../src-main/reports/render-markdown';
import { tinySqlite } from '../../support/fixtures';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptedTurn } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { sampleMaterials } from '../../unit/reports/bundle-fixture';
import { forecastAnswer, isForecast, rankingPreferring } from './scripted-dellma-model';

const tempDir = useTempDirs();
const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const model = (request: ReceivedChatRequest): ScriptedTurn => {
  const text = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
  if (text.includes('Write one query that retrieves')) return { label: 'query', content: '```sql\nSELECT name FROM region\n```' };
  if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
  const rank = rankingPreferring(request, 'south');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'South first.' }) };
};

async function run(gate: ReviewGate): Promise<RunEvent[]> {
  const server = await startScriptedOpenAiServer(Array.from({ length: 20 }, () => model));
  servers.push(server);
  const connector = openSqliteConnector({ path: tinySqlite(tempDir()) });
  try {
    const events: RunEvent[] = [];
    const outcome = await runDecision({
      question: 'Which region should get the new store?\nOptions: north; south',
      rules: '',
      technique: 'dellma',
      connector,
      connectionDescription: 'tiny',
      provider: createOpenAiProvider({ baseUrl: server.baseUrl, model: 'scripted', requestTimeoutMs: 5000, maxRetries: 0, toolMode: 'tools' }),
      toolMode: 'tools',
      limits: defaultRunLimits,
      gate,
      emit: (event) => events.push(event),
    });
    expect(server.failures).toEqual([]);
    expect(outcome.status).toBe('answered');
    return events;
  } finally {
    await connector.close();
  }
}

function rendered(events: RunEvent[]): { cells: { kind: string; author: string; source: string }[]; html: string; markdown: string } {
  const materials = sampleMaterials(events);
  const report = buildReport(bundleFromRun(materials, { at: '2026-01-02T10:00:00.000Z', generator: 'Decision Workbench test' }));
  return { cells: materials.notebook.cells as { kind: string; author: string; source: string }[], html: renderHtmlReport(report), markdown: renderMarkdownReport(report) };
}

describe('DeLLMa in the notebook and the reports', () => {
  it('labels the decision as computed from the expected utilities, not as the model’s', async () => {
    const { cells, html, markdown } = rendered(await run({ interactive: false, review: async () => ({ action: 'approve' }) }));
    const decision = cells.filter((cell) => cell.kind === 'decision');
    expect(decision).toHaveLength(1);
    expect(decision[0]).toMatchObject({ author: 'engine' });
    expect(decision[0]?.source).toMatch(/^\*\*Decision \(computed: expected utility\):\*\* south\n\nHighest expected utility/);
    for (const text of [html, markdown]) expect(text).toContain('Computed in code (expected utility), not written by the model.');
  });

  it('labels a batch ranked by hand as the analyst’s in the cells and both reports', async () => {
    // The analyst reverses the model's ranking of the one batch.
    const gate: ReviewGate = { interactive: true, review: async (request) => (request.subject === 'ranking' ? { action: 'edit', steps: [...request.steps].reverse() } : { action: 'approve' }) };
    const { cells, html, markdown } = rendered(await run(gate));
    expect(cells.some((cell) => cell.kind === 'note' && cell.author === 'analyst' && cell.source.startsWith("**The analyst edited the model's ranking.**"))).toBe(true);
    for (const text of [html, markdown]) {
      expect(text).toContain('Batch 1 ranked by the analyst (32 scenarios)');
      expect(text).toContain('Batch(es) 1 ranked by the analyst');
      expect(text).toContain('edited the ranking');
    }
  });
});
