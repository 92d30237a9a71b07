import { describe, expect, it } from 'vitest';
import { exportReport } from '../../../src-main/reports/export-report';
import { markdownCode, markdownFence, markdownLiteral } from '../../../src-main/reports/markdown-text';
import { diffSteps } from '../../../src-main/audit/plan-diff';
import { buildReport } from '../../../src-main/reports/report-model';
import { renderHtmlReport } from '../../../src-main/reports/render-html';
import { renderMarkdownReport } from '../../../src-main/reports/render-markdown';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { analystSigner, sampleBundle, sampleEvents, sampleMaterials } from './bundle-fixture';

const bundle = sampleBundle();
const report = buildReport(bundle);

describe('the report model', () => {
  it('reads the run: settings, plans with diffs, queries, reviews, usage, sign-off and integrity', () => {
    expect(report.title).toBe('Where should SWE place its merchant to maximise profit at baltic_sea?');
    expect(report.simulations.map((simulation) => simulation.result.best)).toEqual(['krakow']);
    expect(report.decision?.verification?.agrees).toBe(true);
    expect(report.technique.label).toBe('PlanRAG');
    expect(report.model).toMatchObject({ name: 'scripted', endpoint: 'http://127.0.0.1:9/v1', temperature: 0.2, servedAs: ['scripted-served'] });
    expect(report.connection.fingerprint?.fileBytes).toBe(163840);
    expect(report.plans.map((plan) => plan.diff?.map((line) => `${line.op}:${line.text}`) ?? null)).toEqual([
      null,
      ['same:Home node values', 'removed:Upstream nodes', 'added:SWE power in krakow', 'added:Decide'],
    ]);
    expect(report.queries.map((query) => [query.id, query.author, query.evidence, query.error?.code ?? null])).toEqual([
      ['q1', 'analyst', true, null],
      ['q2', 'model', false, 'syntax'],
    ]);
    expect(report.totals).toMatchObject({ modelCalls: 5, totalTokens: 3950, queries: 2, failedQueries: 1, replans: 1 });
    expect(report.reviews.map((review) => review.action)).toEqual(['edit', 'note']);
    expect(report.signOffs).toEqual([{ name: 'Ada Analyst', comment: 'Checked against the ledger.', at: '2026-01-02T10:00:00.000Z', hash: bundle.head, fingerprint: analystSigner.fingerprint }]);
    expect(report.integrity.signer).toEqual({ name: 'Ada Analyst', fingerprint: analystSigner.fingerprint });
    expect(report.integrity).toMatchObject({ eventCount: bundle.events.length, head: bundle.head, sealEntries: 2, generator: 'Decision Workbench test' });
  });
});

describe('the HTML report', () => {
  const html = renderHtmlReport(report);

  it('is self-contained: no script, no stylesheet link, no external asset', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/<[^>]*\bsrc=/i);
    expect(html).not.toMatch(/url\(/i);
    expect(html).toContain("default-src 'none'");
  });

  it('escapes everything from the model and the data, and sanitises Markdown', () => {
    expect(html).toContain('Check &lt;script&gt;alert(1)&lt;/script&gt; flows.');
    expect(html).toContain('krakow &lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('Merchants steer trade value &lt;b&gt;toward&lt;/b&gt; the home node.');
    expect(html).toContain('<strong>krakow</strong>');
    expect(html).toContain('&lt;script>alert(2)&lt;/script>');
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).toContain('[image: logo]');
    expect(html).not.toMatch(/<(img|iframe|object|embed)\b/i);
  });

  it('shows the decision, the sign-off, the re-plan diff, the result table with its digest, and the chain head', () => {
    expect(html).toContain('Recommended decision');
    expect(html).toContain('<strong>Ada Analyst</strong>');
    expect(html).toContain(`Signed with key <span class="hash">${analystSigner.fingerprint}</span>`);
    expect(html).toContain(`Ada Analyst, Ed25519 key <span class="hash">${analystSigner.fingerprint}</span>`);
    expect(html).toContain('<li class="added">SWE power in krakow</li>');
    expect(html).toContain('<li class="removed">Upstream nodes</li>');
    expect(html).toContain('id="query-q1"');
    expect(html).toContain('<td class="null">NULL</td>');
    expect(html).toContain(report.queries[0]?.digest ?? 'missing digest');
    expect(html).toContain(bundle.head);
    expect(html).toContain('no such table: missing');
    expect(html).toContain('Simulator: optimal');
    expect(html).toContain('id="simulation"');
    expect(html).toContain('Values in ducats per month.');
  });

  it('cuts long result tables and says how many rows the digest covers', () => {
    const short = renderHtmlReport(report, { maxTableRows: 2 });
    expect(short).toContain('Showing 2 of 3 rows.');
  });
});

