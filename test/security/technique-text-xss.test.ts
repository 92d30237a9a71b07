import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';
import { signerFromPem } from '../../src-main/audit/signing';
import type { DellmaExact } from '../../src-main/contract/dellma';
import type { RunEvent } from '../../src-main/contract/run';
import { bundleFromRun } from '../../src-main/reports/prepare-bundle';
import { renderHtmlReport } from '../../src-main/reports/render-html';
import { renderIpynb } from '../../src-main/reports/render-ipynb';
import { renderMarkdownReport } from '../../src-main/reports/render-markdown';
import { footerTemplate } from '../../src-main/reports/render-pdf';
import { buildReport } from '../../src-main/reports/report-model';
import { analystKeyPem, sampleEvents, sampleMaterials } from '../unit/reports/bundle-fixture';
import { inspect, payloads as markdownPayloads, type Findings } from '../unit/reports/markdown-inspection';

/**
 * Issue 26, item 8: XSS through every text a technique writes, not only the plain run's fields
 * (markdown-xss.test.ts): the program Pearl plans and its steps and mapping, DeLLMa's factors
 * (names, values and the likelihood lines of its forecast), its exact outcomes, the playbook an
 * AutoPlan run follows, and Plan*RAG's node questions, answers and explanations. Each payload
 * goes into every one of those texts at once, as the techniques log them; the run is exported
 * the four ways a user can (HTML, which is also the PDF's page, the PDF's footer, Markdown and
 * Jupyter) and each export is read as a browser or a Markdown renderer would.
 */

/** Payloads aimed at HTML contexts the exports write into (pre, SVG text, attributes, style), on top of the Markdown ones. */
const htmlVectors = [
  '</pre><script>window.__pwned=1</script>',
  '"><img src=x onerror=alert(1)>',
  "'><svg/onload=alert(1)>",
  '</text></svg><script>alert(1)</script>',
  '</title><script>alert(1)</script>',
  '</style><script>alert(1)</script>',
  '</textarea><img src=x onerror=alert(1)>',
  '<math><mtext></table><img src onerror=alert(1)>',
  '--><script>alert(1)</script>',
  ']]><script>alert(1)</script>',
  '<a xlink:href="javascript:alert(1)">x</a>',
  '<svg><foreignObject><iframe srcdoc="<script>alert(1)</script>"></iframe></foreignObject></svg>',
  '<svg><animate attributeName="href" to="javascript:alert(1)"/></svg>',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
];
const payloads = [...markdownPayloads, ...htmlVectors];

const exactRecord = (payload: string): DellmaExact => ({
  objective: payload,
  direction: 'maximize',
  mapped: [{ factor: payload, values: [{ value: payload, change: payload }] }],
  options: [{ action: payload, change: payload, mapped: true }],
  scenarios: [{ future: payload, probability: 1, draws: 1, action: payload, objective: 1, status: 'failed', reason: payload }],
  rows: [{ action: payload, expected: 1, coverage: 1, computed: 1 }],
  baseline: 0,
  exactBest: payload,
  tiedBest: [payload],
  decision: payload,
  agrees: true,
  evaluations: 1,
  maxEvaluations: 10,
  capped: payload,
  sourceDigestBefore: null,
  sourceDigestAfter: null,
  isolation: 'process',
  error: null,
});

