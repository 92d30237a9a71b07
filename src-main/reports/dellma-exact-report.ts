/**
 * [ext] DeLLMa's exact outcomes (the `dellma.exact` step) as a report section of their own,
 * after the decision's sections and apart from them: the elicited utilities decide, these
 * numbers are shown beside them.
 */
import { dellmaExactSchema, exactNotComparedReason, type DellmaExact } from '../contract/dellma';
import { html, type Html } from './html-escape';
import { markdownCell, markdownLiteral } from './markdown-text';
import type { DecisionReport } from './report-model';

export const exactSectionTitle = 'Exact outcomes in the what-if sandbox [ext]';

/** The run's exact-outcomes record, if it made one. */
export function exactOutcomesOf(report: DecisionReport): DellmaExact | null {
  for (const step of report.steps) {
    for (const item of step.items) {
      if (item.kind !== 'other' || item.fields['tool'] !== 'dellma.exact') continue;
      const parsed = dellmaExactSchema.safeParse(item.fields['input']);
      if (parsed.success) return parsed.data;
    }
  }
  return null;
}

const number = (value: number | null): string => (value === null ? 'n/a' : String(Number(value.toPrecision(6))));

function summary(exact: DellmaExact): string {
  const lead = 'Computed by applying the question’s what-if changes to a copy of the data (each future × option in a transaction rolled back); these outcomes did not enter the fit, the expected utilities or the decision.';
  if (exact.error) return `${lead} Not computed: ${exact.error}.`;
  const verdict = exact.agrees === null ? `; not compared with DeLLMa’s decision (${exactNotComparedReason(exact)})` : `, which ${exact.agrees ? 'agrees' : 'disagrees'} with DeLLMa’s decision (${exact.decision ?? 'none'})`;
  return `${lead} Exactly-computed best: ${exact.exactBest ?? 'none'}${verdict}. Objective (${exact.direction}): ${exact.objective}.${exact.capped ? ` ${exact.capped}` : ''}`;
}

const rowsOf = (exact: DellmaExact): string[][] => exact.rows.map((row) => [row.action, number(row.expected), row.coverage.toFixed(3), String(row.computed)]);
const scenariosOf = (exact: DellmaExact): string[][] => exact.scenarios.map((scenario) => [scenario.future, scenario.probability.toFixed(3), scenario.action, number(scenario.objective), scenario.reason ? `${scenario.status}: ${scenario.reason}` : scenario.status]);
const rowHeader = ['Option', 'Expected objective', 'Covers p', 'Futures computed'];
const scenarioHeader = ['Future', 'p', 'Option', 'Objective', 'Status'];

export function exactSectionMarkdown(exact: DellmaExact): string {
  const table = (header: string[], rows: string[][]): string => [`| ${header.map(markdownCell).join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`, ...rows.map((row) => `| ${row.map(markdownCell).join(' | ')} |`)].join('\n');
  return `${markdownLiteral(summary(exact))}\n\n${table(rowHeader, rowsOf(exact))}\n\n${table(scenarioHeader, scenariosOf(exact))}`;
}

export function exactSectionHtml(exact: DellmaExact): Html {
  const table = (header: string[], rows: string[][]): Html => html`<table><thead><tr>${header.map((cell) => html`<th>${cell}</th>`)}</tr></thead><tbody>${rows.map((row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody></table>`;
  return html`<p>${summary(exact)}</p>${table(rowHeader, rowsOf(exact))}${table(scenarioHeader, scenariosOf(exact))}`;
}
