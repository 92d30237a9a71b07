/**
 * A technique's report blocks (contract/report-blocks.ts) in each report format. Every value is
 * the technique's or the model's text, so HTML escapes it and Markdown writes it literally.
 */
import type { ReportBlock } from '../contract/report-blocks';
import { html, type Html } from './html-escape';
import { markdownCell, markdownFence, markdownLiteral } from './markdown-text';

/** A cell that reads as a number (or the "n/a" a missing one is written as). */
const numberLike = /^(?:[-+]?(?:\d[\d,]*)?\.?\d+(?:e[-+]?\d+)?|n\/a)$/i;

export function blocksHtml(blocks: readonly ReportBlock[]): Html {
  return html`${blocks.map(blockHtml)}`;
}

function blockHtml(block: ReportBlock): Html {
  switch (block.kind) {
    case 'paragraph':
      return html`<p>${block.text}</p>`;
    case 'observation':
      return html`<pre class="observation">${block.text}</pre>`;
    case 'table': {
      // Laid out as the report's other data tables; a column of numbers is right-aligned.
      const numeric = block.header.map((_name, index) => block.rows.length > 0 && block.rows.every((row) => numberLike.test(row[index] ?? '')));
      const cellClass = (index: number) => (numeric[index] ? html` class="num"` : null);
      return html`<table class="data${block.className ? ` ${block.className}` : ''}"><thead><tr>${block.header.map((cell, index) => html`<th${cellClass(index)}>${cell}</th>`)}</tr></thead><tbody>${block.rows.map((row) => html`<tr>${row.map((cell, index) => html`<td${cellClass(index)}>${cell}</td>`)}</tr>`)}</tbody></table>`;
    }
    case 'record':
      return html`<details><summary>${block.summary}</summary><pre class="observation">${JSON.stringify(block.value, null, 2)}</pre></details>`;
  }
}

export function blocksMarkdown(blocks: readonly ReportBlock[]): string {
  return blocks.map(blockMarkdown).join('\n\n');
}

function blockMarkdown(block: ReportBlock): string {
  switch (block.kind) {
    case 'paragraph':
    case 'observation':
      return markdownLiteral(block.text);
    case 'table':
      return [`| ${block.header.map(markdownCell).join(' | ')} |`, `|${block.header.map(() => ' --- ').join('|')}|`, ...block.rows.map((row) => `| ${row.map(markdownCell).join(' | ')} |`)].join('\n');
    case 'record':
      return markdownFence(JSON.stringify(block.value, null, 2), 'json');
  }
}
