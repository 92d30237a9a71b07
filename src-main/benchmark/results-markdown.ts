/**
 * The results as Markdown: accuracy in the paper's layout (techniques down, scenario and
 * database kind across), the full row per technique × scenario × database kind, where runs
 * ended, failure categories, the questions reported apart, and every question with its
 * category and evidence. Model and data text is escaped so it cannot become Markdown.
 */
import type { QuestionResult } from './question-result';
import { endedAs, rowLabel, type ResultsRow, type ResultsTable } from './results-table';
import { deciderLabel } from '../contract/produced-by';

/** Text safe inside a Markdown table cell: no markup, no pipes, no line breaks. */
export function markdownCell(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/[\\`*_{}[\]#+!|<>~]/g, (char) => `\\${char}`)
    .trim();
}

export function percent(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`;
}

const columns = [
  { scenario: 'locating', db: 'rdb', label: 'Locating RDB' },
  { scenario: 'locating', db: 'gdb', label: 'Locating GDB' },
  { scenario: 'building', db: 'rdb', label: 'Building RDB' },
  { scenario: 'building', db: 'gdb', label: 'Building GDB' },
] as const;

export const failureOrder = ['CAN', 'MIS', 'DEEP', 'QUR', 'OTH', 'unlabelled'] as const;

function table(header: string[], rows: string[][]): string[] {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)];
}

