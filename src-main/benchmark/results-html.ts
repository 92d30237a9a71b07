/**
 * The results as one self-contained HTML page: no scripts, no external files; the charts are
 * SVG drawn here (accuracy per technique, tokens per question, where runs ended) and every
 * text, including whatever the model answered, is escaped.
 */
import { deciderNote, deciderRows, failureOrder, flagText, percent, questionDecider, questionDecision } from './results-markdown';
import { endedAs, rowLabel as techniqueOfRow, type ResultsRow, type ResultsTable } from './results-table';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string);
}

const palette = ['#2563eb', '#16a34a', '#dc2626', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563'];

function rowLabel(row: ResultsRow): string {
  return `${techniqueOfRow(row)} · ${row.scenario} · ${row.db}`;
}

function accuracyChart(rows: readonly ResultsRow[]): string {
  const barHeight = 22;
  const labelWidth = 300;
  const plotWidth = 420;
  const height = rows.length * (barHeight + 10) + 30;
  const bars = rows
    .map((row, index) => {
      const y = 10 + index * (barHeight + 10);
      const exact = row.questions === 0 ? 0 : row.correct / row.questions;
      const tied = row.questions === 0 ? 0 : row.correctWithTies / row.questions;
      return [
        `<text x="${labelWidth - 8}" y="${y + barHeight / 2 + 4}" text-anchor="end">${escapeHtml(rowLabel(row))}</text>`,
        `<rect x="${labelWidth}" y="${y}" width="${(plotWidth * tied).toFixed(1)}" height="${barHeight}" fill="#93c5fd"><title>ties counted ${row.correctWithTies}/${row.questions}</title></rect>`,
        `<rect x="${labelWidth}" y="${y}" width="${(plotWidth * exact).toFixed(1)}" height="${barHeight}" fill="#2563eb"><title>right ${row.correct}/${row.questions}</title></rect>`,
        `<text x="${labelWidth + plotWidth * tied + 6}" y="${y + barHeight / 2 + 4}">${escapeHtml(`${percent(row.correct, row.questions)} (${row.correct}/${row.questions}, ties ${row.correctWithTies})`)}</text>`,
      ].join('');
    })
    .join('');
  return `<svg role="img" aria-label="Accuracy per technique" width="${labelWidth + plotWidth + 170}" height="${height}" class="chart">${bars}</svg>`;
}

function tokensChart(table: ResultsTable): string {
  const questions = table.questions;
  if (questions.length === 0) return '<p>No questions yet.</p>';
  const barWidth = Math.max(3, Math.min(24, Math.floor(760 / questions.length)));
  const plotHeight = 180;
  const max = Math.max(1, ...questions.map((result) => result.promptTokens + result.completionTokens));
  const bars = questions
    .map((result, index) => {
      const x = 50 + index * barWidth;
      const prompt = (plotHeight * result.promptTokens) / max;
      const completion = (plotHeight * result.completionTokens) / max;
      const title = escapeHtml(`${result.id} (${result.technique}, ${result.db}): ${result.promptTokens} prompt + ${result.completionTokens} completion tokens`);
      return (
        `<g><title>${title}</title>` +
        `<rect x="${x}" y="${(10 + plotHeight - prompt).toFixed(1)}" width="${barWidth - 1}" height="${prompt.toFixed(1)}" fill="#2563eb"/>` +
        `<rect x="${x}" y="${(10 + plotHeight - prompt - completion).toFixed(1)}" width="${barWidth - 1}" height="${completion.toFixed(1)}" fill="#f59e0b"/></g>`
      );
    })
    .join('');
  const axis = `<text x="45" y="16" text-anchor="end">${max}</text><text x="45" y="${10 + plotHeight}" text-anchor="end">0</text><line x1="48" y1="${10 + plotHeight}" x2="${50 + questions.length * barWidth}" y2="${10 + plotHeight}" stroke="#999"/>`;
  const legend = `<text x="50" y="${plotHeight + 32}"><tspan fill="#2563eb">■ prompt</tspan> <tspan fill="#f59e0b">■ completion</tspan></text>`;
  return `<svg role="img" aria-label="Tokens per question" width="${Math.max(300, 60 + questions.length * barWidth)}" height="${plotHeight + 40}" class="chart">${axis}${bars}${legend}</svg>`;
}

function endedChart(rows: readonly ResultsRow[]): string {
  const statuses = [...new Set(rows.flatMap((row) => Object.keys(row.ended)))].sort();
  const barHeight = 22;
  const labelWidth = 300;
  const plotWidth = 420;
  const bars = rows
    .map((row, index) => {
      const y = 10 + index * (barHeight + 10);
      let x = labelWidth;
      const parts = statuses.map((status, statusIndex) => {
        const count = row.ended[status] ?? 0;
        const width = row.questions === 0 ? 0 : (plotWidth * count) / row.questions;
        const part = count === 0 ? '' : `<rect x="${x.toFixed(1)}" y="${y}" width="${width.toFixed(1)}" height="${barHeight}" fill="${palette[statusIndex % palette.length]}"><title>${escapeHtml(`${status}: ${count}`)}</title></rect>`;
        x += width;
        return part;
      });
      return `<text x="${labelWidth - 8}" y="${y + barHeight / 2 + 4}" text-anchor="end">${escapeHtml(rowLabel(row))}</text>${parts.join('')}`;
    })
    .join('');
  const legendY = 10 + rows.length * (barHeight + 10) + 14;
  const legend = statuses.map((status, index) => `<tspan fill="${palette[index % palette.length]}">■</tspan> ${escapeHtml(status)} `).join('');
  return `<svg role="img" aria-label="Where runs ended" width="${labelWidth + plotWidth + 20}" height="${legendY + 10}" class="chart">${bars}<text x="${labelWidth}" y="${legendY}">${legend}</text></svg>`;
}

function htmlTable(header: string[], rows: string[][]): string {
  return `<table><thead><tr>${header.map((cell) => `<th>${escapeHtml(cell)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

export function resultsHtml(table: ResultsTable): string {
  const rows = table.rows;
  const summary = htmlTable(
    ['Technique', 'Scenario', 'DB', 'Questions', 'Accuracy', 'Ties counted', 'Without flagged', 'Mean steps', 'Mean prompt tokens', 'Mean completion tokens', 'Wall time (sum, s)', 'Largest prompt', 'Critical-path time (mean, s)'],
    rows.map((row) => [
      techniqueOfRow(row),
      row.scenario,
      row.db,
      String(row.questions),
      `${row.correct}/${row.questions} (${percent(row.correct, row.questions)})${deciderNote(row) ? `; ${deciderNote(row)}` : ''}`,
      `${row.correctWithTies}/${row.questions} (${percent(row.correctWithTies, row.questions)})`,
      `${row.clearCorrect}/${row.questions - row.flagged}`,
      row.meanSteps.toFixed(1),
      row.meanPromptTokens.toFixed(0),
      row.meanCompletionTokens.toFixed(0),
      (row.wallMs / 1000).toFixed(1),
      String(row.largestPromptTokens),
      (row.meanCriticalPathMs / 1000).toFixed(1),
    ]),
  );
  const deciders = htmlTable(
    ['Technique', 'Scenario', 'DB', 'Decided by', 'Decisions', 'Right', 'Ties counted', 'Tool-assisted'],
    deciderRows(table).map(({ row, decider }) => [
      techniqueOfRow(row),
      row.scenario,
      row.db,
      decider.label,
      String(decider.questions),
      `${decider.correct}/${decider.questions} (${percent(decider.correct, decider.questions)})`,
      `${decider.correctWithTies}/${decider.questions}`,
      String(table.questions.filter((result) => result.technique === row.technique && result.variant === row.variant && result.scenario === row.scenario && result.db === row.db && result.decidedBy === decider.key && result.toolAssisted === true).length),
    ]),
  );
  const producedBy = rows.map((row) => `<h3>${escapeHtml(rowLabel(row))}</h3>${htmlTable(['Setting', 'Value'], (row.producedBy ?? [{ label: 'Produced by', value: 'not recorded' }]).map((line) => [line.label, line.value]))}`).join('');
  const failures = htmlTable(
    ['Technique', 'Scenario', 'DB', ...failureOrder],
    rows.map((row) => [techniqueOfRow(row), row.scenario, row.db, ...failureOrder.map((category) => String(row.failures[category] ?? 0))]),
  );
  const flagged = table.questions.filter((result) => result.flags.length > 0);
  const flaggedTable =
    flagged.length === 0
      ? '<p>None of the questions is a tie or decided at floating-point level.</p>'
      : htmlTable(
          ['Question', 'Technique', 'DB', 'Flags', 'Simulator best', 'Tied', 'Decision', 'Right', 'Ties counted'],
          flagged.map((result) => [result.id, result.technique, result.db, flagText(result), result.simulator?.best ?? '–', result.simulator?.tied.join(', ') ?? '–', questionDecision(result), result.correct ? 'yes' : 'no', result.correctWithTies ? 'yes' : 'no']),
        );
  const questions = htmlTable(
    ['Question', 'Technique', 'DB', 'Decision', 'Decided by', 'Simulator best', 'Right', 'Ended', 'Steps', 'Prompt tokens', 'Completion tokens', 'Category', 'Evidence'],
    table.questions.map((result) => [
      result.id,
      result.technique,
      result.db,
      questionDecision(result),
      questionDecider(result),
      result.simulator?.best ?? '–',
      result.correct ? 'yes' : result.correctWithTies ? 'tied' : 'no',
      endedAs(result),
      String(result.steps),
      String(result.promptTokens),
      String(result.completionTokens),
      result.failure.category ?? '–',
      result.failure.evidence.join('\n'),
    ]),
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Technique benchmark</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#111}
table{border-collapse:collapse;margin:8px 0 24px}th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top;white-space:pre-wrap}
th{background:#f3f4f6}.chart{font:12px system-ui,sans-serif;display:block;margin:8px 0 24px}
</style></head><body>
<h1>Technique benchmark</h1>
<p>Generated ${escapeHtml(table.generatedAt)}. Right = the exact simulator's best decision (compat rules); ties counted = one of the candidates tied with the best.</p>
<h2>Results</h2>${summary}
<h2>Who decided</h2><p>Each row's decisions by the technique that made them: a fallback's decisions are counted apart from the technique that handed the question over. Tool-assisted: the decision is the best candidate of a simulate or whatif result the model saw first.</p>${deciders}
<h2>Produced by</h2>${producedBy}
<h2>Accuracy per technique</h2>${accuracyChart(rows)}
<h2>Tokens per question</h2>${tokensChart(table)}
<h2>Where runs ended</h2>${endedChart(rows)}
<h2>Failure categories</h2><p>CAN wrong candidate set · MIS a critical value never retrieved · DEEP data or equations misused · QUR query errors · OTH other · unlabelled: left to the analyst.</p>${failures}
<h2>Reported apart: ties and float-level decisions</h2>${flaggedTable}
<h2>Questions</h2>${questions}
</body></html>
`;
}
