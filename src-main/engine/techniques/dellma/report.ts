/**
 * How DeLLMa's steps read in a report (its definition's `reports`): each `dellma.*` step as its
 * summary with its full record folded below; the context step with a table of the documents it
 * used; and [ext] the exact outcomes (`dellma.exact`) as a section of their own, after the
 * decision's sections and apart from them: the elicited utilities decide, these numbers are
 * shown beside them.
 */
import { dellmaContextSchema, dellmaExactSchema, exactNotComparedReason, type DellmaContext, type DellmaExact } from '../../../contract/dellma';
import type { ReportBlock, ReportItemBlocks, ReportSectionBlocks } from '../../../contract/report-blocks';
import type { TechniqueReports } from '../technique';

type StepFields = Readonly<Record<string, unknown>>;

const toolPrefix = 'dellma.';

function stepItem(fields: StepFields): ReportItemBlocks | null {
  const tool = typeof fields['tool'] === 'string' ? fields['tool'] : '';
  const output = fields['output'];
  if (!tool.startsWith(toolPrefix) || typeof output !== 'string') return null;
  const context = tool === 'dellma.context' ? dellmaContextSchema.safeParse(fields['input']) : null;
  return {
    label: `DeLLMa · ${tool.slice(toolPrefix.length)}`,
    blocks: [{ kind: 'observation', text: output }, ...(context?.success ? [documentsTable(context.data)] : []), { kind: 'record', summary: 'Record', value: fields['input'] }],
  };
}

/** The documents the context step used: characters used of each one's length, and whether it was cut to fit the budget. */
function documentsTable(context: DellmaContext): ReportBlock {
  return {
    kind: 'table',
    className: 'dellma-context-documents',
    header: ['Document', 'Characters used', 'Of', 'Truncated'],
    rows: context.documents.map((document) => [document.name, String(document.usedChars), String(document.chars), document.truncated ? 'yes' : 'no']),
  };
}

const exactSectionTitle = 'Exact outcomes in the what-if sandbox [ext]';

function sections(records: readonly StepFields[]): ReportSectionBlocks[] {
  for (const fields of records) {
    if (fields['tool'] !== 'dellma.exact') continue;
    const parsed = dellmaExactSchema.safeParse(fields['input']);
    if (parsed.success) return [{ id: 'exact-outcomes', title: exactSectionTitle, blocks: exactBlocks(parsed.data) }];
  }
  return [];
}

const number = (value: number | null): string => (value === null ? 'n/a' : String(Number(value.toPrecision(6))));

function exactSummary(exact: DellmaExact): string {
  const lead = 'Computed by applying the question’s what-if changes to a copy of the data (each future × option in a transaction rolled back); these outcomes did not enter the fit, the expected utilities or the decision.';
  if (exact.error) return `${lead} Not computed: ${exact.error}.`;
  const verdict = exact.agrees === null ? `; not compared with DeLLMa’s decision (${exactNotComparedReason(exact)})` : `, which ${exact.agrees ? 'agrees' : 'disagrees'} with DeLLMa’s decision (${exact.decision ?? 'none'})`;
  return `${lead} Exactly-computed best: ${exact.exactBest ?? 'none'}${verdict}. Objective (${exact.direction}): ${exact.objective}.${exact.capped ? ` ${exact.capped}` : ''}`;
}

function exactBlocks(exact: DellmaExact): ReportBlock[] {
  return [
    { kind: 'paragraph', text: exactSummary(exact) },
    { kind: 'table', header: ['Option', 'Expected objective', 'Covers p', 'Futures computed'], rows: exact.rows.map((row) => [row.action, number(row.expected), row.coverage.toFixed(3), String(row.computed)]) },
    {
      kind: 'table',
      header: ['Future', 'p', 'Option', 'Objective', 'Status'],
      rows: exact.scenarios.map((scenario) => [scenario.future, scenario.probability.toFixed(3), scenario.action, number(scenario.objective), scenario.reason ? `${scenario.status}: ${scenario.reason}` : scenario.status]),
    },
  ];
}

export const dellmaReports: TechniqueReports = { item: stepItem, sections };