describe('the Markdown report', () => {
  const markdown = renderMarkdownReport(report);

  it('escapes text from the run and neutralises raw HTML and script links in the rationale', () => {
    expect(markdown).toContain('krakow &lt;img src=x onerror=alert(1)&gt;');
    expect(markdown).toContain('Check &lt;script&gt;alert(1)&lt;/script&gt; flows.');
    expect(markdown).not.toMatch(/<(script|img)/);
    expect(markdown).toContain('&#x3C;script>alert(2)&#x3C;/script>');
    expect(markdown).toContain('\\[click]\\(javascript:alert(3))');
    expect(markdown).toContain('!\\[logo]\\(https\\://example.com/logo.png)');
    expect(markdown).toContain('SWE steers the most value from **krakow**.');
    expect(markdown).toContain(`\`${bundle.head}\``);
    expect(markdown).toContain(`- **Ada Analyst**, 2 Jan 2026, 10:00:00 UTC: Checked against the ledger., key \`${analystSigner.fingerprint}\` (seal entry`);
    expect(markdown).toContain(`| Signed by | Ada Analyst, Ed25519 key ${analystSigner.fingerprint} |`);
  });

  it('fences code so that no backtick run inside can close the fence', () => {
    expect(markdownFence('a ``` b')).toBe('````\na ``` b\n````');
    expect(markdownLiteral('*a* [b](c) <d> | e & f')).toBe('\\*a\\* \\[b\\](c) &lt;d&gt; \\| e &amp; f');
    expect(markdownCode('a ` b')).toBe('``a ` b``');
    expect(markdownCode('`x')).toBe('`` `x ``');
    expect(markdownCode('a\nb')).toBe('`a b`');
  });
});

describe('plan diffs', () => {
  it('keeps common steps and marks the rest added or removed', () => {
    expect(diffSteps(['a', 'b', 'c'], ['a', 'c', 'd'])).toEqual([
      { op: 'same', text: 'a' },
      { op: 'removed', text: 'b' },
      { op: 'same', text: 'c' },
      { op: 'added', text: 'd' },
    ]);
    expect(diffSteps([], ['x'])).toEqual([{ op: 'added', text: 'x' }]);
  });
});

describe('exports', () => {
  it('writes the JSON bundle exactly as it verifies, and refuses nothing it can render', async () => {
    const json = (await exportReport(bundle, 'json')).toString('utf8');
    expect(JSON.parse(json)).toMatchObject({ format: 'decision-workbench/report-bundle', head: bundle.head });
    for (const format of ['html', 'md', 'ipynb'] as const) expect((await exportReport(bundle, format)).length).toBeGreaterThan(1000);
    const printed: string[] = [];
    const pdf = await exportReport(bundle, 'pdf', { printPdf: async (html) => (printed.push(html), Buffer.from('%PDF-fake')) });
    expect(pdf.toString()).toBe('%PDF-fake');
    expect(printed[0]).toContain('Recommended decision');
  });
});

