import type { QueryResult } from '../contract/data';
import { copiedTablesNote } from '../contract/whatif';
import { blocksMarkdown } from './render-blocks';
import { planGraphMarkdown, planGraphTable } from './plan-graph-report';
import { markdownSanitized } from './markdown-sanitized';
import { markdownCell, markdownCode, markdownFence, markdownLiteral } from './markdown-text';
import { formatBytes, formatCount, formatDuration, formatTime, formatValue, plural, reviewLabels, reviewSubjectLabels, reviewTextPlain, statusLabel, threadsText } from './report-format';
import type { ChartRecord } from './report-charts';
import type { DecisionReport, PlanVersion, QueryRecord, ReportItem, ReportStep } from './report-model';
import { decidedByText, producedByLines } from '../contract/produced-by';

export interface MarkdownReportOptions {
  maxTableRows: number;
}

/**
 * The report as Markdown, section for section like the HTML one, for wikis, tickets and diffs.
 * Text from the run is escaped (literal) or sanitised (the rationale), queries are fenced.
 */
export function renderMarkdownReport(report: DecisionReport, options: MarkdownReportOptions = { maxTableRows: 15 }): string {
  const parts: string[] = [];
  const latest = report.signOffs.at(-1);
  parts.push(`# Decision report: ${markdownLiteral(report.title)}`);
  parts.push(
    [
      `**Decision:** ${report.decision ? markdownLiteral(report.decision.decision) : `none — ${markdownLiteral(report.statusMessage ?? statusLabel(report.status))}`}  `,
      `**Status:** ${statusLabel(report.status)}${checkNote(report)}  `,
      `**Signed off:** ${latest ? `${markdownLiteral(latest.name)}, ${markdownLiteral(formatTime(latest.at))}${latest.comment ? ` — “${markdownLiteral(latest.comment)}”` : ''}${keyNote(latest.fingerprint)}` : 'not signed off'}  `,
      `**Integrity head:** ${markdownCode(report.integrity.head)}`,
    ].join('\n'),
  );
  parts.push(
    table(
      ['Data source', 'Technique', 'Model', 'Started', 'Duration', 'Model calls', 'Tokens', 'Queries'],
      [[report.connection.description, report.technique.label, report.model.name ?? report.model.description, formatTime(report.startedAt), formatDuration(report.durationMs), formatCount(report.totals.modelCalls), formatCount(report.totals.totalTokens), formatCount(report.totals.queries)]],
    ),
  );
  const sections: [string, string, string][] = [
    ['question', 'Question and business rules', questionSection(report)],
    ['decision', 'Decision and rationale', decisionSection(report)],
    ['data', 'Data sources', dataSection(report)],
    ['method', 'Technique and model', methodSection(report)],
    ['plans', 'Plan history', report.plans.length ? [...(report.planGraph ? [`### Plan graph\n\n${planGraphMarkdown(report.planGraph)}\n\n${planGraphTable(report.planGraph)}`] : []), ...report.plans.map(planVersion)].join('\n\n') : `${report.technique.label} does not plan.`],
    ['trace', 'Step trace', report.steps.filter((step) => step.call || step.items.length).map((step) => stepSection(step, options)).join('\n\n') || 'No model call was made.'],
  ];
  if (report.simulations.length || report.decision?.verification) sections.push(['simulation', 'Simulator verification', simulationSection(report)]);
  for (const section of report.techniqueSections) sections.push([section.id, section.title, blocksMarkdown(section.blocks)]);
  sections.push(['sign-off', 'Analyst review and sign-off', signOffSection(report)], ['usage', 'Tokens and latency', usageSection(report)], ['integrity', 'Integrity', integritySection(report)]);
  parts.push(`## Contents\n\n${sections.map(([id, title], index) => `${index + 1}. [${title}](#${id})`).join('\n')}`);
  sections.forEach(([id, title, body], index) => parts.push(`<a id="${id}"></a>\n\n## ${index + 1}. ${title}\n\n${body}`));
  return `${parts.join('\n\n')}\n`;
}

function table(header: string[], rows: string[][]): string {
  return [`| ${header.map(markdownCell).join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`, ...rows.map((row) => `| ${row.map(markdownCell).join(' | ')} |`)].join('\n');
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${markdownLiteral(line)}`)
    .join('\n');
}

function questionSection(report: DecisionReport): string {
  return `### Question\n\n${quote(report.question)}\n\n### Business rules\n\n${report.rules.trim() ? quote(report.rules) : 'No business rules were given.'}`;
}

function decisionSection(report: DecisionReport): string {
  const decision = report.decision;
  if (!decision) return `**${statusLabel(report.status)}.** ${markdownLiteral(report.statusMessage ?? 'The run ended without a decision.')}`;
  const evidence = decision.evidence.map((id) => `- Query ${markdownLiteral(id)} (see the step trace)`).join('\n');
  const computed = `${decision.computedBy ? `\n\n*Computed in code (${markdownLiteral(decision.computedBy)}), not written by the model.*` : ''}${report.producedBy?.decidedBy ? `\n\nDecided by ${markdownLiteral(decidedByText(report.producedBy.decidedBy))}.` : ''}`;
  return `**${markdownLiteral(decision.decision)}**${computed}\n\n### Rationale\n\n${markdownSanitized(decision.rationale)}\n\n### Evidence\n\n${evidence || 'The decision cites no query.'}`;
}

function dataSection(report: DecisionReport): string {
  const fingerprint = report.connection.fingerprint;
  return table(
    ['Field', 'Value'],
    [
      ['Connection', report.connection.description],
      ['Engine', report.connection.engine],
      ['Schema hash', fingerprint?.schemaHash ?? 'not recorded'],
      ['Database file hash', fingerprint ? (fingerprint.fileHash ?? 'not a file database') : 'not recorded'],
      ['Database file size', formatBytes(fingerprint?.fileBytes ?? null)],
      ['Access', 'read-only, enforced by the database engine'],
    ],
  );
}

function methodSection(report: DecisionReport): string {
  const model = report.model;
  const settings = model.settings ?? {};
  const setting = (key: string): string => (settings[key] === undefined || settings[key] === null ? 'not recorded' : String(settings[key]));
  return `**${report.technique.label}** — ${report.technique.summary}\n\n${table(
    ['Setting', 'Value'],
    [
      ['Mode', report.mode === 'step' ? 'step-through' : 'automatic'],
      ...(report.playbook ? [['Playbook', `version ${report.playbook.version ?? 'none (a file)'}, text sha256 ${report.playbook.sha256}`]] : []),
      ...report.documents.map((document) => ['Document', `${document.name}: ${document.chars} characters, text sha256 ${document.sha256}`]),
      ['Model', model.name ?? model.description],
      ['Endpoint', model.endpoint ?? setting('baseUrl')],
      ['Temperature', String(model.temperature ?? setting('temperature'))],
      ['Max tokens per reply', String(model.maxTokens ?? setting('maxTokens'))],
      ...(model.threads ? [['CPU threads', threadsText(model.threads)]] : []),
      ['Tool protocol', model.toolMode === 'tools' ? 'native tool calling' : 'plain-text protocol'],
      ['Limits', `${plural(report.limits.maxSteps, 'model call')}, ${report.limits.maxTokens === null ? 'no token limit' : `${report.limits.maxTokens} tokens`}, ${formatDuration(report.limits.maxDurationMs)}`],
    ],
  )}

### Produced by

${producedByMarkdown(report)}`;
}

/** The produced-by record as a two-column table (the same lines as every other report and the results files). */
export function producedByMarkdown(report: DecisionReport): string {
  if (!report.producedBy) return 'Not recorded.';
  return table(
    ['Setting', 'Value'],
    producedByLines(report.producedBy).map((line) => [line.label, line.value]),
  );
}

function planVersion(plan: PlanVersion): string {
  const title = plan.version === 0 ? 'Initial plan' : `Re-plan ${plan.version}`;
  const reason = plan.reason !== null ? `\n\n*Why:* ${markdownLiteral(plan.reason)}` : '';
  return `### ${title} (step ${plan.step}, by ${plan.author})${reason}\n\n${planLines(plan)}`;
}

function planLines(plan: PlanVersion): string {
  if (!plan.diff) return plan.steps.map((step, index) => `${index + 1}. ${markdownLiteral(step)}`).join('\n');
  return markdownFence(plan.diff.map((line) => `${line.op === 'added' ? '+' : line.op === 'removed' ? '-' : ' '} ${line.text}`).join('\n'), 'diff');
}

function stepSection(step: ReportStep, options: MarkdownReportOptions): string {
  const call = step.call;
  const stats = call ? ` — ${call.usage ? `${formatCount(call.usage.totalTokens)} tokens` : 'tokens not reported'}, ${formatDuration(call.latencyMs)}` : '';
  return `### ${step.step === 0 ? 'Before the first model call' : `Step ${step.step}`}${stats}\n\n${step.items.map((item) => traceItem(item, options)).join('\n\n') || 'No usable action.'}`;
}

function traceItem(item: ReportItem, options: MarkdownReportOptions): string {
  switch (item.kind) {
    case 'thought':
      return `**Thought:** ${markdownLiteral(item.text)}`;
    case 'plan':
      return `**${item.plan.version === 0 ? 'Plan' : `Re-plan ${item.plan.version}`}:**${item.plan.reason !== null ? ` ${markdownLiteral(item.plan.reason)}` : ''}\n\n${planLines(item.plan)}`;
    case 'query':
      return queryBlock(item.query, options);
    case 'observation':
      return `**Observation:** ${markdownLiteral(item.text)}`;
    case 'review': {
      const { review } = item;
      const shown = review.action === 'edit' || review.action === 'skip' || review.action === 'stop' ? `\n\n${markdownFence(reviewTextPlain(review), 'diff')}` : '';
      return `**Analyst ${reviewLabels[review.action]} the ${reviewSubjectLabels[review.subject]}.**${review.note ? ` Note: ${markdownLiteral(review.note)}` : ''}${shown}`;
    }
    case 'repair':
      return `**Unusable reply:** ${markdownLiteral(item.problem)}`;
    case 'simulation':
      return `**Simulation:** best ${markdownLiteral(item.simulation.result.best)} on ${markdownLiteral(item.simulation.result.objective)}`;
    case 'whatif': {
      const { spec, result, error } = item.whatif;
      const statements = markdownFence(`change:    ${spec.change}\nobjective: ${spec.objective}${spec.candidatesQuery ? `\ncandidates: ${spec.candidatesQuery}` : ''}`, 'sql');
      return result
        ? `**What-if on a copy of the data:** best ${markdownLiteral(String(result.best))}${result.margin !== null ? `, ahead by ${formatValue(result.margin)}` : ''} (${result.rows.length} candidate${result.rows.length === 1 ? '' : 's'}; source unchanged: ${markdownCode(result.sourceDigestAfter)}${markdownLiteral(copiedTablesNote(result))})\n\n${statements}`
        : `**What-if failed** (${markdownLiteral(error?.code ?? 'error')}): ${markdownLiteral(error?.message ?? '')}\n\n${statements}`;
    }
    case 'decision':
      return '**Decision given** (see section 2).';
    case 'technique': {
      // A step's text follows its label on the line; a table needs a line of its own to be one.
      const inline = item.blocks[0]?.kind === 'paragraph' || item.blocks[0]?.kind === 'observation';
      return `**${markdownLiteral(item.label)}:**${inline ? ' ' : '\n\n'}${blocksMarkdown(item.blocks)}`;
    }
    case 'other':
      return `**${markdownLiteral(item.type)}:**\n\n${markdownFence(JSON.stringify(item.fields, null, 2), 'json')}`;
  }
}

function queryBlock(query: QueryRecord, options: MarkdownReportOptions): string {
  const head = `**Query ${markdownLiteral(query.id)}** by ${query.author}${query.evidence ? ' · evidence for the decision' : ''}`;
  const parts = [head, markdownFence(query.text, 'sql')];
  if (query.params && Object.keys(query.params).length) parts.push(`Parameters: ${markdownLiteral(JSON.stringify(query.params))}`);
  if (query.error) parts.push(`Error (${markdownLiteral(query.error.code)}): ${markdownLiteral(query.error.message)}`);
  if (query.result) parts.push(resultTable(query.result, query.digest, options.maxTableRows));
  return parts.join('\n\n');
}

function resultTable(result: QueryResult, digest: string | null, maxRows: number): string {
  const shown = result.rows.slice(0, maxRows);
  const note = result.rows.length > shown.length ? `Showing ${shown.length} of ${formatCount(result.rowCount)} rows` : `${plural(result.rowCount, 'row')}`;
  const capped = result.truncated ? ' (the query hit the row cap)' : '';
  const body = result.columns.length ? `${table(result.columns.map((column) => column.name), shown.map((row) => row.map(formatValue)))}\n\n` : '';
  return `${body}*${note}${capped}.${digest ? ` sha256 of the full result: ${markdownCode(digest)}` : ''}*`;
}

/** The simulator's verdict after the status, or "not checked: <reason>" for a decision none checked. */
function checkNote(report: DecisionReport): string {
  const decision = report.decision;
  if (!decision) return '';
  if (!decision.verification) return ` · not checked: ${markdownLiteral(decision.unchecked ?? 'no simulator checked it')}`;
  return ` · simulator: ${decision.verification.agrees ? 'optimal' : `best is ${markdownLiteral(decision.verification.best)}`}`;
}

function simulationSection(report: DecisionReport): string {
  const verification = report.decision?.verification;
  const parts: string[] = [];
  if (!verification && report.decision) parts.push(`Not checked: ${markdownLiteral(report.decision.unchecked ?? 'no simulator checked it')}.`);
  if (verification) {
    parts.push(`The decision **${markdownLiteral(verification.decision)}** ${verification.agrees ? 'is' : 'is not'} the simulator’s optimum (best: ${markdownLiteral(verification.best)}; objective: ${markdownLiteral(verification.objective)}${verification.regret !== null && !verification.agrees ? `; regret ${verification.regret}` : ''}).`);
  }
  for (const simulation of report.simulations) {
    parts.push(
      `### Simulation at step ${simulation.step}\n\n${table(
        ['Rank', 'Candidate', 'Before', 'After', 'Change'],
        simulation.result.candidates.slice(0, 10).map((candidate) => [String(candidate.rank), candidate.candidate, formatValue(candidate.before), formatValue(candidate.after), formatValue(candidate.delta)]),
      )}`,
    );
  }
  return parts.join('\n\n');
}

function signOffSection(report: DecisionReport): string {
  // A table cell holds one line, so each review's query or plan follows the table, as a diff (− the model's, + the analyst's).
  const reviews = report.reviews.length
    ? `${table(['Step', 'Time', 'Action', 'Note'], report.reviews.map((review) => [String(review.step), formatTime(review.at), `${reviewLabels[review.action]} the ${reviewSubjectLabels[review.subject]}`, review.note ?? '']))}\n\n${report.reviews
        .map((review) => `Step ${review.step}, ${reviewLabels[review.action]} the ${reviewSubjectLabels[review.subject]}:\n\n${markdownFence(reviewTextPlain(review), 'diff')}`)
        .join('\n\n')}`
    : report.mode === 'step'
      ? 'No review was recorded.'
      : 'The run was automatic: no step was reviewed while it ran.';
  const notes = report.notes.length ? `\n\n### Analyst notes\n\n${report.notes.map((note) => markdownSanitized(note)).join('\n\n')}` : '';
  const charts = report.charts.length ? `\n\n### Charts\n\n${report.charts.map(chartMarkdown).join('\n\n')}` : '';
  const signOffs = report.signOffs.length
    ? report.signOffs.map((signOff) => `- **${markdownLiteral(signOff.name)}**, ${markdownLiteral(formatTime(signOff.at))}${signOff.comment ? `: ${markdownLiteral(signOff.comment)}` : ''}${keyNote(signOff.fingerprint)} (seal entry ${markdownCode(signOff.hash)})`).join('\n')
    : 'Not signed off.';
  return `### Reviews during the run\n\n${reviews}${notes}${charts}\n\n### Sign-off\n\n${signOffs}`;
}

/** A chart as its settings in words, its query, and the table it draws (the values behind each bar or point). */
function chartMarkdown(chart: ChartRecord): string {
  const drawn = chart.table ? resultTable(chart.table, null, 50) : `*${markdownLiteral(chart.problem ?? '')}*`;
  const notes = chart.notes.length ? `\n\n*Chart: ${markdownLiteral(chart.notes.join('; '))}.*` : '';
  return `**${markdownLiteral(chart.description)}**\n\n${markdownFence(chart.query, 'sql')}\n\n${drawn}${notes}`;
}

function keyNote(fingerprint: string | null): string {
  return fingerprint ? `, key ${markdownCode(fingerprint)}` : ', unsigned';
}

function usageSection(report: DecisionReport): string {
  const calls = report.steps.flatMap((step) => (step.call ? [step.call] : []));
  if (!calls.length) return 'No model call was made.';
  const number = (value: number | undefined): string => (value === undefined ? '—' : formatCount(value));
  return table(
    ['Step', 'Called', 'Prompt', 'Completion', 'Total', 'Latency'],
    [
      ...calls.map((call) => [String(call.step), call.toolCalls.join(', ') || '—', number(call.usage?.promptTokens), number(call.usage?.completionTokens), number(call.usage?.totalTokens), formatDuration(call.latencyMs)]),
      ['All', plural(calls.length, 'call'), formatCount(report.totals.promptTokens), formatCount(report.totals.completionTokens), formatCount(report.totals.totalTokens), formatDuration(report.totals.latencyMs)],
    ],
  );
}

function integritySection(report: DecisionReport): string {
  const integrity = report.integrity;
  return `${table(
    ['Field', 'Value'],
    [
      ['Head (last seal entry)', integrity.head],
      ['Run-log events', String(integrity.eventCount)],
      ['First event hash', integrity.firstEventHash],
      ['Last event hash', integrity.lastEventHash],
      ['Seal entries', String(integrity.sealEntries)],
      ['Transcript lines sealed', String(integrity.transcriptLines)],
      ['Notebook cells sealed', String(integrity.notebookCells)],
      ['Sealed', `${formatTime(integrity.sealedAt)} by ${integrity.generator}`],
      ['Signed by', integrity.signer ? `${integrity.signer.name}, Ed25519 key ${integrity.signer.fingerprint}` : 'nobody: the seal is unsigned'],
    ],
  )}\n\nVerify the JSON bundle with \`npx dwb verify BUNDLE.json\` (add ${markdownCode(`--head ${integrity.head}`)} to pin this very bundle).`;
}