/** The texts each technique writes, holding `payload`, as the techniques log them (see each technique's emit calls). */
function techniqueEvents(payload: string): RunEvent[] {
  const step = 5;
  const forecast = { factors: [{ name: payload, values: [{ value: payload, likelihood: 'likely', probability: 0.7 }, { value: `${payload} (other)`, likelihood: 'unlikely', probability: 0.3 }] }] };
  return [
    // Plan*RAG: a graph of node questions, then each node's answer and explanation.
    { type: 'plan', step, steps: [payload, payload], nodes: [{ id: 'Q1', text: payload, dependsOn: [] }, { id: 'Q2', text: payload, dependsOn: ['Q1'] }] },
    { type: 'tool', step, tool: 'plan-dag.plan', input: { levels: [['Q1'], ['Q2']], widths: [1, 1], final: 'Q2', warnings: [payload] }, output: `Plan graph: ${payload}` },
    { type: 'tool', step, node: 'Q1', tool: 'plan-dag.node', input: { status: 'answered', level: 0, question: payload, answer: payload, explanation: payload, calls: [] }, output: `Q1: ${payload}` },
    { type: 'tool', step, node: 'Q2', tool: 'plan-dag.node', input: { status: 'failed', level: 1, question: payload, failure: { category: payload, message: payload }, calls: [] }, output: `Q2: ${payload}` },
    { type: 'thought', step, node: 'Q1', text: payload },
    // Pearl: the program the model (or the analyst) wrote, each step's result, the mapping to a decision.
    { type: 'tool', step, tool: 'pearl-program', input: { attempt: 1, maxAttempts: 3, library: [{ name: payload, signature: payload }], program: payload, valid: false, errors: [payload] }, output: `Program, attempt 1 of 3:\n${payload}` },
    { type: 'tool', step, node: 'S1', tool: 'pearl-step', input: { step: payload, action: payload, arguments: [payload] }, output: payload },
    { type: 'tool', step, node: 'answer', tool: 'pearl-mapping', input: { method: payload, decision: payload, mappingError: false }, output: payload },
    // DeLLMa: the options, the forecast of factors with their likelihoods, the exact outcomes.
    { type: 'tool', step, node: 'frame', tool: 'dellma.frame', input: { actions: [payload], source: 'question', pruned: [payload], note: payload }, output: `Options (listed in the question): ${payload}` },
    { type: 'tool', step, node: 'forecast', tool: 'dellma.forecast', input: forecast, output: `Forecast:\n- ${payload}: ${payload} (likely, p=0.700); ${payload} (other) (unlikely, p=0.300)` },
    { type: 'tool', step, node: 'exact', tool: 'dellma.exact', input: exactRecord(payload), output: payload },
  ];
}

/** The sample run as an AutoPlan run following a playbook, with every technique's texts in it. */
function hostileEvents(payload: string): RunEvent[] {
  const events = sampleEvents();
  const end = events.findIndex((event) => event.type === 'decision');
  return [
    ...events
      .slice(0, end)
      .map((event): RunEvent => (event.type === 'run-start' ? { ...event, question: payload, playbook: { version: null, sha256: createHash('sha256').update(payload).digest('hex'), text: payload } } : event)),
    ...techniqueEvents(payload),
    ...events.slice(end),
  ];
}

const dangerousScheme = /^(javascript|vbscript|data):/i;
/** Elements that run code, load something, or (inside SVG) can rewrite a link. */
const activeTags = new Set(['script', 'iframe', 'frame', 'object', 'embed', 'img', 'image', 'form', 'input', 'button', 'link', 'meta', 'base', 'style', 'foreignobject', 'animate', 'set', 'use', 'math', 'video', 'audio', 'source', 'template']);
const urlAttributes = new Set(['href', 'xlink:href', 'src', 'action', 'formaction', 'data', 'poster']);

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, decimal: string) => String.fromCodePoint(Number(decimal)))
    .replace(/&colon;/gi, ':')
    .replace(/&amp;/g, '&');
}

/**
 * Every live thing an HTML document holds, as a browser's tokenizer would find it: active
 * elements, event-handler attributes, script URLs, srcdoc, url() in a style attribute. Text
 * the renderer escaped (`&lt;img …`) is text and yields nothing.
 */