describe('a what-if experiment in a report', () => {
  const digest = `sha256:${'c'.repeat(64)}`;
  const events = sampleEvents();
  const decisionAt = events.findIndex((event) => event.type === 'model-request' && event.step === 5);
  events.splice(
    decisionAt,
    0,
    {
      type: 'whatif',
      step: 4,
      spec: { change: "UPDATE node SET power = power * 2 WHERE name = :candidate -- <script>alert(1)</script>", objective: 'SELECT sum(power) FROM node', direction: 'maximize', tolerance: 1e-9, timeoutMs: 10_000, candidates: ['krakow', 'lubeck'] },
      result: {
        rows: [
          { candidate: 'krakow', before: 10, after: 14, delta: 4, rank: 1, changedRows: 1 },
          { candidate: 'lubeck', before: 10, after: 12, delta: 2, rank: 2, changedRows: 1 },
        ],
        best: 'krakow',
        margin: 2,
        tied: ['krakow'],
        direction: 'maximize',
        tolerance: 1e-9,
        sourceDigestBefore: digest,
        sourceDigestAfter: digest,
        isolation: 'process',
        notes: [],
        elapsedMs: 40,
      },
      error: null,
    },
    {
      type: 'whatif',
      step: 4,
      spec: { change: 'UPDATE node SET power = power * 2 WHERE name = $candidate', objective: 'SELECT sum(power) FROM node', direction: 'maximize', tolerance: 1e-9, timeoutMs: 10_000, candidates: ['krakow'] },
      result: {
        rows: [{ candidate: 'krakow', before: 10, after: 14, delta: 4, rank: 1, changedRows: 1 }],
        best: 'krakow',
        margin: null,
        tied: ['krakow'],
        direction: 'maximize',
        tolerance: 1e-9,
        sourceDigestBefore: digest,
        sourceDigestAfter: digest,
        copiedTables: [{ name: 'node', rows: 1234 }],
        isolation: 'process',
        notes: [],
        elapsedMs: 55,
      },
      error: null,
    },
    { type: 'whatif', step: 4, spec: { change: 'DELETE FROM node', objective: 'SELECT 1', direction: 'minimize', tolerance: 1e-9, timeoutMs: 10_000, candidatesQuery: 'SELECT name FROM node' }, result: null, error: { name: 'WorkbenchError', code: 'invalid-request', message: 'the change must use the :candidate parameter', retryable: false } },
  );
  const withWhatIf = buildReport(bundleFromRun(sampleMaterials(events), { at: '2026-01-02T10:00:00.000Z', signOff: null, generator: 'test' }));

  it('shows the statements, the ranking and the source digest in HTML, escaped', () => {
    const html = renderHtmlReport(withWhatIf);
    expect(html).toContain('What-if on a copy of the data');
    expect(html).toContain('-- &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain(`Source unchanged: <code>${digest}</code>.`);
    expect(html).toContain(`Source unchanged: <code>${digest}</code> (the rows of node (1,234 rows), copied from the server into a local DuckDB sandbox).`);
    expect(html).toMatch(/<td class="num">1<\/td><td>krakow<\/td>/);
    expect(html).toContain('<strong>Failed</strong> (invalid-request): the change must use the :candidate parameter');
  });

  it('and in Markdown', () => {
    const markdown = renderMarkdownReport(withWhatIf);
    expect(markdown).toContain(`**What-if on a copy of the data:** best krakow, ahead by 2 (2 candidates; source unchanged: \`${digest}\`)`);
    expect(markdown).toContain(`(1 candidate; source unchanged: \`${digest}\` (the rows of node (1,234 rows), copied from the server into a local DuckDB sandbox))`);
    expect(markdown).toContain('**What-if failed** (invalid-request): the change must use the :candidate parameter');
    expect(markdown).toContain('candidates: SELECT name FROM node');
  });
});

describe('a run recorded before base URLs with a query were refused (issue 26, item 3)', () => {
  const oldKey = 'sk-old-run-Tz6-in-query';
  const events = sampleEvents().map((event) =>
    event.type === 'run-start'
      ? { ...event, model: { ...event.model, description: `scripted at http://127.0.0.1:9/v1?api_key=${oldKey}`, endpoint: `http://127.0.0.1:9/v1?api_key=${oldKey}#${oldKey}` } }
      : event,
  );
  const old = buildReport(bundleFromRun(sampleMaterials(events), { at: '2026-01-02T10:00:00.000Z', signOff: null, generator: 'test' }));

  it('shows the endpoint without its query or fragment in HTML and Markdown', () => {
    expect(old.model).toMatchObject({ endpoint: 'http://127.0.0.1:9/v1', description: 'scripted at http://127.0.0.1:9/v1' });
    const html = renderHtmlReport(old);
    expect(html).toContain('<tr><th>Endpoint</th><td class="mono">http://127.0.0.1:9/v1</td></tr>');
    expect(html).not.toContain(oldKey);
    const markdown = renderMarkdownReport(old);
    expect(markdown).toContain('| Endpoint | http://127.0.0.1:9/v1 |');
    expect(markdown).not.toContain(oldKey);
  });
});
