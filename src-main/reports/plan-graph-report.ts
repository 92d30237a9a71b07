import { layoutPlanGraph, planGraphEvents, readPlanNodeOutcome, type PlanGraphLayout, type PlanGraphNode, type PlanNodeOutcome } from '../contract/plan-graph';
import type { PlanVersion, QueryRecord, StepRecord } from '../audit/run-trace';
import { html, type Html } from './html-escape';
import { markdownCell, markdownCode, markdownLiteral } from './markdown-text';

/** The run's last plan as a graph, with what each node found: what reports draw for a plan of nodes. */
export interface PlanGraphReport {
  layout: PlanGraphLayout;
  /** Query texts by node, in the order they ran. */
  queries: Record<string, string[]>;
}

/**
 * The graph of the run's last plan, when it is more than a list: a technique that reports node
 * states (`planGraphEvents`, as Plan*RAG does) or a plan that branches. A linear plan is already
 * the numbered list of the plan history.
 */
export function planGraphReport(plans: readonly PlanVersion[], steps: readonly StepRecord[], queries: readonly QueryRecord[]): PlanGraphReport | null {
  const plan = plans.at(-1);
  if (!plan || plan.nodes.length === 0) return null;
  const outcomes = new Map<string, PlanNodeOutcome>();
  let tracked = false;
  for (const step of steps) {
    for (const item of step.items) {
      if (item.kind !== 'other' || item.type !== 'tool') continue;
      if (item.fields['tool'] === planGraphEvents.plan) tracked = true;
      const node = item.fields['node'];
      const outcome = item.fields['tool'] === planGraphEvents.node && typeof node === 'string' ? readPlanNodeOutcome(item.fields['input']) : null;
      if (outcome && typeof node === 'string') outcomes.set(node, outcome);
    }
  }
  const branches = plan.nodes.some((node) => node.dependsOn.length > 1) || plan.nodes.filter((node) => node.dependsOn.length === 0).length > 1;
  if (!tracked && !branches) return null;
  const byNode: Record<string, string[]> = {};
  for (const query of queries) if (query.node) (byNode[query.node] ??= []).push(query.text);
  return { layout: layoutPlanGraph(plan.nodes, { outcomes, tracked, live: false, nodeWidth: 200, nodeHeight: 64 }), queries: byNode };
}

const statusColors: Record<PlanGraphNode['status'], { fill: string; stroke: string }> = {
  answered: { fill: '#eef8f2', stroke: '#2f8a55' },
  failed: { fill: '#fdeeee', stroke: '#c93a3a' },
  blocked: { fill: '#f1f2f5', stroke: '#8a93a6' },
  running: { fill: '#e8eefe', stroke: '#3b6ef5' },
  pending: { fill: '#ffffff', stroke: '#8a93a6' },
  step: { fill: '#ffffff', stroke: '#8a93a6' },
};

/** The graph as a static inline SVG (dagre's layout computed here; every text escaped), then each node's question, query and answer. */
export function planGraphHtml(graph: PlanGraphReport): Html {
  const { layout } = graph;
  const svg = html`<svg class="plan-graph" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Plan graph" viewBox="0 0 ${layout.width} ${layout.height}" width="${layout.width}" height="${layout.height}" style="max-width:100%;height:auto">
<defs><marker id="plan-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#8a93a6"/></marker></defs>
${layout.edges.map((edge) => html`<path d="${edge.points.map((point, index) => `${index === 0 ? 'M' : 'L'}${point.x.toFixed(1)},${point.y.toFixed(1)}`).join(' ')}" fill="none" stroke="${edge.critical ? '#a86a00' : '#8a93a6'}" stroke-width="${edge.critical ? 2.5 : 1.2}" marker-end="url(#plan-arrow)"/>`)}
${layout.nodes.map(nodeSvg)}
</svg>`;
  return html`<figure class="plan-graph-figure">${svg}<figcaption class="muted small">${layout.levels.length} level${layout.levels.length === 1 ? '' : 's'} (widths ${layout.levels.map((level) => level.length).join(', ')}); critical path ${layout.criticalPath.join(' → ')} (thick border).</figcaption></figure>
<table class="plan-nodes"><thead><tr><th>Node</th><th>Parents</th><th>State</th><th>Question</th><th>Query</th><th>Answer</th><th>Tokens (prompt / completion)</th><th>Latency</th></tr></thead><tbody>
${layout.nodes.map(
  (node) =>
    html`<tr><td class="mono">${node.id}</td><td class="mono">${node.dependsOn.join(', ') || '—'}</td><td>${stateOf(node)}</td><td>${node.outcome?.question ?? node.text}</td><td>${(graph.queries[node.id] ?? []).map((query) => html`<pre class="query">${query}</pre>`)}</td><td>${answerOf(node)}</td><td>${nodeFigures(node).tokens}</td><td>${nodeFigures(node).latency}</td></tr>`,
)}
</tbody></table>`;
}

/** A node's state as the report names it; a pinned answer [ext] says so. */
function stateOf(node: PlanGraphNode): string {
  if (node.outcome?.pinned) return 'pinned by the analyst';
  return node.status === 'step' ? '' : node.status;
}

