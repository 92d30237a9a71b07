import type { QueryResult } from '../contract/data';
import { copiedTablesNote } from '../contract/whatif';
import { html, trusted, type Html, type HtmlPart } from './html-escape';
import { markdownToHtml } from './markdown-html';
import { blocksHtml } from './render-blocks';
import { planGraphHtml } from './plan-graph-report';
import { reportCss } from './report-css';
import { formatBytes, formatCount, formatDuration, formatTime, formatValue, plural, reviewLabels, reviewSubjectLabels, reviewText, statusLabel, threadsText } from './report-format';
import type { DecisionRecord, ReviewRecord } from '../audit/run-trace';
import { decidedByText, producedByLines } from '../contract/produced-by';
import type { DecisionReport, PlanVersion, QueryRecord, SimulationRecord, ReportItem, ReportStep, VerificationValue, WhatIfRecord } from './report-model';
import type { ChartRecord } from './report-charts';

export interface HtmlReportOptions {
  /** Rows of each result table shown; the rest are summarised with the full result's digest. */
  maxTableRows: number;
}

export const defaultHtmlReportOptions: HtmlReportOptions = { maxTableRows: 15 };

interface Section {
  id: string;
  title: string;
  body: Html;
  /** Start this section on a new printed page. */
  newPage?: boolean;
}

/**
 * A self-contained HTML report: one file, inline CSS, no script, no external asset, so it opens
 * offline in any browser and prints (or becomes a PDF) as it looks. Every text from the run is
 * escaped; Markdown (the rationale, notes) goes through the sanitising renderer.
 */
