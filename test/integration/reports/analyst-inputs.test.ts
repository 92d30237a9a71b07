import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import { openSqliteConnector } from '../../../src-main/connectors/sqlite/sqlite-connector';
import { defaultRunLimits, runDecision } from '../../../src-main/engine/decision-run';
import type { ReviewDecision, ReviewGate } from '../../../src-main/engine/review-gate';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { buildReport } from '../../../src-main/reports/report-model';
import { renderHtmlReport } from '../../../src-main/reports/render-html';
import { renderIpynb } from '../../../src-main/reports/render-ipynb';
import { renderMarkdownReport } from '../../../src-main/reports/render-markdown';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import { useCleanups, useSqliteFromDqaDump } from '../../support/lifecycle';
import { sampleMaterials } from '../../unit/reports/bundle-fixture';

/**
 * Issue 15's Done-when: every analyst input of a step-through run appears in the report. A real
 * PlanRAG run (scripted model over the openai SDK, a DQA SQLite database) meets every kind of
 * review — approve, edit with a note, skip with a note, a note, a plan edit, stop — and each
 * must be found in the HTML, Markdown and Jupyter reports made from its sealed bundle.
 */
const locatingPath = useSqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql');
const onCleanup = useCleanups();

const edited = "SELECT local_value FROM trade_node WHERE trade_node = 'krakow'";

describe('the analyst’s inputs in the reports of a step-through run', () => {
  it('keeps approvals, edits (with the model’s version), skips, notes, plan edits and the stop', async () => {
    const server = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Read the nodes', 'Compare them'] } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS approved_count FROM trade_node' } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT trade_node FROM trade_node LIMIT 3' } }] },
      { expectToolResultContains: ['The analyst replaced your query', '4.777', 'Analyst note: Only krakow matters.'], toolCalls: [{ name: 'query', arguments: { query: 'SELECT skipped_column FROM flow' } }] },
      { expectToolResultContains: 'skipped this query: Not needed.', toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS noted_count FROM flow' } }] },
      { expectToolResultContains: 'Analyst note: Check the units.', toolCalls: [{ name: 'replan', arguments: { steps: ['Model step one', 'Model step two'], reason: 'The flows matter more' } }] },
      { expectToolResultContains: ['Plan updated by the analyst', 'Analyst step A', 'Analyst note: Keep it short.'], toolCalls: [{ name: 'query', arguments: { query: 'SELECT pending_column FROM node_country' } }] },
    ]);
    const connector = openSqliteConnector({ path: locatingPath() });
    onCleanup(() => server.close(), () => connector.close());
    const answers: ReviewDecision[] = [
      { action: 'approve' },
      { action: 'edit', query: edited, note: 'Only krakow matters.' },
      { action: 'skip', note: 'Not needed.' },
      { action: 'note', note: 'Check the units.' },
      { action: 'edit', steps: ['Analyst step A', 'Model step two'], note: 'Keep it short.' },
      { action: 'stop' },
    ];
    const gate: ReviewGate = { interactive: true, review: async () => answers.shift() ?? { action: 'approve' } };
    const events: RunEvent[] = [];
    const outcome = await runDecision({
      question: 'Where should SWE allocate its merchant to maximise profit at baltic_sea?',
      rules: 'Profit = (local_value + ingoing) * power share.',
      technique: 'planrag',
      connector,
      connectionDescription: 'locating-1445 (SQLite)',
      provider: createOpenAiProvider({ baseUrl: server.baseUrl, model: 'scripted', requestTimeoutMs: 5000, maxRetries: 0, toolMode: 'tools' }),
      toolMode: 'tools',
      limits: { ...defaultRunLimits, queryTimeoutMs: 5000 },
      gate,
      emit: (event) => events.push(event),
    });
    server.verify();
    expect(outcome.status).toBe('stopped');
    expect(answers).toEqual([]);

    const materials = sampleMaterials(events);
    const bundle = bundleFromRun(materials, { at: '2026-01-02T10:00:00.000Z', generator: 'Decision Workbench test' });
    const report = buildReport(bundle);
    expect(report.reviews.map((review) => `${review.action} ${review.subject}`)).toEqual(['approve query', 'edit query', 'skip query', 'note query', 'edit replan', 'stop query']);

    // The notebook keeps the model's original beside the edit, the skipped query, and the stopped query as an editable cell.
    const cells = materials.notebook.cells as { kind: string; author: string; source: string; data: Record<string, unknown> }[];
    const notes = cells.filter((cell) => cell.kind === 'note' && cell.author === 'analyst').map((cell) => cell.source);
    expect(notes.some((note) => note.includes('edited the model') && note.includes('SELECT trade_node FROM trade_node LIMIT 3') && note.includes('Only krakow matters.'))).toBe(true);
    expect(notes.some((note) => note.includes('skipped') && note.includes('SELECT skipped_column FROM flow') && note.includes('Not needed.'))).toBe(true);
    expect(notes.some((note) => note.includes('Check the units.'))).toBe(true);
    expect(notes.some((note) => note.includes('Model step one') && note.includes('Keep it short.'))).toBe(true);
    const lastQuery = cells.filter((cell) => cell.kind === 'query').at(-1);
    expect(lastQuery).toMatchObject({ author: 'analyst', source: 'SELECT pending_column FROM node_country', data: { continueByHand: true } });

    const html = renderHtmlReport(report);
    const markdown = renderMarkdownReport(report);
    const ipynb = renderIpynb(bundle, report);
    const ipynbText = (JSON.parse(ipynb) as { cells: { source: string[] }[] }).cells.map((cell) => cell.source.join('')).join('\n');
    expect(ipynbText).toContain('The query pending when the analyst stopped the run');
    for (const [format, text] of [
      ['html', html],
      ['markdown', markdown],
      ['ipynb', ipynbText],
    ] as const) {
      // Every action, by name.
      for (const label of ['approved the query', 'edited the query', 'skipped the query', 'added a note to the query', 'edited the re-plan', 'stopped the run at the query']) {
        expect(text, `${format}: ${label}`).toContain(label);
      }
      // The approved, skipped and pending queries; the edit as a diff of the model's against the analyst's.
      expect(text, format).toContain('SELECT count(*) AS approved_count FROM trade_node');
      expect(text, format).toContain('SELECT skipped_column FROM flow');
      expect(text, format).toContain('SELECT pending_column FROM node_country');
      expect(text, format).toMatch(/[-−] SELECT trade_node FROM trade_node LIMIT 3/);
      expect(text, format).toMatch(/\+ SELECT local_value FROM trade_node WHERE trade_node = (&#39;|')krakow(&#39;|')/);
      expect(text, format).toMatch(/[-−] Model step one/);
      expect(text, format).toMatch(/\+ Analyst step A/);
      // Every note, including the one given with an edit.
      for (const note of ['Only krakow matters.', 'Not needed.', 'Check the units.', 'Keep it short.']) expect(text, `${format}: ${note}`).toContain(note);
    }
  });
});