function liveHtml(document: string): string[] {
  const found: string[] = [];
  const withoutComments = document.replace(/<!--[\s\S]*?-->/g, '');
  for (const tag of withoutComments.matchAll(/<([a-zA-Z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g)) {
    const name = (tag[1] ?? '').toLowerCase();
    if (activeTags.has(name)) found.push(`<${name}>`);
    for (const attribute of (tag[2] ?? '').matchAll(/([^\s"'=<>`/]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g)) {
      const attributeName = (attribute[1] ?? '').toLowerCase();
      const value = decodeEntities((attribute[2] ?? '').replace(/^["']|["']$/g, '')).replace(/[\s\p{Cc}]+/gu, '');
      if (attributeName.startsWith('on')) found.push(`<${name} ${attributeName}>`);
      if (attributeName === 'srcdoc') found.push(`<${name} srcdoc>`);
      if (urlAttributes.has(attributeName) && dangerousScheme.test(value)) found.push(`<${name} ${attributeName}=${value.slice(0, 20)}>`);
      if (attributeName === 'style' && /url\(|expression\(/i.test(value)) found.push(`<${name} style=${value.slice(0, 20)}>`);
    }
  }
  return found;
}

interface Exports {
  html: string;
  footer: string;
  markdown: string;
  notebookMarkdown: string[];
  notebookHtml: string[];
}

function exportsOf(payload: string): Exports {
  const signerName = payload.replace(/^\s+/, 'x').trim();
  const bundle = bundleFromRun(sampleMaterials(hostileEvents(payload)), {
    at: '2026-01-02T10:00:00.000Z',
    generator: 'test',
    signOff: { name: signerName, comment: payload },
    signer: signerFromPem(signerName, analystKeyPem),
  });
  const report = buildReport(bundle);
  const notebook = JSON.parse(renderIpynb(bundle, report)) as { cells: { cell_type: string; source: string[]; outputs?: { data?: Record<string, string[]> }[] }[] };
  return {
    html: renderHtmlReport(report),
    footer: footerTemplate(report.title, report.runId),
    markdown: renderMarkdownReport(report),
    notebookMarkdown: notebook.cells.filter((cell) => cell.cell_type === 'markdown').map((cell) => cell.source.join('')),
    notebookHtml: notebook.cells.flatMap((cell) => (cell.outputs ?? []).flatMap((output) => (output.data?.['text/html'] ? [output.data['text/html'].join('')] : []))),
  };
}

describe('exports against payloads in every text a technique writes', () => {
  // What the report itself writes (its <style>, <meta charset>): every export of a hostile run may hold exactly that and no more.
  const own = exportsOf('plain text');
  const ownHtml = liveHtml(own.html).sort();

  it('the reports show every technique text (the payloads land where the suite means them to)', () => {
    const marker = 'MARKER-7f3a';
    const exports = exportsOf(marker);
    const count = (text: string): number => text.split(marker).length - 1;
    // Playbook, node questions, answers, program, factors, exact outcomes: each appears in the HTML and the Markdown.
    expect(count(exports.html)).toBeGreaterThanOrEqual(10);
    expect(count(exports.markdown)).toBeGreaterThanOrEqual(10);
    for (const label of ['pearl-program', 'pearl-step', 'pearl-mapping', 'DeLLMa · forecast', 'DeLLMa · frame', 'Playbook']) expect(exports.html, label).toContain(label);
    expect(count(exports.footer)).toBe(1);
    expect(liveHtml('<p>a</p><img src=x onerror=alert(1)><a href=" java&#x73;cript:x">x</a><svg><animate/></svg>')).toEqual(['<img>', '<img onerror>', '<a href=javascript:x>', '<animate>']);
  });

  it(`no export holds a live element, handler or script link from ${payloads.length} payloads`, () => {
    expect(payloads.length).toBeGreaterThanOrEqual(290);
    const html: string[] = [];
    const markdown: Findings = { liveLinks: [], rawHtml: [], rawDefinitions: [], swallowable: [] };
    let documents = 0;
    for (const payload of payloads) {
      const exports = exportsOf(payload);
      const live = liveHtml(exports.html).sort();
      if (JSON.stringify(live) !== JSON.stringify(ownHtml)) html.push(`${JSON.stringify(payload)} → HTML ${live.filter((finding) => !ownHtml.includes(finding)).join(' ')}`);
      for (const fragment of [exports.footer, ...exports.notebookHtml]) {
        const found = liveHtml(fragment);
        if (found.length > 0) html.push(`${JSON.stringify(payload)} → fragment ${found.join(' ')}`);
      }
      documents += 2 + exports.notebookHtml.length;
      for (const document of [exports.markdown, ...exports.notebookMarkdown]) {
        const findings = inspect(document);
        for (const key of Object.keys(markdown) as (keyof Findings)[]) markdown[key].push(...findings[key].map((finding) => `${JSON.stringify(payload)} → ${finding}`));
        documents += 1;
      }
    }
    console.log(
      `technique-text xss: ${payloads.length} payloads in every Pearl, DeLLMa, playbook and Plan*RAG text, ${documents} export documents (HTML/PDF page, PDF footer, Markdown, Jupyter); ` +
        `live HTML ${html.length}, live javascript/data/vbscript links ${markdown.liveLinks.length}, raw HTML in Markdown ${markdown.rawHtml.length}, reference definitions ${markdown.rawDefinitions.length}, autolink-swallowable < ${markdown.swallowable.length}`,
    );
    expect(html.slice(0, 5)).toEqual([]);
    expect(markdown.liveLinks.slice(0, 5)).toEqual([]);
    expect(markdown.rawHtml.slice(0, 5)).toEqual([]);
    expect(markdown.rawDefinitions.slice(0, 5)).toEqual([]);
    expect(markdown.swallowable.slice(0, 5)).toEqual([]);
  }, 300_000);
});
