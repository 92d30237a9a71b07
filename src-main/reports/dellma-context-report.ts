/**
 * DeLLMa's context step (`dellma.context`, written when documents were attached) in a report:
 * beside the step's text, a table of the documents it used — characters used of each one's
 * length, and whether it was cut to fit the budget.
 */
import { dellmaContextSchema, type DellmaContext } from '../contract/dellma';
import { html, type Html } from './html-escape';
import { markdownCell } from './markdown-text';

/** The context record of a report item's fields, when the item is a `dellma.context` step that parses. */
export function contextRecordOf(fields: Record<string, unknown>): DellmaContext | null {
  if (fields['tool'] !== 'dellma.context') return null;
  const parsed = dellmaContextSchema.safeParse(fields['input']);
  return parsed.success ? parsed.data : null;
}

const header = ['Document', 'Characters used', 'Of', 'Truncated'];
const rowsOf = (context: DellmaContext): string[][] => context.documents.map((document) => [document.name, String(document.usedChars), String(document.chars), document.truncated ? 'yes' : 'no']);

export function contextDocumentsMarkdown(context: DellmaContext): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`, ...rowsOf(context).map((row) => `| ${row.map(markdownCell).join(' | ')} |`)].join('\n');
}

export function contextDocumentsHtml(context: DellmaContext): Html {
  return html`<table class="dellma-context-documents"><thead><tr>${header.map((cell) => html`<th>${cell}</th>`)}</tr></thead><tbody>${rowsOf(context).map((row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody></table>`;
}
