import { describe, expect, it } from 'vitest';
import { signerFromPem } from '../../../src-main/audit/signing';
import type { RunEvent } from '../../../src-main/contract/run';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { renderIpynb } from '../../../src-main/reports/render-ipynb';
import { renderMarkdownReport } from '../../../src-main/reports/render-markdown';
import { buildReport } from '../../../src-main/reports/report-model';
import { analystKeyPem, sampleEvents, sampleMaterials } from './bundle-fixture';
import { inspect, payloads, type Findings } from './markdown-inspection';

/**
 * Link and markup payloads (markdown-inspection.ts), each placed in every field of a run that a
 * Markdown report or a Jupyter Markdown cell shows (question, rules, thoughts, plans, queries,
 * result rows and columns, errors, rationale, notes, sign-off), rendered by a real Markdown
 * renderer and read raw. None may yield a javascript:, data: or vbscript: link or image, or any raw HTML.
 */

/** The sample run with `payload` in every field the reports show as text. */
function hostileEvents(payload: string): RunEvent[] {
  return sampleEvents().map((event): RunEvent => {
    switch (event.type) {
      case 'run-start':
        return { ...event, question: payload, rules: payload, model: { ...event.model, name: payload }, connection: { ...event.connection, description: `sqlite:${payload}` } };
      case 'thought':
      case 'observation':
        return { ...event, text: payload };
      case 'plan':
        return { ...event, steps: [payload, 'b'] };
      case 'replan':
        return { ...event, steps: ['a', payload], reason: payload };
      case 'analyst-review':
        return { ...event, note: payload };
      case 'query-start':
        return { ...event, query: payload };
      case 'query-end':
        return event.result
          ? { ...event, result: { ...event.result, columns: [{ name: payload, type: payload }, ...event.result.columns.slice(1)], rows: event.result.rows.map((row) => [payload, ...row.slice(1)]) } }
          : { ...event, error: event.error && { ...event.error, message: payload } };
      case 'decision':
        return { ...event, decision: payload, rationale: payload };
      default:
        return event;
    }
  });
}

describe('Markdown and Jupyter exports against link and markup payloads', () => {
  it(`form no javascript:, data: or vbscript: link and no raw HTML from ${payloads.length} payloads in every field`, () => {
    expect(payloads.length).toBeGreaterThanOrEqual(200);
    const totals: Findings = { liveLinks: [], rawHtml: [], rawDefinitions: [], swallowable: [] };
    let documents = 0;
    for (const payload of payloads) {
      const signerName = payload.replace(/^\s+/, 'x').trim();
      const bundle = bundleFromRun(sampleMaterials(hostileEvents(payload)), {
        at: '2026-01-02T10:00:00.000Z',
        generator: 'test',
        signOff: { name: signerName, comment: payload },
        signer: signerFromPem(signerName, analystKeyPem),
      });
      const report = buildReport(bundle);
      const notebook = JSON.parse(renderIpynb(bundle, report)) as { cells: { cell_type: string; source: string[] }[] };
      const documentsOfPayload = [renderMarkdownReport(report), ...notebook.cells.filter((cell) => cell.cell_type === 'markdown').map((cell) => cell.source.join(''))];
      for (const markdown of documentsOfPayload) {
        const findings = inspect(markdown);
        for (const key of Object.keys(totals) as (keyof Findings)[]) totals[key].push(...findings[key].map((finding) => `${JSON.stringify(payload)} → ${finding}`));
        documents++;
      }
    }
    console.log(
      `markdown payloads: ${payloads.length} payloads in ${documents} documents; live javascript/data/vbscript links ${totals.liveLinks.length}, raw HTML ${totals.rawHtml.length}, reference definitions ${totals.rawDefinitions.length}, autolink-swallowable < ${totals.swallowable.length}`,
    );
    expect(totals.liveLinks.slice(0, 5)).toEqual([]);
    expect(totals.rawHtml.slice(0, 5)).toEqual([]);
    expect(totals.rawDefinitions.slice(0, 5)).toEqual([]);
    expect(totals.swallowable.slice(0, 5)).toEqual([]);
  }, 120_000);

  it('still sees links the checks are meant to catch (the inspection is not blind)', () => {
    const caught = inspect('[a]: javascript:alert(1)\n\n[x][a] <img src=x> http://e.example/\\<b> ![i](data:x)');
    expect(caught.liveLinks.length).toBeGreaterThanOrEqual(2);
    expect(caught.liveLinks.some((finding) => finding.startsWith('marked '))).toBe(true);
    expect(caught.liveLinks.some((finding) => finding.startsWith('micromark '))).toBe(true);
    expect(caught.rawHtml.some((finding) => finding.startsWith('marked <img'))).toBe(true);
    expect(caught.rawHtml.some((finding) => finding.startsWith('micromark <img'))).toBe(true);
    expect(caught.rawHtml.length).toBeGreaterThan(0);
    expect(caught.rawDefinitions).toEqual(['[a]:']);
    expect(caught.swallowable).toEqual(['http://e.example/\\<']);
  });
});