export function renderHtmlReport(report: DecisionReport, options: HtmlReportOptions = defaultHtmlReportOptions): string {
  const sections = reportSections(report, options);
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="${report.integrity.generator}">
<title>Decision report — ${report.title}</title>
<style>${trusted(reportCss)}</style>
</head>
<body>
<div class="page">
${cover(report)}
<nav class="toc" aria-label="Contents"><h2>Contents</h2><ol>${sections.map((section, index) => html`<li><span class="num">${index + 1}</span><a href="#${section.id}">${section.title}</a></li>`)}</ol></nav>
${sections.map(
  (section, index) => html`<section class="section${section.newPage ? ' page-break' : ''}" id="${section.id}"><h2><span class="num">${index + 1}</span>${section.title}</h2>${section.body}</section>\n`,
)}
<footer class="report-footer"><span>${report.integrity.generator} · run ${report.runId}</span><span>Integrity head <span class="mono">${report.integrity.head.slice(0, 16)}</span></span></footer>
</div>
</body>
</html>
`;
  return page.value;
}

function reportSections(report: DecisionReport, options: HtmlReportOptions): Section[] {
  const sections: Section[] = [
    { id: 'question', title: 'Question and business rules', body: questionSection(report) },
    { id: 'decision', title: 'Decision and rationale', body: decisionSection(report) },
    { id: 'data', title: 'Data sources', body: dataSection(report) },
    { id: 'method', title: 'Technique and model', body: methodSection(report) },
    { id: 'plans', title: 'Plan history', body: plansSection(report) },
    { id: 'trace', title: 'Step trace', body: traceSection(report, options), newPage: true },
  ];
  if (report.simulations.length > 0 || report.decision?.verification) {
    sections.push({ id: 'simulation', title: 'Simulator verification', body: simulationSection(report), newPage: true });
  }
  for (const section of report.techniqueSections) sections.push({ id: section.id, title: section.title, body: blocksHtml(section.blocks) });
  sections.push(
    { id: 'sign-off', title: 'Analyst review and sign-off', body: signOffSection(report), newPage: report.simulations.length === 0 && !report.decision?.verification },
    { id: 'usage', title: 'Tokens and latency', body: usageSection(report) },
    { id: 'integrity', title: 'Integrity', body: integritySection(report), newPage: true },
  );
  return sections;
}

function playbookLabel(playbook: NonNullable<DecisionReport['playbook']>): string {
  return playbook.version === null ? `from a file, text sha256 ${playbook.sha256.slice(0, 12)}` : `version ${playbook.version.slice(0, 12)} (text sha256 ${playbook.sha256.slice(0, 12)})`;
}

function cover(report: DecisionReport): Html {
  const decision = report.decision;
  const statusTone = report.status === 'answered' ? 'good' : report.status === 'failed' || report.status === 'running' ? 'bad' : 'warn';
  const facts: [string, HtmlPart][] = [
    ['Data source', report.connection.description],
    ['Technique', report.technique.label],
    ...(report.playbook ? [['Playbook', playbookLabel(report.playbook)] as [string, HtmlPart]] : []),
    ...(report.documents.length ? [['Documents', report.documents.map((document) => `${document.name} (${formatCount(document.chars)} characters)`).join('; ')] as [string, HtmlPart]] : []),
    ['Model', report.model.name ?? report.model.description],
    ['Run started', formatTime(report.startedAt)],
    ['Duration', formatDuration(report.durationMs)],
    ['Model calls', formatCount(report.totals.modelCalls)],
    ['Tokens', formatCount(report.totals.totalTokens)],
    ['Queries', `${formatCount(report.totals.queries)}${report.totals.failedQueries ? ` (${report.totals.failedQueries} failed)` : ''}`],
  ];
  const latest = report.signOffs.at(-1);
  return html`<header class="cover">
<div class="eyebrow"><span>Decision report</span><span class="run-id">${report.runId}</span></div>
<h1>${report.title}</h1>
<div class="decision-card${decision ? '' : ' none'}">
  <div class="label">${decision ? 'Recommended decision' : 'No decision'}</div>
  <div class="verdicts"><span class="pill ${statusTone}">${statusLabel(report.status)}</span>${decision ? (decision.verification ? verificationPill(decision.verification) : uncheckedPill(decision)) : null}</div>
  <div class="decision">${decision ? decision.decision : (report.statusMessage ?? 'The run ended without a decision.')}</div>
</div>
<dl class="facts">${facts.map(([label, value]) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`)}</dl>
${
  latest
    ? html`<div class="strip signed"><span class="strip-label">Signed off</span><span><strong>${latest.name}</strong> · ${formatTime(latest.at)}${latest.comment ? html` — “${latest.comment}”` : null} · ${latest.fingerprint ? html`key <span class="hash">${latest.fingerprint}</span>` : 'unsigned'}</span></div>`
    : html`<div class="strip"><span class="strip-label">Sign-off</span><span class="muted">Not signed off</span></div>`
}
<div class="strip"><span class="strip-label">Integrity</span><span>${plural(report.integrity.eventCount, 'event')} hash-chained and sealed · head <span class="hash">${report.integrity.head}</span></span></div>
</header>`;
}

function verificationPill(verification: VerificationValue): Html {
  return verification.agrees
    ? html`<span class="pill good">Simulator: optimal</span>`
    : html`<span class="pill bad">Simulator: best is ${verification.best}</span>`;
}

/** A decision no simulator checked says so, with the reason: never only the green status. */
function uncheckedPill(decision: DecisionRecord): Html {
  return html`<span class="pill warn" data-check="not-checked">Not checked: ${uncheckedWhy(decision)}</span>`;
}

function uncheckedWhy(decision: DecisionRecord): string {
  return decision.unchecked ?? 'no simulator checked it';
}

function questionSection(report: DecisionReport): Html {
  return html`<h3>Question</h3><div class="card quote prose">${report.question}</div>
<h3>Business rules</h3>${report.rules.trim() ? html`<div class="card quote prose">${report.rules}</div>` : html`<p class="muted">No business rules were given.</p>`}`;
}

function decisionSection(report: DecisionReport): Html {
  const decision = report.decision;
  if (!decision) {
    return html`<div class="card note"><strong>${statusLabel(report.status)}.</strong> ${report.statusMessage ?? 'The run ended without a decision.'}</div>`;
  }
  const evidence = decision.evidence.map((id) => report.queries.find((query) => query.id === id)).filter((query): query is QueryRecord => query !== undefined);
  return html`<div class="card"><div class="item-label">Decision</div><div style="font-size:18px;font-weight:700">${decision.decision}</div>${decision.computedBy ? html`<p class="muted small">Computed in code (${decision.computedBy}), not written by the model.</p>` : null}${report.producedBy?.decidedBy ? html`<p class="decided-by">Decided by ${decidedByText(report.producedBy.decidedBy)}</p>` : null}</div>
<h3>Rationale</h3><div class="markdown">${markdownToHtml(decision.rationale)}</div>
<h3>Evidence</h3>${
    evidence.length
      ? html`<ul>${evidence.map((query) => html`<li><a href="#query-${query.id}">Query ${query.id}</a> (step ${query.step}) — ${query.result ? plural(query.result.rowCount, 'row') : 'no result'}</li>`)}</ul>`
      : html`<p class="muted">The decision cites no query.</p>`
  }
<p class="muted small">Given at step ${decision.step}, ${formatTime(decision.at)}.</p>`;
}

function dataSection(report: DecisionReport): Html {
  const fingerprint = report.connection.fingerprint;
  return html`<table class="kv">
<tr><th>Connection</th><td>${report.connection.description}</td></tr>
<tr><th>Engine</th><td>${report.connection.engine}</td></tr>
<tr><th>Schema hash</th><td class="hash">${fingerprint?.schemaHash ?? 'not recorded'}</td></tr>
<tr><th>Database file hash</th><td class="hash">${fingerprint ? (fingerprint.fileHash ?? 'not a file database') : 'not recorded'}</td></tr>
<tr><th>Database file size</th><td>${formatBytes(fingerprint?.fileBytes ?? null)}</td></tr>
<tr><th>Access</th><td>Read-only, enforced by the database engine</td></tr>
</table>
<p class="muted small">The schema hash is sha256 of the schema's structure; the file hash is sha256 of the database file when the run began. <span class="mono">dwb verify --replay</span> re-runs every recorded query to show what changed since.</p>`;
}

function methodSection(report: DecisionReport): Html {
  const model = report.model;
  const settings = model.settings ?? {};
  const setting = (key: string): string | null => (settings[key] === undefined || settings[key] === null ? null : String(settings[key]));
  return html`<p><strong>${report.technique.label}</strong> — ${report.technique.summary}</p>
<table class="kv">
<tr><th>Mode</th><td>${report.mode === 'step' ? 'Step-through: the analyst reviewed each query and re-plan' : 'Automatic'}</td></tr>
<tr><th>Model</th><td>${model.name ?? model.description}${model.servedAs.length && !model.servedAs.includes(model.name ?? '') ? html` <span class="muted">(served as ${model.servedAs.join(', ')})</span>` : null}</td></tr>
<tr><th>Endpoint</th><td class="mono">${model.endpoint ?? setting('baseUrl') ?? model.description}</td></tr>
<tr><th>Temperature</th><td>${model.temperature ?? setting('temperature') ?? 'not recorded'}</td></tr>
<tr><th>Max tokens per reply</th><td>${model.maxTokens ?? setting('maxTokens') ?? 'not recorded'}</td></tr>
${model.threads ? html`<tr><th>CPU threads</th><td>${threadsText(model.threads)}</td></tr>` : null}
<tr><th>Tool protocol</th><td>${model.toolMode === 'tools' ? 'Native tool calling' : 'Plain-text protocol'}</td></tr>
<tr><th>Limits</th><td>${plural(report.limits.maxSteps, 'model call')}, ${report.limits.maxTokens === null ? 'no token limit' : `${formatCount(report.limits.maxTokens)} tokens`}, ${formatDuration(report.limits.maxDurationMs)}</td></tr>
</table>
<h3>Produced by</h3>${
    report.producedBy
      ? html`<table class="kv" data-section="produced-by">${producedByLines(report.producedBy).map((line) => html`<tr><th>${line.label}</th><td>${line.value}</td></tr>`)}</table>`
      : html`<p class="muted">Not recorded.</p>`
  }`;
}

function plansSection(report: DecisionReport): Html {
  if (report.plans.length === 0) return html`<p class="muted">${report.technique.label} does not plan: the model queried and answered directly.</p>`;
  return html`${report.planGraph ? html`<h3>Plan graph</h3>${planGraphHtml(report.planGraph)}` : null}${report.plans.map(planVersion)}`;
}

function planVersion(plan: PlanVersion): Html {
  const title = plan.version === 0 ? 'Initial plan' : `Re-plan ${plan.version}`;
  return html`<div class="plan-version">
<header><strong>${title}</strong><span class="muted small">step ${plan.step} · by ${plan.author} · ${formatTime(plan.at)}</span></header>
${plan.reason !== null ? html`<p class="reason"><strong>Why:</strong> ${plan.reason}</p>` : null}
${planList(plan)}
</div>`;
}

function planList(plan: PlanVersion): Html {
  const lines = plan.diff ?? plan.steps.map((text) => ({ op: 'same' as const, text }));
  return html`<ol class="plan">${lines.map((line) => html`<li class="${line.op}">${line.text}</li>`)}</ol>`;
}

function traceSection(report: DecisionReport, options: HtmlReportOptions): Html {
  const steps = report.steps.filter((step) => step.call !== null || step.items.length > 0);
  if (steps.length === 0) return html`<p class="muted">The run made no model call.</p>`;
  return html`<p class="muted">Every model call of the run, with what it produced. Queries show their full text and the first ${options.maxTableRows} rows of their result; the digest identifies the full result.</p>${steps.map((step) => stepCard(step, report, options))}`;
}

function stepCard(step: ReportStep, report: DecisionReport, options: HtmlReportOptions): Html {
  const call = step.call;
  const chips: string[] = call
    ? [call.usage ? `${formatCount(call.usage.totalTokens)} tokens` : 'tokens not reported', formatDuration(call.latencyMs), call.toolCalls.length ? `called ${call.toolCalls.join(', ')}` : 'no tool call']
    : [];
  return html`<article class="step" id="step-${step.step}">
<header><h3>${step.step === 0 ? 'Before the first model call' : `Step ${step.step}`}</h3><div class="chips">${chips.map((chip) => html`<span class="chip">${chip}</span>`)}</div></header>
<div class="body">${step.items.length ? step.items.map((item) => traceItem(item, report, options)) : html`<div class="item muted">The model's reply carried no usable action.</div>`}</div>
</article>`;
}

function traceItem(item: ReportItem, report: DecisionReport, options: HtmlReportOptions): Html {
  switch (item.kind) {
    case 'thought':
      return html`<div class="item thought"><div class="item-label">Thought</div><div class="prose">${item.text}</div></div>`;
    case 'plan':
      return html`<div class="item"><div class="item-label">${item.plan.version === 0 ? 'Plan' : `Re-plan ${item.plan.version} (by ${item.plan.author})`}</div>${item.plan.reason !== null ? html`<p class="reason"><strong>Why:</strong> ${item.plan.reason}</p>` : null}${planList(item.plan)}</div>`;
    case 'query':
      return queryBlock(item.query, options);
    case 'observation':
      return html`<div class="item"><div class="item-label">Observation</div><div class="prose">${item.text}</div></div>`;
    case 'review': {
      const review = item.review;
      return html`<div class="item review"><div class="item-label">Analyst ${reviewLabels[review.action]} the ${reviewSubjectLabels[review.subject]}</div>${
        review.action === 'edit' && review.edited !== null
          ? html`<div class="muted small">The model's version (−) and the analyst's (+):</div>${reviewDiff(review)}`
          : review.action === 'skip' || review.action === 'stop'
            ? html`<div class="muted small">${review.action === 'skip' ? 'The skipped' : 'The pending'} ${reviewSubjectLabels[review.subject]}:</div>${reviewDiff(review)}`
            : null
      }${review.note ? html`<div class="card note">${review.note}</div>` : null}</div>`;
    }
    case 'repair':
      return html`<div class="item repair"><div class="item-label">Unusable reply</div><div class="prose">${item.problem} — the model was asked again.</div></div>`;
    case 'simulation':
      return html`<div class="item"><div class="item-label">Simulation</div>${simulationSummary(item.simulation)}</div>`;
    case 'whatif':
      return html`<div class="item"><div class="item-label">What-if on a copy of the data</div>${whatIfSummary(item.whatif)}</div>`;
    case 'decision':
      return html`<div class="item"><div class="item-label">Decision</div><a href="#decision">${report.decision?.decision ?? ''}</a></div>`;
    case 'technique':
      return html`<div class="item"><div class="item-label">${item.label}</div>${blocksHtml(item.blocks)}</div>`;
    case 'other':
      return html`<div class="item"><div class="item-label">${item.type}</div><pre class="observation">${JSON.stringify(item.fields, null, 2)}</pre></div>`;
  }
}

function queryBlock(query: QueryRecord, options: HtmlReportOptions): Html {
  const status = query.error
    ? html`<span class="pill bad">${query.error.code}</span>`
    : query.result
      ? html`<span class="chip">${plural(query.result.rowCount, 'row')}${query.result.truncated ? ' (capped)' : ''} · ${formatDuration(query.result.elapsedMs)}</span>`
      : html`<span class="chip">no result recorded</span>`;
  return html`<div class="item query" id="query-${query.id}">
<div class="query-head"><span class="item-label" style="margin:0">Query</span><span class="qid">${query.id}</span><span class="muted small">by ${query.author}</span>${status}${query.evidence ? html`<span class="evidence-mark">★ evidence for the decision</span>` : null}</div>
<pre class="code">${query.text}</pre>
${query.params && Object.keys(query.params).length ? html`<table class="kv small">${Object.entries(query.params).map(([name, value]) => html`<tr><th class="mono">${name}</th><td class="mono">${JSON.stringify(value)}</td></tr>`)}</table>` : null}
${query.error ? html`<div class="error-box">${query.error.message}</div>` : null}
${query.result ? resultTable(query.result, query.digest, options.maxTableRows) : null}
${query.observation ? html`<div class="muted small" style="margin-top:6px">What the model was shown:</div><pre class="observation">${clipLines(query.observation, 14)}</pre>` : null}
</div>`;
}

/** The first rows of a result, with the row count and the digest of the whole result. */
export function resultTable(result: QueryResult, digest: string | null, maxRows: number): Html {
  const shown = result.rows.slice(0, maxRows);
  const numeric = result.columns.map((_column, index) => shown.length > 0 && shown.every((row) => row[index] === null || typeof row[index] === 'number'));
  const note =
    result.rows.length > shown.length
      ? `Showing ${formatCount(shown.length)} of ${formatCount(result.rowCount)} rows${result.truncated ? ' (the query hit the row cap; more rows exist)' : ''}.`
      : `${plural(result.rowCount, 'row')}${result.truncated ? ' (the query hit the row cap; more rows exist)' : ', complete'}.`;
  return html`<div class="table-wrap"><table class="result">
<thead><tr>${result.columns.map((column, index) => html`<th class="${numeric[index] ? 'num' : ''}">${column.name}${column.type ? html`<span class="type">${column.type}</span>` : null}</th>`)}</tr></thead>
<tbody>${shown.map((row) => html`<tr>${row.map((value, index) => html`<td class="${value === null ? 'null' : numeric[index] ? 'num' : ''}">${formatValue(value)}</td>`)}</tr>`)}</tbody>
</table></div>
<div class="result-note">${note}${digest ? html` sha256 of the full result: <span class="hash">${digest}</span>` : null}</div>`;
}

function clipLines(text: string, maxLines: number): string {
  const lines = text.split('\n');
  return lines.length <= maxLines ? text : `${lines.slice(0, maxLines).join('\n')}\n… ${lines.length - maxLines} more lines (in the bundle)`;
}

function simulationSection(report: DecisionReport): Html {
  const verification = report.decision?.verification;
  return html`${
    verification
      ? html`<div class="card verification">${verificationPill(verification)}<div>The decision <strong>${verification.decision}</strong> ${
          verification.agrees ? 'is the simulator’s optimum' : html`is not the simulator’s optimum <strong>${verification.best}</strong>`
        }${verification.tied.length > 1 ? html` (tied: ${verification.tied.join(', ')})` : null} on <em>${verification.objective}</em>${
          verification.regret !== null && !verification.agrees ? html`; regret ${formatValue(verification.regret)}` : null
        }.</div></div>`
      : report.decision
        ? html`<p class="muted">Not checked: ${uncheckedWhy(report.decision)}.</p>`
        : html`<p class="muted">The decision was not checked by a simulator.</p>`
  }${report.simulations.map((simulation) => html`<h3>Simulation at step ${simulation.step}</h3>${simulationSummary(simulation)}`)}`;
}

function simulationSummary(simulation: SimulationRecord): Html {
  const result = simulation.result;
  const top = result.candidates.slice(0, 10);
  return html`<p class="small">${result.direction === 'maximize' ? 'Maximise' : 'Minimise'} <em>${result.objective}</em> over ${result.candidateSet}: best <strong>${result.best}</strong>${
    result.margin !== null ? html`, ahead by ${formatValue(result.margin)}` : null
  }${simulation.requested ? html` · candidates asked for: ${simulation.requested.join(', ')}` : null}.</p>
<table class="data"><thead><tr><th class="num">Rank</th><th>Candidate</th><th class="num">Before</th><th class="num">After</th><th class="num">Change</th></tr></thead>
<tbody>${top.map((candidate) => html`<tr><td class="num">${candidate.rank}</td><td>${candidate.candidate}</td><td class="num">${formatValue(candidate.before)}</td><td class="num">${formatValue(candidate.after)}</td><td class="num">${formatValue(candidate.delta)}</td></tr>`)}</tbody></table>
${result.candidates.length > top.length ? html`<p class="muted small">${result.candidates.length - top.length} more candidates in the bundle.</p>` : null}
${result.notes.length ? html`<ul class="small">${result.notes.map((note) => html`<li>${note}</li>`)}</ul>` : null}`;
}

function whatIfSummary(whatif: WhatIfRecord): Html {
  const statements = html`<pre class="observation">change:    ${whatif.spec.change}
objective: ${whatif.spec.objective}${
    whatif.spec.candidatesQuery ? `\ncandidates: ${whatif.spec.candidatesQuery}` : ''
  }</pre>`;
  const result = whatif.result;
  if (!result) return html`${statements}<p class="small"><strong>Failed</strong> (${whatif.error?.code ?? 'error'}): ${whatif.error?.message ?? ''}</p>`;
  const top = result.rows.slice(0, 10);
  return html`${statements}<p class="small">${result.direction === 'maximize' ? 'Maximise' : 'Minimise'} the objective: best <strong>${String(result.best)}</strong>${
    result.margin !== null ? html`, ahead by ${formatValue(result.margin)}` : null
  }${result.tied.length > 1 ? html` (tied with ${result.tied.filter((candidate) => candidate !== result.best).map(String).join(', ')})` : null}. Source unchanged: <code>${result.sourceDigestAfter}</code>${copiedTablesNote(result)}.</p>
<table class="data"><thead><tr><th class="num">Rank</th><th>Candidate</th><th class="num">Before</th><th class="num">After</th><th class="num">Change</th><th class="num">Rows changed</th></tr></thead>
<tbody>${top.map((row) => html`<tr><td class="num">${row.rank}</td><td>${String(row.candidate)}</td><td class="num">${formatValue(row.before)}</td><td class="num">${formatValue(row.after)}</td><td class="num">${formatValue(row.delta)}</td><td class="num">${row.changedRows}</td></tr>`)}</tbody></table>
${result.rows.length > top.length ? html`<p class="muted small">${result.rows.length - top.length} more candidates in the bundle.</p>` : null}
${result.notes.length ? html`<ul class="small">${result.notes.map((note) => html`<li>${note}</li>`)}</ul>` : null}`;
}

/** A review's query or plan; an edit as a line diff of the model's version against the analyst's. */
function reviewDiff(review: ReviewRecord): Html {
  return html`<pre class="observation review-diff">${reviewText(review).map((line) => html`<span class="${line.op}">${line.op === 'added' ? '+ ' : line.op === 'removed' ? '− ' : '  '}${line.text}\n</span>`)}</pre>`;
}

function signOffSection(report: DecisionReport): Html {
  return html`<h3>Reviews during the run</h3>${
    report.reviews.length
      ? html`<table class="data reviews"><thead><tr><th>Step</th><th>Time</th><th>Action</th><th>Query or plan (− the model's, + the analyst's)</th><th>Note</th></tr></thead><tbody>${report.reviews.map(
          (review) =>
            html`<tr><td>${review.step}</td><td>${formatTime(review.at)}</td><td>${reviewLabels[review.action]} the ${reviewSubjectLabels[review.subject]}</td><td>${reviewDiff(review)}</td><td>${review.note ?? ''}</td></tr>`,
        )}</tbody></table>`
      : html`<p class="muted">${report.mode === 'step' ? 'No review was recorded.' : 'The run was automatic: no step was reviewed while it ran.'}</p>`
  }
${report.notes.length ? html`<h3>Analyst notes</h3>${report.notes.map((note) => html`<div class="card note markdown">${markdownToHtml(note)}</div>`)}` : null}
${report.charts.length ? html`<h3>Charts</h3>${report.charts.map(chartCard)}` : null}
<h3>Sign-off</h3>${
    report.signOffs.length
      ? report.signOffs.map(
          (signOff) => html`<div class="card"><div><strong>${signOff.name}</strong> <span class="muted">signed off on ${formatTime(signOff.at)}</span></div>${signOff.comment ? html`<div class="prose" style="margin-top:6px">${signOff.comment}</div>` : null}<div class="muted small" style="margin-top:6px">${signOff.fingerprint ? html`Signed with key <span class="hash">${signOff.fingerprint}</span> · ` : 'Not signed with a key · '}seal entry <span class="hash">${signOff.hash}</span></div></div>`,
        )
      : html`<p class="muted">Not signed off. A sign-off is added at export (<span class="mono">dwb report --signed-by NAME</span> or the export dialog) and sealed into the bundle.</p>`
  }`;
}

function usageSection(report: DecisionReport): Html {
  const calls = report.steps.flatMap((step) => (step.call ? [step.call] : []));
  if (calls.length === 0) return html`<p class="muted">No model call was made.</p>`;
  const cell = (value: number | undefined): string => (value === undefined ? '—' : formatCount(value));
  return html`<table class="data"><thead><tr><th>Step</th><th>Tools offered</th><th>Called</th><th class="num">Prompt</th><th class="num">Completion</th><th class="num">Total</th><th class="num">Latency</th></tr></thead>
<tbody>${calls.map(
    (call) =>
      html`<tr><td><a href="#step-${call.step}">${call.step}</a></td><td>${call.toolsOffered.join(', ')}</td><td>${call.toolCalls.join(', ') || '—'}</td><td class="num">${cell(call.usage?.promptTokens)}</td><td class="num">${cell(call.usage?.completionTokens)}</td><td class="num">${cell(call.usage?.totalTokens)}</td><td class="num">${formatDuration(call.latencyMs)}</td></tr>`,
  )}</tbody>
<tfoot><tr><td colspan="3">${plural(calls.length, 'model call')}</td><td class="num">${formatCount(report.totals.promptTokens)}</td><td class="num">${formatCount(report.totals.completionTokens)}</td><td class="num">${formatCount(report.totals.totalTokens)}</td><td class="num">${formatDuration(report.totals.latencyMs)}</td></tr></tfoot></table>`;
}

function integritySection(report: DecisionReport): Html {
  const integrity = report.integrity;
  return html`<p>Every event of this run — each model request and reply, query, result digest, observation, plan, re-plan, review and the decision — was appended to a log in which each entry carries the sha256 hash of the entry before it. At export the log was sealed: a seal entry chained to the last event records the hash of every transcript line and notebook cell, and each sign-off is chained after it. Changing, removing or reordering anything changes the head below.</p>
<table class="kv">
<tr><th>Head (last seal entry)</th><td class="hash"><strong>${integrity.head}</strong></td></tr>
<tr><th>Run-log events</th><td>${formatCount(integrity.eventCount)}</td></tr>
<tr><th>First event hash</th><td class="hash">${integrity.firstEventHash}</td></tr>
<tr><th>Last event hash</th><td class="hash">${integrity.lastEventHash}</td></tr>
<tr><th>Seal entries</th><td>${formatCount(integrity.sealEntries)} (the bundle record${report.signOffs.length ? ` and ${plural(report.signOffs.length, 'sign-off')}` : ''})</td></tr>
<tr><th>Transcript lines sealed</th><td>${formatCount(integrity.transcriptLines)}</td></tr>
<tr><th>Notebook cells sealed</th><td>${formatCount(integrity.notebookCells)}</td></tr>
<tr><th>Sealed</th><td>${formatTime(integrity.sealedAt)} by ${integrity.generator}</td></tr>
<tr><th>Signed by</th><td>${integrity.signer ? html`${integrity.signer.name}, Ed25519 key <span class="hash">${integrity.signer.fingerprint}</span>` : 'nobody: the seal is unsigned'}</td></tr>
<tr><th>Algorithm</th><td>sha256 over canonical JSON (keys sorted)</td></tr>
</table>
<h3>How to verify</h3>
<p>The JSON bundle exported with this report holds the run log, the model transcript, the notebook and the seal. Run <span class="mono">npx dwb verify BUNDLE.json</span>: it prints <span class="mono">verified</span> and who signed each seal entry (<span class="mono">signed by NAME (FINGERPRINT)</span> for a key you trust, see <span class="mono">--trusted-keys</span>), or names the first event, section or signature that fails. Add <span class="mono">--head ${integrity.head.slice(0, 16)}…</span> (the full head above) to check that it is this very bundle, and <span class="mono">--replay --connection URI</span> to re-run every recorded query and list the results that changed since.</p>
${report.unknownEvents ? html`<p class="muted small">${plural(report.unknownEvents, 'event')} of a type this workbench does not know ${report.unknownEvents === 1 ? 'is' : 'are'} shown as recorded.</p>` : null}`;
}

/** A chart as its settings in words, its query, and the table it draws (the values behind each bar or point). */
function chartCard(chart: ChartRecord): Html {
  return html`<div class="card chart" data-chart-cell="${chart.cellId}"><p><strong>${chart.description}</strong></p><pre class="sql">${chart.query}</pre>${
    chart.table ? resultTable(chart.table, null, 50) : html`<p class="muted">${chart.problem ?? ''}</p>`
  }${chart.notes.length ? html`<p class="muted small">Chart: ${chart.notes.join('; ')}.</p>` : null}</div>`;
}
