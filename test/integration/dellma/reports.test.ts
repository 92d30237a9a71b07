/**
 * What a DeLLMa run looks like in the notebook and the reports (HTML, Markdown): the decision
 * is the engine's, computed from the expected utilities (never labelled as the model's), and a
 * batch the analyst ranked by hand is labelled as the analyst's, with the review named.
 * In process with the real `openai` SDK against the scripted server and the real report code.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { buildReport } from '../../../src-main/reports/report-model';
import { renderHtmlReport } from '../../../src-main/reports/render-html';
import { renderMarkdownReport } from '../../../src-main/reports/render-markdown';
import { sampleMaterials } from '../../unit/reports/bundle-fixture';
import { rankingPreferring } from './scripted-dellma-model';
import { storeQuestionModel, useStoreQuestionRuns } from './store-question-run';

const runStoreQuestion = useStoreQuestionRuns(storeQuestionModel((request) => rankingPreferring(request, 'south'), 'South first.'));

function rendered(events: RunEvent[]): { cells: { kind: string; author: string; source: string }[]; html: string; markdown: string } {
  const materials = sampleMaterials(events);
  const report = buildReport(bundleFromRun(materials, { at: '2026-01-02T10:00:00.000Z', generator: 'Decision Workbench test' }));
  return { cells: materials.notebook.cells as { kind: string; author: string; source: string }[], html: renderHtmlReport(report), markdown: renderMarkdownReport(report) };
}

describe('DeLLMa in the notebook and the reports', () => {
  it('labels the decision as computed from the expected utilities, not as the model’s', async () => {
    const { cells, html, markdown } = rendered((await runStoreQuestion(() => ({ action: 'approve' }), { interactive: false })).events);
    const decision = cells.filter((cell) => cell.kind === 'decision');
    expect(decision).toHaveLength(1);
    expect(decision[0]).toMatchObject({ author: 'engine' });
    expect(decision[0]?.source).toMatch(/^\*\*Decision \(computed: expected utility\):\*\* south\n\nHighest expected utility/);
    for (const text of [html, markdown]) expect(text).toContain('Computed in code (expected utility), not written by the model.');
  });

  it('labels a batch ranked by hand as the analyst’s in the cells and both reports', async () => {
    // The analyst reverses the model's ranking of the one batch.
    const reversed = await runStoreQuestion((request) => (request.subject === 'ranking' ? { action: 'edit', steps: [...request.steps].reverse() } : { action: 'approve' }));
    const { cells, html, markdown } = rendered(reversed.events);
    expect(cells.some((cell) => cell.kind === 'note' && cell.author === 'analyst' && cell.source.startsWith("**The analyst edited the model's ranking.**"))).toBe(true);
    for (const text of [html, markdown]) {
      expect(text).toContain('Batch 1 ranked by the analyst (32 scenarios)');
      expect(text).toContain('Batch(es) 1 ranked by the analyst');
      expect(text).toContain('edited the ranking');
    }
  });
});