function label(row: Pick<ResultsRow, 'technique' | 'variant'>): string {
  return markdownCell(rowLabel(row));
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function flagText(result: QuestionResult): string {
  return result.flags.join(', ');
}

export function questionDecision(result: QuestionResult): string {
  if (result.error !== null) return `not run: ${result.error}`;
  if (result.match.raw === null) return `no decision (${result.status ?? 'not started'})`;
  if (result.match.matched === null) return `"${result.match.raw}" (${result.match.rule})`;
  return result.match.rule === 'exact' ? result.match.matched : `${result.match.matched} (from "${result.match.raw}", ${result.match.rule})`;
}

/** How many of a row's decisions another technique made (a fallback), in words; empty when the technique made them all. */
export function deciderNote(row: ResultsRow): string {
  const deciders = row.deciders ?? [];
  if (!deciders.some((decider) => decider.key !== row.technique)) return '';
  return deciders.map((decider) => `${decider.label} decided ${decider.questions}`).join(', ');
}

/** Who decided a question, with a tool-assisted decision said as such ("–" without a decision). */
export function questionDecider(result: QuestionResult): string {
  const origin = result.producedBy?.decidedBy;
  if (result.decidedBy === undefined) return '–';
  const who = origin ? deciderLabel(origin) : result.decidedBy;
  return origin?.toolAssisted ? `${who}, tool-assisted (copied from ${origin.toolAssisted.tool})` : who;
}

/** The "who decided" rows: each technique row's decisions by their maker, each fallback apart, with how many were right. */
export function deciderRows(results: ResultsTable): { row: ResultsRow; decider: NonNullable<ResultsRow['deciders']>[number] }[] {
  return results.rows.flatMap((row) => (row.deciders ?? []).map((decider) => ({ row, decider })));
}

export function resultsMarkdown(results: ResultsTable): string {
  const lines: string[] = ['# Technique benchmark', '', `Generated ${results.generatedAt}. Right = the exact simulator's best decision (compat rules); ties counted = one of the candidates tied with the best.`, ''];
  const techniquesPresent = [...new Map(results.rows.map((row) => [`${row.technique}\n${row.variant ?? ''}`, { technique: row.technique, variant: row.variant }])).values()];
  const presentColumns = columns.filter((column) => results.rows.some((row) => row.scenario === column.scenario && row.db === column.db));

  lines.push('## Accuracy (paper layout)', '');
  lines.push(
    ...table(
      ['Technique', ...presentColumns.map((column) => column.label)],
      techniquesPresent.map((technique) => [
        label(technique),
        ...presentColumns.map((column) => {
          const row = results.rows.find((candidate) => candidate.technique === technique.technique && candidate.variant === technique.variant && candidate.scenario === column.scenario && candidate.db === column.db);
          if (!row) return '–';
          const note = deciderNote(row);
          return markdownCell(`${percent(row.correct, row.questions)} (${row.correct}/${row.questions}; ties ${row.correctWithTies}/${row.questions}${note ? `; ${note}` : ''})`);
        }),
      ]),
    ),
    '',
  );

  lines.push('## Technique × scenario × database', '');
  lines.push(
    ...table(
      ['Technique', 'Scenario', 'DB', 'Questions', 'Accuracy', 'Ties counted', 'Without flagged', 'Mean steps', 'Mean prompt tokens', 'Mean completion tokens', 'Wall time (sum)', 'Mean wall time', 'Largest prompt', 'Critical-path time'],
      results.rows.map((row) => [
        label(row),
        row.scenario,
        row.db,
        String(row.questions),
        `${row.correct}/${row.questions} (${percent(row.correct, row.questions)})`,
        `${row.correctWithTies}/${row.questions} (${percent(row.correctWithTies, row.questions)})`,
        `${row.clearCorrect}/${row.questions - row.flagged}`,
        row.meanSteps.toFixed(1),
        row.meanPromptTokens.toFixed(0),
        row.meanCompletionTokens.toFixed(0),
        seconds(row.wallMs),
        seconds(row.meanWallMs),
        String(row.largestPromptTokens),
        seconds(row.meanCriticalPathMs),
      ]),
    ),
    '',
  );

  lines.push('## Who decided', '', "Each row's decisions by the technique that made them: a fallback's decisions are counted apart from the technique that handed the question over. Tool-assisted: the decision is the best candidate of a simulate or whatif result the model saw first.", '');
  lines.push(
    ...table(
      ['Technique', 'Scenario', 'DB', 'Decided by', 'Decisions', 'Right', 'Ties counted', 'Tool-assisted'],
      deciderRows(results).map(({ row, decider }) => [
        label(row),
        row.scenario,
        row.db,
        markdownCell(decider.label),
        String(decider.questions),
        `${decider.correct}/${decider.questions} (${percent(decider.correct, decider.questions)})`,
        `${decider.correctWithTies}/${decider.questions}`,
        String(results.questions.filter((result) => result.technique === row.technique && result.variant === row.variant && result.scenario === row.scenario && result.db === row.db && result.decidedBy === decider.key && result.toolAssisted === true).length),
      ]),
    ),
    '',
  );

  lines.push('## Produced by', '');
  for (const row of results.rows) {
    lines.push(`### ${label(row)} · ${row.scenario} · ${row.db}`, '');
    lines.push(...table(['Setting', 'Value'], (row.producedBy ?? [{ label: 'Produced by', value: 'not recorded' }]).map((line) => [markdownCell(line.label), markdownCell(line.value)])), '');
  }

  const statuses = [...new Set(results.rows.flatMap((row) => Object.keys(row.ended)))].sort();
  lines.push('## Where runs ended', '');
  lines.push(...table(['Technique', 'Scenario', 'DB', ...statuses], results.rows.map((row) => [label(row), row.scenario, row.db, ...statuses.map((status) => String(row.ended[status] ?? 0))])), '');

  lines.push('## Failure categories', '', 'CAN wrong candidate set · MIS a critical value never retrieved · DEEP data or equations misused · QUR query errors · OTH other · unlabelled: left to the analyst.', '');
  lines.push(...table(['Technique', 'Scenario', 'DB', ...failureOrder], results.rows.map((row) => [label(row), row.scenario, row.db, ...failureOrder.map((category) => String(row.failures[category] ?? 0))])), '');

  const flagged = results.questions.filter((result) => result.flags.length > 0);
  lines.push('## Reported apart: ties and float-level decisions', '');
  if (flagged.length === 0) lines.push('None of the questions is a tie or decided at floating-point level.', '');
  else
    lines.push(
      ...table(
        ['Question', 'Technique', 'DB', 'Flags', 'Simulator best', 'Tied', 'Decision', 'Right', 'Ties counted'],
        flagged.map((result) => [
          markdownCell(result.id),
          label(result),
          result.db,
          flagText(result),
          markdownCell(result.simulator?.best ?? '–'),
          markdownCell(result.simulator?.tied.join(', ') ?? '–'),
          markdownCell(questionDecision(result)),
          result.correct ? 'yes' : 'no',
          result.correctWithTies ? 'yes' : 'no',
        ]),
      ),
      '',
    );

  lines.push('## Questions', '');
  lines.push(
    ...table(
      ['Question', 'Technique', 'DB', 'Decision', 'Decided by', 'Simulator best', 'Right', 'Ended', 'Steps', 'Tokens (prompt/completion)', 'Category', 'Evidence'],
      results.questions.map((result) => [
        markdownCell(result.id),
        label(result),
        result.db,
        markdownCell(questionDecision(result)),
        markdownCell(questionDecider(result)),
        markdownCell(result.simulator?.best ?? '–'),
        result.correct ? 'yes' : result.correctWithTies ? 'tied' : 'no',
        endedAs(result),
        String(result.steps),
        `${result.promptTokens}/${result.completionTokens}`,
        result.failure.category ?? '–',
        markdownCell(result.failure.evidence.join('; ')),
      ]),
    ),
    '',
  );
  return lines.join('\n');
}
