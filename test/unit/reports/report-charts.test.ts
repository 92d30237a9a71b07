import { describe, expect, it } from 'vitest';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { renderHtmlReport } from '../../../src-main/reports/render-html';
import { renderMarkdownReport } from '../../../src-main/reports/render-markdown';
import { buildReport } from '../../../src-main/reports/report-model';
import { sampleMaterials } from './bundle-fixture';

/** A query cell the analyst left as a grouped chart, as the notebook saves it. */
function chartCell(chart: Record<string, unknown>, view = 'chart') {
  return {
    id: 'cell-chart',
    kind: 'query',
    author: 'analyst',
    source: 'SELECT month, region, revenue FROM sale',
    data: { display: { view, chart } },
    output: {
      status: 'ok',
      ranAt: '2026-01-01T09:00:00.000Z',
      connectionId: 'c',
      result: {
        columns: [{ name: 'month', type: 'TEXT' }, { name: 'region', type: 'TEXT' }, { name: '<b>revenue</b>', type: 'REAL' }],
        rows: [['2024-02', 'north', 10], ['2024-01', 'north', 5], ['2024-02', 'south', 7], ['2024-02', 'north', 1]],
        rowCount: 4,
        truncated: false,
        elapsedMs: 3,
      },
    },
  };
}
const grouped = { kind: 'bar', x: 'month', measures: ['<b>revenue</b>'], aggregate: 'sum', seriesBy: 'region', sort: 'x-asc' };

function reportWith(cells: unknown[]) {
  const materials = sampleMaterials();
  materials.notebook.cells.push(...cells);
  return buildReport(bundleFromRun(materials, { at: '2026-01-02T10:00:00.000Z', generator: 'test' }));
}

describe('charts in reports', () => {
  it('shows each chart’s settings in words and the aggregated table it draws, in Markdown and HTML', () => {
    const report = reportWith([chartCell(grouped)]);
    expect(report.charts).toHaveLength(1);
    expect(report.charts[0]?.table?.rows).toEqual([
      ['2024-01', 5, null],
      ['2024-02', 11, 7],
    ]);
    const markdown = renderMarkdownReport(report);
    expect(markdown).toContain('### Charts');
    expect(markdown).toContain('**Bar chart: sum of &lt;b&gt;revenue&lt;/b&gt; by month, one series per region, by x ascending**');
    expect(markdown).toContain('| 2024-02 | 11 | 7 |');
    const html = renderHtmlReport(report);
    expect(html).toContain('<h3>Charts</h3>');
    expect(html).toContain('Bar chart: sum of &lt;b&gt;revenue&lt;/b&gt; by month, one series per region, by x ascending');
    expect(html).not.toContain('<b>revenue</b>');
    expect(html).toMatch(/<td class="num">11<\/td>/);
  });

  it('leaves out cells showing the table, and names columns the result no longer has', () => {
    expect(reportWith([chartCell(grouped, 'table')]).charts).toEqual([]);
    const gone = reportWith([chartCell({ ...grouped, x: 'quarter' })]);
    expect(gone.charts[0]).toMatchObject({ table: null, problem: 'The result has no column “quarter”: choose the chart’s columns again.' });
    expect(renderMarkdownReport(gone)).toContain('The result has no column “quarter”');
  });
});
