import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import { buildReport } from '../../../src-main/reports/report-model';
import { renderHtmlReport } from '../../../src-main/reports/render-html';
import { serializeBundle } from '../../../src-main/reports/create-bundle';
import { renderIpynb } from '../../../src-main/reports/render-ipynb';
import { renderMarkdownReport } from '../../../src-main/reports/render-markdown';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { sampleEvents, sampleMaterials } from './bundle-fixture';
import { nbformatValidator } from './nbformat-schema';

const hostile = '<img src=x onerror=alert(1)> & "quotes" [link](http://evil)';

/** A Plan*RAG run: two roots (one answered with hostile text, one failed), a join blocked by the failure. */
function planDagEvents(): RunEvent[] {
  const [start] = sampleEvents();
  const usage = { promptTokens: 300, completionTokens: 20, totalTokens: 320 };
  const call = (step: number): RunEvent[] => [
    { type: 'model-request', step, tools: [], messageCount: 2 },
    { type: 'model-response', step, content: '', toolCalls: [], usage, latencyMs: 10 },
  ];
  const nodes = [
    { id: 'Q1.1', text: `Flows into baltic_sea ${hostile}`, dependsOn: [] },
    { id: 'Q1.2', text: 'SWE power per node', dependsOn: [] },
    { id: 'Q2.1', text: 'Best node from <A1.1> and <A1.2>', dependsOn: ['Q1.1', 'Q1.2'] },
  ];
  return [
    { ...(start as Extract<RunEvent, { type: 'run-start' }>), technique: 'plan-dag', mode: 'auto' },
    ...call(1),
    { type: 'plan', step: 1, steps: nodes.map((node) => `${node.id}: ${node.text}`), nodes },
    { type: 'tool', step: 1, tool: 'plan-dag.plan', input: { final: 'Q2.1', depth: 2, widths: [2, 1] }, output: 'Plan graph: 2 levels' },
    ...call(2),
    { type: 'query-start', step: 2, queryId: 'q1', query: `SELECT source FROM flow WHERE note = '${hostile}'`, author: 'model', node: 'Q1.1' },
    { type: 'query-end', step: 2, queryId: 'q1', result: { columns: [{ name: 'source', type: 'TEXT' }], rows: [['krakow']], rowCount: 1, truncated: false, elapsedMs: 1 }, error: null, digest: 'd' },
    ...call(3),
    {
      type: 'tool',
      step: 3,
      node: 'Q1.1',
      tool: 'plan-dag.node',
      input: { status: 'answered', level: 0, parents: [], template: nodes[0]?.text, question: nodes[0]?.text, answer: `krakow ${hostile}`, explanation: 'one row', latencyMs: 40, calls: [{ purpose: 'query', step: 2, promptTokens: 300, completionTokens: 20, latencyMs: 10 }] },
      output: 'Q1.1 answered',
    },
    { type: 'tool', step: 3, node: 'Q1.2', tool: 'plan-dag.node', input: { status: 'failed', level: 0, parents: [], question: 'SWE power per node', failure: { category: 'QUR', message: 'no such table: power' }, latencyMs: 90, calls: [] }, output: 'Q1.2 failed' },
    { type: 'tool', step: 3, node: 'Q2.1', tool: 'plan-dag.node', input: { status: 'blocked', level: 1, parents: ['Q1.1', 'Q1.2'], blockedBy: ['Q1.2'] }, output: 'Q2.1 blocked' },
    { type: 'run-end', status: 'failed', message: 'Plan*RAG reached no decision', steps: 3, totalTokens: 960 },
  ];
}

const bundle = bundleFromRun(sampleMaterials(planDagEvents()), { at: '2026-01-02T10:00:00.000Z', signOff: null, generator: 'Decision Workbench test', signer: null });
const report = buildReport(bundle);

/** The node rows of a Markdown node table, by node id: its cells split on unescaped pipes. */
function tableRows(markdown: string): Map<string, string[]> {
  const rows = markdown.split('\n').filter((line) => /^\| Q\d/.test(line));
  return new Map(rows.map((line) => {
    const cells = line.slice(2, -2).split(/(?<!\\)\| /).map((cell) => cell.trim());
    return [cells[0] ?? '', cells];
  }));
}

