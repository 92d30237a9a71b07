import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Markdown } from '../../../src-renderer/cells/Markdown';

// The report's renderer, loaded by vitest at run time: the renderer's type check
// (tsconfig.web.json) covers only the contract of src-main, so this path stays a value.
const reportMarkdown = '../../../src-main/reports/markdown-html';
const { markdownToHtml } = (await import(/* @vite-ignore */ reportMarkdown)) as { markdownToHtml: (text: string) => { toString(): string } };

/**
 * One note, one reading: the notebook (react-markdown) and the HTML report (and so the PDF) read
 * Markdown with the same parser family, so the same elements in the same order carry the same
 * text. Compared after dropping what only presentation adds: attributes other than a link's
 * address, the notebook's wrapper, how each writer spells character references and void
 * elements, and the line breaks React leaves out between table rows.
 */
const notes = [
  '# Heading\n\nA paragraph with **bold**, *emphasis*, ~~struck~~ and `code`.',
  '- one\n- two\n  - nested\n\n1. first\n2. second',
  '- [x] done\n- [ ] open',
  '| node | value |\n| --- | ---: |\n| north | 1.5 |\n| south | 2 |',
  '```sql\nSELECT * FROM trade WHERE value > 1 AND name <> \'x\';\n```',
  '    indented code <b>kept</b>',
  '> a quote\n> over two lines',
  '[the web](https://example.com) and [mail](mailto:a@example.com) and [script](javascript:alert(1)) and [file](file:///etc/passwd)',
  '![logo](https://example.com/logo.png) and ![](data:image/png;base64,AAAA)',
  'Raw <b>inline</b> html and <img src=x onerror=alert(1)>',
  '<script>alert(2)</script>\n\n<div onclick="x()">block</div>',
  'A footnote[^1].\n\n[^1]: The note.',
  'Autolinks: https://example.com/path and www.example.com and a@example.com',
  'Hard  \nbreak and &amp; &copy; &#65; entities, "quotes" and \'apostrophes\'',
  '***\n\nSetext\n======',
];

function normalised(markup: string): string {
  return markup
    .replace(/^<div class="markdown">|<\/div>$/g, '')
    .replace(/<(\/?)([a-z0-9]+)(\s[^>]*?)?\/?>/gi, (_tag, slash: string, name: string, attributes = '') => {
      const href = /\shref="([^"]*)"/.exec(attributes);
      return `<${slash}${name}${href ? ` href="${href[1]}"` : ''}>`;
    })
    // React drops the line breaks between table rows and cells (whitespace is not allowed there).
    .replace(/(<\/?(?:table|thead|tbody|tr|th|td)>)\s+(?=<\/?(?:table|thead|tbody|tr|th|td)>)/g, '$1')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|lt|gt|amp|quot|apos|copy);/gi, (_entity, name: string) => {
      const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", copy: '©' };
      const lower = name.toLowerCase();
      if (lower in named) return named[lower] as string;
      return String.fromCodePoint(lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10));
    });
}

describe('a note in the notebook and in the HTML report', () => {
  it.each(notes)('reads the same: %j', (note) => {
    const notebook = normalised(renderToStaticMarkup(createElement(Markdown, { text: note })));
    const report = normalised(String(markdownToHtml(note)));
    expect(report).toBe(notebook);
  });

  it('keeps no live markup from the text in either', () => {
    for (const note of notes) {
      const report = String(markdownToHtml(note));
      expect(report).not.toMatch(/<(script|img|iframe|div)\b/i);
      expect(report).not.toMatch(/href="(javascript|data|file):/i);
    }
  });
});