function nodeSvg(node: PlanGraphNode): Html {
  const colors = statusColors[node.status];
  const question = node.outcome?.question ?? node.text;
  const lines = wrap(question, 30, 2);
  const tooltip = [`${node.id}: ${question}`, node.outcome?.answer ? `Answer: ${node.outcome.answer}` : '', node.outcome?.failure ?? ''].filter(Boolean).join('\n');
  return html`<g class="plan-node"><title>${tooltip}</title><rect x="${node.x.toFixed(1)}" y="${node.y.toFixed(1)}" width="${node.width}" height="${node.height}" rx="7" fill="${colors.fill}" stroke="${node.critical ? '#a86a00' : colors.stroke}" stroke-width="${node.critical ? 2.5 : 1.2}"/>
<text x="${(node.x + 8).toFixed(1)}" y="${(node.y + 16).toFixed(1)}" font-size="11" font-weight="700" fill="#1c2230">${node.id}${node.status === 'step' ? '' : html`<tspan font-weight="400" fill="${colors.stroke}"> · ${stateOf(node)}</tspan>`}</text>
${lines.map((line, index) => html`<text x="${(node.x + 8).toFixed(1)}" y="${(node.y + 32 + index * 14).toFixed(1)}" font-size="10.5" fill="#1c2230">${line}</text>`)}</g>`;
}

/** Words on at most `maxLines` lines of about `width` characters, the last cut with an ellipsis. */
function wrap(text: string, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return lines.map((entry) => (entry.length > width + 8 ? `${entry.slice(0, width)}…` : entry));
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = `${(kept[maxLines - 1] ?? '').slice(0, width - 1)}…`;
  return kept;
}

function answerOf(node: PlanGraphNode): string {
  const outcome = node.outcome;
  if (!outcome) return '';
  if (outcome.status === 'blocked') return `blocked by ${outcome.blockedBy.join(', ')}`;
  if (outcome.status === 'failed') return outcome.failure ?? 'failed';
  return [outcome.answer ?? '', outcome.explanation ? `(${outcome.explanation})` : ''].filter(Boolean).join(' ');
}

/** The graph as an indented list, a node under the level before it, with its parents, question, query and answer. */
export function planGraphMarkdown(graph: PlanGraphReport): string {
  const { layout } = graph;
  const lines = [`Levels: ${layout.levels.length} (widths ${layout.levels.map((level) => level.length).join(', ')}); critical path: ${layout.criticalPath.map(markdownLiteral).join(' → ')}.`, ''];
  for (const node of [...layout.nodes].sort((a, b) => a.level - b.level)) {
    const indent = '  '.repeat(node.level);
    const state = node.status === 'step' ? '' : `, ${stateOf(node)}`;
    lines.push(`${indent}- **${markdownLiteral(node.id)}** (level ${node.level}${state}${node.critical ? ', critical path' : ''}) ← ${node.dependsOn.length ? node.dependsOn.map(markdownLiteral).join(', ') : 'no parents'}`);
    lines.push(`${indent}  - question: ${markdownLiteral(node.outcome?.question ?? node.text)}`);
    for (const query of graph.queries[node.id] ?? []) lines.push(`${indent}  - query: ${markdownCode(query)}`);
    const answer = answerOf(node);
    if (answer) lines.push(`${indent}  - answer: ${markdownLiteral(answer)}`);
  }
  return lines.join('\n');
}

/** A node's tokens and latency as reports print them; a node that made no call (blocked, planned) shows a dash, not a zero. */
function nodeFigures(node: PlanGraphNode): { tokens: string; latency: string } {
  const outcome = node.outcome;
  if (!outcome || outcome.status === 'blocked') return { tokens: '—', latency: '—' };
  return { tokens: `${outcome.promptTokens} / ${outcome.completionTokens}`, latency: outcome.latencyMs === null ? '—' : `${outcome.latencyMs} ms` };
}

/**
 * Every node of the graph as one row of a Markdown table, with what it cost: level, parents,
 * state, resolved question, answer, the prompt and completion tokens of its calls, its latency.
 */
export function planGraphTable(graph: PlanGraphReport): string {
  const header = ['| Node | Level | Parents | Status | Question | Answer | Tokens (prompt / completion) | Latency |', '|---|---|---|---|---|---|---|---|'];
  const rows = [...graph.layout.nodes]
    .sort((a, b) => a.level - b.level)
    .map((node) => {
      const outcome = node.outcome;
      const figures = nodeFigures(node);
      const cells = [
        markdownCell(node.id),
        String(node.level),
        node.dependsOn.length ? markdownCell(node.dependsOn.join(', ')) : '—',
        markdownCell(stateOf(node) || 'planned'),
        markdownCell(outcome?.question ?? node.text),
        markdownCell(answerOf(node)) || '—',
        figures.tokens,
        figures.latency,
      ];
      return `| ${cells.join(' | ')} |`;
    });
  return [...header, ...rows].join('\n');
}
