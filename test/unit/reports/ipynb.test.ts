import { describe, expect, it } from 'vitest';
import { renderIpynb } from '../../../src-main/reports/render-ipynb';
import { buildReport } from '../../../src-main/reports/report-model';
import { sampleBundle } from './bundle-fixture';
import { nbformatValidator } from './nbformat-schema';

describe('the Jupyter export', () => {
  const bundle = sampleBundle();
  const notebook = JSON.parse(renderIpynb(bundle, buildReport(bundle))) as {
    nbformat: number;
    cells: { cell_type: string; id: string; source: string[]; outputs?: { output_type: string; data?: Record<string, string[]>; ename?: string }[] }[];
    metadata: { decision_workbench: { head: string } };
  };

  it('passes the nbformat 4 schema', () => {
    expect(nbformatValidator()(notebook)).toEqual([]);
    expect(notebook.nbformat).toBe(4);
  });

  it('has Markdown cells for the prose and %%sql code cells with the recorded outputs', () => {
    const code = notebook.cells.filter((cell) => cell.cell_type === 'code');
    expect(code[0]?.source.join('')).toBe('%load_ext sql\n%sql sqlite:////data/locating.sqlite');
    expect(code[1]?.source.join('')).toBe("%%sql\nSELECT source, flow FROM flow WHERE dest = 'baltic_sea'");
    expect(code[1]?.outputs?.[0]?.output_type).toBe('execute_result');
    expect(code[1]?.outputs?.[0]?.data?.['text/html']?.join('')).toContain('<td>krakow</td>');
    expect(code[2]?.outputs?.[0]).toMatchObject({ output_type: 'error', ename: 'syntax' });
    expect(new Set(notebook.cells.map((cell) => cell.id)).size).toBe(notebook.cells.length);
    expect(notebook.metadata.decision_workbench.head).toBe(bundle.head);
  });

  it('never lets model text become markup in a Markdown cell', () => {
    const markdown = notebook.cells.filter((cell) => cell.cell_type === 'markdown').map((cell) => cell.source.join('')).join('\n');
    expect(markdown).not.toMatch(/(^|[^\\])<(script|img)/i);
    expect(markdown).toContain('## Decision: krakow \\<img src=x onerror=alert(1)\\>');
  });
});
