import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { renderIpynb } from '../../../src-main/reports/render-ipynb';
import { renderMarkdownReport } from '../../../src-main/reports/render-markdown';
import { buildReport } from '../../../src-main/reports/report-model';
import { sampleEvents, sampleMaterials } from './bundle-fixture';

/**
 * Notes in the Jupyter export read as the analyst wrote them: a `<` in prose, in an inline code
 * span or in a fenced query shows as `<` (not `&lt;`), and an escape the author or the engine
 * wrote (`\<`) shows its character, not a stray backslash. markdown-it (as Jupyter front ends
 * use) renders each cell; the visible text is what its tokens display.
 */
const renderer = new MarkdownIt({ html: false, linkify: true });

/** What a reader sees: the text of every text, code span and code block token, lines kept. */
function visibleText(markdown: string): string {
  const parts: string[] = [];
  const walk = (tokens: Token[]): void => {
    for (const token of tokens) {
      if (token.type === 'text' || token.type === 'code_inline') parts.push(token.content);
      else if (token.type === 'softbreak' || token.type === 'hardbreak') parts.push('\n');
      else if (token.type === 'fence' || token.type === 'code_block') parts.push(token.content);
      else if (token.type === 'paragraph_close' || token.type === 'heading_close') parts.push('\n');
      if (token.children) walk(token.children);
    }
  };
  walk(renderer.parse(markdown, {}));
  return parts.join('').trim();
}

function codeSpans(markdown: string): string[] {
  return renderer
    .parse(markdown, {})
    .flatMap((token) => token.children ?? [])
    .filter((token) => token.type === 'code_inline')
    .map((token) => token.content);
}

function fences(markdown: string): { info: string; content: string }[] {
  return renderer
    .parse(markdown, {})
    .filter((token) => token.type === 'fence')
    .map((token) => ({ info: token.info, content: token.content }));
}

const analystNotes = {
  prose: 'Margins < 5% are noise; flows <= 3 & falling.',
  escaped: 'Keep \\<unknown> out, and \\[draft\\] too.',
  span: "Keep rows where `flow < 3 && dest <> 'x'` only.",
  money: 'Costs $5 and $10: a $ amount, not maths.',
  fenced: "The check I ran:\n\n```sql\nSELECT source FROM flow WHERE flow < 3 AND source <> 'x' -- a & b [1]\n```\n\nNothing < 3 left.",
};

/** The sample run, failed with a message holding placeholders, with an edited query holding `<`, and the analyst's notes in its notebook. */
function exportedNotes(): { ipynb: Map<string, string>; all: string[]; markdownReport: string } {
  const events = sampleEvents().map((event): RunEvent => {
    if (event.type === 'run-end') return { ...event, status: 'failed', message: 'No candidate: fill <unknown> = <value> in the What-if lines.' };
    if (event.type === 'analyst-review' && event.action === 'edit') return { ...event, original: 'SELECT * FROM flow WHERE flow < 3' };
    return event;
  });
  const materials = sampleMaterials(events);
  const cells = materials.notebook.cells as Record<string, unknown>[];
  const question = cells[0] as Record<string, unknown>;
  for (const [name, source] of Object.entries(analystNotes)) cells.push({ ...question, id: `note-${name}`, kind: 'note', author: 'analyst', source, data: {} });
  const bundle = bundleFromRun(materials, { at: '2026-01-02T10:00:00.000Z', generator: 'test' });
  const report = buildReport(bundle);
  const notebook = JSON.parse(renderIpynb(bundle, report)) as { cells: { cell_type: string; id: string; source: string[] }[] };
  const markdownCells = notebook.cells.filter((cell) => cell.cell_type === 'markdown');
  return {
    ipynb: new Map(markdownCells.map((cell) => [cell.id, cell.source.join('')])),
    all: markdownCells.map((cell) => cell.source.join('')),
    markdownReport: renderMarkdownReport(report),
  };
}

describe('notes in the Jupyter export', () => {
  const { ipynb, all, markdownReport } = exportedNotes();
  const note = (name: string): string => ipynb.get(`note-${name}`) ?? '';

  it('show a < in prose, and an escaped < or [, as the character the analyst meant', () => {
    expect(visibleText(note('prose'))).toBe(analystNotes.prose);
    expect(visibleText(note('escaped'))).toBe('Keep <unknown> out, and [draft] too.');
  });

  it('show dollar amounts as written, escaped so that Jupyter reads no $…$ as TeX', () => {
    expect(visibleText(note('money'))).toBe(analystNotes.money);
    expect(note('money')).toContain('Costs \\$5 and \\$10: a \\$ amount');
  });

  it("show an inline code span's text exactly as typed", () => {
    expect(codeSpans(note('span'))).toEqual(["flow < 3 && dest <> 'x'"]);
    expect(visibleText(note('span'))).toBe("Keep rows where flow < 3 && dest <> 'x' only.");
  });

  it('show a fenced query exactly as typed, language kept', () => {
    expect(fences(note('fenced'))).toEqual([{ info: 'sql', content: "SELECT source FROM flow WHERE flow < 3 AND source <> 'x' -- a & b [1]\n" }]);
    expect(visibleText(note('fenced'))).toBe("The check I ran:\nSELECT source FROM flow WHERE flow < 3 AND source <> 'x' -- a & b [1]\nNothing < 3 left.");
  });

  it("show the engine's closing note and the model's edited query without a stray backslash or reference", () => {
    const closing = all.find((text) => text.includes('Run ended')) ?? '';
    expect(visibleText(closing)).toBe('Run ended: failed. No candidate: fill <unknown> = <value> in the What-if lines.');
    const edited = all.find((text) => text.includes('The model proposed')) ?? '';
    expect(fences(edited).map((fence) => fence.content)).toEqual(['SELECT * FROM flow WHERE flow < 3\n']);
  });

  it('keep the same notes free of raw HTML in the Markdown report', () => {
    expect(markdownReport).toContain("`flow < 3 && dest <> 'x'`");
    for (const text of [...all, markdownReport]) {
      const tokens = new MarkdownIt({ html: true }).parse(text, {});
      const html = [...tokens, ...tokens.flatMap((token) => token.children ?? [])].filter((token) => token.type.startsWith('html_') && !/^<\/?a( id="[a-z-]+")?>/.test(token.content));
      expect(html.map((token) => token.content)).toEqual([]);
    }
  });
});