describe('the plan graph in reports', () => {
  it('lays out the last plan with each node’s state and queries', () => {
    const graph = report.planGraph;
    expect(graph?.layout.levels).toEqual([['Q1.1', 'Q1.2'], ['Q2.1']]);
    expect(graph?.layout.nodes.map((node) => [node.id, node.status])).toEqual([
      ['Q1.1', 'answered'],
      ['Q1.2', 'failed'],
      ['Q2.1', 'blocked'],
    ]);
    expect(graph?.queries['Q1.1']).toHaveLength(1);
  });

  it('draws an inline SVG with every text escaped, and a row per node with question, query and answer', () => {
    const page = renderHtmlReport(report);
    const svg = page.slice(page.indexOf('<svg class="plan-graph"'), page.indexOf('</svg>') + 6);
    expect(svg).toContain('viewBox="0 0 ');
    expect(svg.match(/<g class="plan-node">/g)).toHaveLength(3);
    expect(svg.match(/<path d="M[\d.]+,[\d.]+ L/g)).toHaveLength(2);
    expect(svg).toContain('Q1.2<tspan font-weight="400" fill="#c93a3a"> · failed</tspan>');
    // The model's text never becomes markup, in the SVG or in the node table.
    expect(page).not.toContain('<img');
    expect(svg).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;');
    const table = page.slice(page.indexOf('<table class="plan-nodes">'), page.indexOf('</table>', page.indexOf('<table class="plan-nodes">')));
    expect(table).toContain('krakow &lt;img src=x onerror=alert(1)&gt;');
    expect(table).toContain('QUR: no such table: power');
    expect(table).toContain('blocked by Q1.2');
    expect(table).toContain('SELECT source FROM flow WHERE note = &#39;&lt;img');
    expect(table).toContain('<td>300 / 20</td><td>40 ms</td>');
    expect(table).toContain('<td>—</td><td>—</td></tr>');
  });

  it('lists the nodes in Markdown, indented by level with their parents', () => {
    const markdown = renderMarkdownReport(report);
    const section = markdown.slice(markdown.indexOf('### Plan graph'), markdown.indexOf('### Initial plan'));
    // Q1.2 took longer than Q1.1, so the critical path runs through it.
    expect(section).toContain('- **Q1.1** (level 0, answered) ← no parents');
    expect(section).toContain('- **Q1.2** (level 0, failed, critical path) ← no parents');
    expect(section).toContain('  - **Q2.1** (level 1, blocked, critical path) ← Q1.1, Q1.2');
    expect(section).toContain('  - answer: krakow &lt;img src=x onerror=alert(1)&gt; &amp; "quotes" \\[link\\](http://evil) (one row)');
    // Only inside a code span (literal text in Markdown) does the raw query keep its '<'.
    expect(section.replace(/`[^`\n]*`/g, '')).not.toContain('<img');
    expect(section).toContain("  - query: `SELECT source FROM flow WHERE note = '<img");
    expect(tableRows(section).get('Q1.1')?.slice(6)).toEqual(['300 / 20', '40 ms']);
  });

  it('puts the graph and a row per node (level, parents, state, question, answer, tokens, latency) in the Jupyter notebook', () => {
    const notebook = JSON.parse(renderIpynb(bundle, report)) as { cells: { id: string; cell_type: string; source: string[] }[] };
    expect(nbformatValidator()(notebook)).toEqual([]);
    const cell = notebook.cells.find((candidate) => candidate.id === 'dwb-plan-graph');
    expect(cell?.cell_type).toBe('markdown');
    const text = cell?.source.join('') ?? '';
    expect(text).toContain('## Plan graph');
    expect(text).toContain('  - **Q2.1** (level 1, blocked, critical path) ← Q1.1, Q1.2');
    const rows = tableRows(text);
    expect([...rows.keys()]).toEqual(['Q1.1', 'Q1.2', 'Q2.1']);
    // Node, level, parents, status, question, answer, tokens, latency; the model's text stays literal, its pipes escaped.
    expect(rows.get('Q1.1')?.slice(0, 4)).toEqual(['Q1.1', '0', '—', 'answered']);
    expect(rows.get('Q1.1')?.[4]).toBe('Flows into baltic\\_sea &lt;img src=x onerror=alert(1)&gt; &amp; "quotes" \\[link\\](http://evil)');
    expect(rows.get('Q1.1')?.slice(6)).toEqual(['300 / 20', '40 ms']);
    expect(rows.get('Q1.2')?.slice(3)).toEqual(['failed', 'SWE power per node', 'QUR: no such table: power', '0 / 0', '90 ms']);
    expect(rows.get('Q2.1')).toEqual(['Q2.1', '1', 'Q1.1, Q1.2', 'blocked', 'Best node from &lt;A1.1&gt; and &lt;A1.2&gt;', 'blocked by Q1.2', '—', '—']);
    expect(text.replace(/`[^`\n]*`/g, '')).not.toContain('<img');
  });

  it('keeps the plan and every node\'s outcome, figures included, in the JSON bundle', () => {
    const events = (JSON.parse(serializeBundle(bundle)) as { events: { event: RunEvent }[] }).events.map((entry) => entry.event);
    expect(events.find((event) => event.type === 'plan')).toMatchObject({ nodes: [{ id: 'Q1.1' }, { id: 'Q1.2' }, { id: 'Q2.1', dependsOn: ['Q1.1', 'Q1.2'] }] });
    const nodes = events.flatMap((event) => (event.type === 'tool' && event.tool === 'plan-dag.node' ? [[event.node, (event.input as { status: string }).status]] : []));
    expect(nodes).toEqual([['Q1.1', 'answered'], ['Q1.2', 'failed'], ['Q2.1', 'blocked']]);
    expect(events.find((event) => event.type === 'tool' && event.node === 'Q1.1')).toMatchObject({ input: { latencyMs: 40, calls: [{ promptTokens: 300, completionTokens: 20 }] } });
  });

  it('leaves the Jupyter notebook of a run without a plan graph as it was', () => {
    const planrag = bundleFromRun(sampleMaterials(), { at: '2026-01-02T10:00:00.000Z', signOff: null, generator: 'Decision Workbench test', signer: null });
    const notebook = JSON.parse(renderIpynb(planrag, buildReport(planrag))) as { cells: { id: string }[] };
    expect(notebook.cells.map((cell) => cell.id)).not.toContain('dwb-plan-graph');
  });

  it('leaves a linear PlanRAG plan to its numbered list', () => {
    const planrag = buildReport(bundleFromRun(sampleMaterials(), { at: '2026-01-02T10:00:00.000Z', signOff: null, generator: 'Decision Workbench test', signer: null }));
    expect(planrag.planGraph).toBeNull();
    expect(renderHtmlReport(planrag)).not.toContain('<svg class="plan-graph"');
  });
});
