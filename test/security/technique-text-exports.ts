import { createHash } from 'node:crypto';

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
import { payloads as markdownPayloads } from '../unit/reports/markdown-inspection';

/**
 * A run holding one payload in every text the techniques write (Pearl, DeLLMa, the AutoPlan
 * playbook, Plan*RAG nodes) and its four exports, for technique-text-xss.test.ts and the
 * Chromium check of the HTML export (test/e2e/technique-text-xss.test.ts).
 */

/** Payloads aimed at HTML contexts the exports write into (pre, SVG text, attributes, style), on top of the Markdown ones. */
export const htmlVectors = [
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
export const payloads = [...markdownPayloads, ...htmlVectors];

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

export interface Exports {
  html: string;
  footer: string;
  markdown: string;
  notebookMarkdown: string[];
  notebookHtml: string[];
}

export function exportsOf(payload: string): Exports {
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
